import Foundation
import OpenMarketContract

/// The starting manifest merchants copy: the columns in the order a sheet shows them and
/// one example row. `templates/products.csv` and `templates/products.xlsx` are made from
/// this (`openmarket template`, `scripts/make-templates`), and a test keeps them equal.
public enum ManifestTemplate {
    public static let columns: [Column] = [.key, .name, .description, .price, .currency, .discountedPrice, .stock, .images, .id]

    /// The example row as a CSV cell shows it (the price with a thousands separator, as Excel types it).
    public static let example: [Column: String] = [
        .key: "TEA-001",
        .name: "녹차 라떼 (Green tea latte)",
        .description: "Jeju green tea, 350 ml. Leave id empty for a new product.",
        .price: "4,500",
        .currency: "KRW",
        .discountedPrice: "500",
        .stock: "10",
        .images: "images/TEA-001/front.jpg;images/TEA-001/side.jpg",
    ]

    /// The workbook's notes row, above the header (rows above the header are never read).
    public static let notes = """
        One row per product, below the header. key: your own code for the product, kept as typed \
        (00123 stays 00123). price and discounted_price: amounts in the currency. currency: from the list. \
        images: 1 to 5 files separated by ; under the images folder. Leave id empty for a new product. \
        Rows above the header are ignored.
        """

    /// The CSV template, byte for byte.
    public static func csv() throws -> String {
        let stream = OutputStream.toMemory()
        stream.open()
        let writer = CSVLines(stream, newline: "\n")
        try writer.write(row: columns.map(\.rawValue))
        try writer.write(row: columns.map { example[$0] ?? "" })
        stream.close()
        let data = stream.property(forKey: .dataWrittenToMemoryStreamKey) as? Data ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// The workbook template: notes, the bold frozen header, the example, a currency drop-down.
    public static func writeWorkbook(to url: URL, currencies: [String] = ProductRules.sandboxCurrencies) throws {
        let book = try SpreadsheetWriter(url: url)
        book.created(Date(timeIntervalSince1970: 1_767_225_600)) // 2026-01-01: regenerating changes no byte
        book.widths([14, 30, 50, 10, 10, 16, 8, 50, 10])
        book.note(notes)
        book.header(columns.map(\.rawValue))
        if let currency = columns.firstIndex(of: .currency) { book.choices(column: currency, currencies) }
        try book.write(columns.map { column -> SpreadsheetWriter.Cell in
            guard let value = example[column], !value.isEmpty else { return .empty }
            switch column {
            case .price, .discountedPrice, .stock: return .number(value.replacingOccurrences(of: ",", with: ""))
            default: return .text(value)
            }
        })
        try book.close()
    }
}
