import Foundation
import OpenMarketContract

/// The money rules of a row: its currency, its price, and the discount from a discount or a
/// sale-price column (what the buyer pays is the price less the discount).
extension RowRules {
    /// Currency, price and discounted price. The currency comes from its column, else from a
    /// symbol in the price, else the default (for a new product); nil when it is wrong.
    mutating func money() -> (currency: String?, price: Decimal?, discount: Decimal) {
        var currency = currencyCell()
        var price: Decimal? = nil
        var decimals = 0
        if let cell = text(.price) {
            switch Money.parse(cell) {
            case .failure(let problem):
                issue(.price, cell, "price-format", problem.message)
            case .success(let parsed):
                if let symbol = parsed.currency {
                    if let currency, currency != symbol {
                        issue(.price, cell, "price-currency", "the price is written in \(symbol) but the currency column says \(currency)")
                    } else if currency == nil, text(.currency) == nil {
                        currency = symbol
                        given.insert(.currency)
                    }
                }
                price = parsed.amount
                decimals = parsed.decimals
                plainPrice = parsed.currency == nil ? Money.plainScaled(cell) : nil
                given.insert(.price)
            }
        } else {
            needed(.price, nil, "price-missing", "a price (0 or more)")
        }
        var final = currency
        if final == nil, text(.currency) == nil {
            if let stated = options.currency {
                final = stated
            } else if let reason = options.currencyUnstated, raw.origin?.offSale == nil {
                // A row not on sale sends its stock alone: no amount, no currency asked.
                issue(.currency, nil, "currency-unstated", reason)
            } else {
                final = options.defaultCurrency
            }
        }
        if let amount = price, let code = final, !issues.contains(where: { $0.column == Column.price.rawValue }),
           let problem = Money.check(amount, decimals: decimals, currency: code) {
            if currency != nil || amount < 0 {
                issue(.price, raw.values[.price], problem.rule, problem.message)
            } else {
                // No currency stated: a row that names a product takes that product's currency
                // (checked when the run knows it); only a new product is in the default one.
                createProblems.append(RowIssue(file: file, row: raw.number, column: Column.price.rawValue, value: raw.values[.price],
                                               severity: .error, rule: problem.rule,
                                               message: "\(problem.message) (a new product is in \(code) when no currency is given)"))
            }
        }
        let discount = discount(price: price, currency: currency, newProductCurrency: final)
        // What the buyer pays is the price less the discount: a price the sheet gives with no
        // discount beside it is what the buyer pays, so the shop's discount goes with it (else
        // 15,000 → 12,900 under a kept discount of 2,100 would sell at 10,800).
        if given.contains(.price), !given.contains(.discountedPrice) { given.insert(.discountedPrice) }
        if options.wholeAmounts, !issues.contains(where: { $0.column == Column.price.rawValue }) {
            if let amount = price, !Money.isWhole(amount) {
                issue(.price, raw.values[.price], "price-whole", "the server (2021 generation) takes whole amounts only, got \(Money.text(amount))")
            } else if !Money.isWhole(discount) {
                let column: Column = text(.salePrice) != nil ? .salePrice : .discountedPrice
                issue(column, raw.values[column], "price-whole", "the server (2021 generation) takes whole amounts only, the discount is \(Money.text(discount))")
            }
        }
        return (final, price, discount)
    }

    private mutating func currencyCell() -> String? {
        guard let cell = text(.currency) else { return nil }
        guard let code = Money.currencyCode(cell), options.currencies.contains(code) else {
            issue(.currency, cell, "currency-unknown", "must be one of \(options.currencies.joined(separator: ", "))")
            return nil
        }
        given.insert(.currency)
        return code
    }

    /// The discounted price: 0 when blank, at most the price, in the currency's decimals. A
    /// sale-price column (할인가, sale_price) states the price after the discount: the discount
    /// is the price less it (10,000 at 8,500 is a discount of 1,500).
    private mutating func discount(price: Decimal?, currency: String?, newProductCurrency: String?) -> Decimal {
        if let sale = text(.salePrice) { return discount(sale: sale, price: price, currency: currency) }
        guard let cell = text(.discountedPrice) else { return 0 }
        switch Money.parse(cell) {
        case .failure(let problem):
            issue(.discountedPrice, cell, "discount-format", problem.message)
            return 0
        case .success(let parsed):
            given.insert(.discountedPrice)
            // No currency stated: only the sign here; the fraction is the product's currency's.
            if let problem = Money.check(parsed.amount, decimals: parsed.decimals, currency: currency ?? "", field: "discount") {
                issue(.discountedPrice, cell, problem.rule, problem.message)
            } else if currency == nil, let code = newProductCurrency,
                      let problem = Money.check(parsed.amount, decimals: parsed.decimals, currency: code, field: "discount") {
                createProblems.append(RowIssue(file: file, row: raw.number, column: Column.discountedPrice.rawValue, value: cell,
                                               severity: .error, rule: problem.rule,
                                               message: "\(problem.message) (a new product is in \(code) when no currency is given)"))
            } else if let amount = price, amount >= 0, parsed.amount > amount {
                issue(.discountedPrice, cell, "discount-over-price", "must not be more than the price (\(amount))")
            } else if let amount = price, amount > 0, !parsed.amount.isZero, parsed.amount * 2 > amount {
                // 10000 with 8500: more often the price after the discount than 85 % off.
                issue(.discountedPrice, cell, "discount-looks-like-sale-price",
                      "a discount of \(Money.text(parsed.amount)) on \(Money.text(amount)) takes \(Int(Money.double(parsed.amount / amount * 100).rounded())) % off: discounted_price is the amount taken off; if \(Money.text(parsed.amount)) is the price after the discount, name the column sale_price (할인가)",
                      .warning)
            }
            return parsed.amount
        }
    }

    private mutating func discount(sale cell: String, price: Decimal?, currency: String?) -> Decimal {
        switch Money.parse(cell) {
        case .failure(let problem):
            issue(.salePrice, cell, "sale-price-format", problem.message)
            return 0
        case .success(let parsed):
            guard let price else {
                issue(.salePrice, cell, "sale-price-without-price", "a sale price needs the price in the same row (the discount is the price less the sale price)")
                return 0
            }
            if let problem = Money.check(parsed.amount, decimals: parsed.decimals, currency: currency ?? "", field: "sale price") {
                issue(.salePrice, cell, problem.rule, problem.message)
                return 0
            }
            guard parsed.amount <= price else {
                issue(.salePrice, cell, "sale-price-over-price", "must not be more than the price (\(Money.text(price)))")
                return 0
            }
            let discount = plainPrice.flatMap { plain in Money.plainScaled(cell).flatMap { Money.difference(plain, $0) } }
                ?? price - parsed.amount
            if let stated = text(.discountedPrice), case .success(let other) = Money.parse(stated), other.amount != discount {
                issue(.discountedPrice, stated, "sale-price-disagrees",
                      "the discount column says \(Money.text(other.amount)), the sale price \(Money.text(parsed.amount)) on \(Money.text(price)) makes \(Money.text(discount)): keep one of the two columns")
            }
            given.insert(.discountedPrice)
            return discount
        }
    }
}
