import Foundation

// The contract's models of the Open Market API (its endpoints are listed in the README's sandbox
// section): page-level keys camelCase, product-level keys snake_case, as the 2022-10 server
// answers. The client reads every generation's answers into them (`ServerAnswers`), and the
// sandbox's 2022-10 routes write them: the two agree with each other by construction, which
// proves nothing about the world — tests read the live servers' captured answers
// (Tests/Fixtures/real) for that.

/// One product as it appears in a catalog page.
public struct ProductSummary: Codable, Sendable, Equatable {
    public var id: Int
    public var vendorId: Int
    public var vendorName: String?
    public var name: String
    public var description: String?
    public var thumbnail: String
    public var currency: String
    public var price: Money
    public var bargainPrice: Money
    public var discountedPrice: Money
    public var stock: Int
    public var createdAt: Date
    public var issuedAt: Date

    public init(
        id: Int, vendorId: Int, vendorName: String?, name: String, description: String?,
        thumbnail: String, currency: String, price: Money, bargainPrice: Money,
        discountedPrice: Money, stock: Int, createdAt: Date, issuedAt: Date
    ) {
        self.id = id
        self.vendorId = vendorId
        self.vendorName = vendorName
        self.name = name
        self.description = description
        self.thumbnail = thumbnail
        self.currency = currency
        self.price = price
        self.bargainPrice = bargainPrice
        self.discountedPrice = discountedPrice
        self.stock = stock
        self.createdAt = createdAt
        self.issuedAt = issuedAt
    }

    enum CodingKeys: String, CodingKey {
        case id
        case vendorId = "vendor_id"
        case vendorName
        case name, description, thumbnail, currency, price
        case bargainPrice = "bargain_price"
        case discountedPrice = "discounted_price"
        case stock
        case createdAt = "created_at"
        case issuedAt = "issued_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.lenientInt(forKey: .id)
        vendorId = try c.lenientInt(forKey: .vendorId)
        vendorName = try c.decodeIfPresent(String.self, forKey: .vendorName)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        thumbnail = try c.decodeIfPresent(String.self, forKey: .thumbnail) ?? ""
        currency = try c.decode(String.self, forKey: .currency)
        price = try c.decode(Money.self, forKey: .price)
        discountedPrice = try c.decodeIfPresent(Money.self, forKey: .discountedPrice) ?? 0
        bargainPrice = try c.decodeIfPresent(Money.self, forKey: .bargainPrice) ?? (price - discountedPrice)
        stock = try c.lenientIntIfPresent(forKey: .stock) ?? 0
        createdAt = try c.timestamp(forKey: .createdAt)
        issuedAt = try c.timestampIfPresent(forKey: .issuedAt) ?? createdAt
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(vendorId, forKey: .vendorId)
        try c.encodeIfPresent(vendorName, forKey: .vendorName)
        try c.encode(name, forKey: .name)
        try c.encodeIfPresent(description, forKey: .description)
        try c.encode(thumbnail, forKey: .thumbnail)
        try c.encode(currency, forKey: .currency)
        try c.encode(price, forKey: .price)
        try c.encode(bargainPrice, forKey: .bargainPrice)
        try c.encode(discountedPrice, forKey: .discountedPrice)
        try c.encode(stock, forKey: .stock)
        try c.encode(OpenMarketTimestamp.format(createdAt), forKey: .createdAt)
        try c.encode(OpenMarketTimestamp.format(issuedAt), forKey: .issuedAt)
    }
}

/// One stored photo of a product.
public struct ProductImage: Codable, Sendable, Equatable {
    public var id: Int
    public var url: String
    public var thumbnailURL: String
    public var issuedAt: Date?

    public init(id: Int, url: String, thumbnailURL: String, issuedAt: Date?) {
        self.id = id
        self.url = url
        self.thumbnailURL = thumbnailURL
        self.issuedAt = issuedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, url
        case thumbnailURL = "thumbnail_url"
        case issuedAt = "issued_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.lenientInt(forKey: .id)
        url = try c.decode(String.self, forKey: .url)
        thumbnailURL = try c.decodeIfPresent(String.self, forKey: .thumbnailURL) ?? url
        issuedAt = try c.timestampIfPresent(forKey: .issuedAt)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(url, forKey: .url)
        try c.encode(thumbnailURL, forKey: .thumbnailURL)
        try c.encodeIfPresent(issuedAt.map { OpenMarketTimestamp.format($0) }, forKey: .issuedAt)
    }
}

/// The owner of a product, as the detail endpoint names it.
public struct VendorInfo: Codable, Sendable, Equatable {
    public var id: Int
    public var name: String

    public init(id: Int, name: String) {
        self.id = id
        self.name = name
    }

    enum CodingKeys: String, CodingKey { case id, name }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.lenientInt(forKey: .id)
        name = try c.decode(String.self, forKey: .name)
    }
}

/// `GET /api/products/{id}`: a summary plus its images and vendor.
public struct ProductDetail: Codable, Sendable, Equatable {
    public var summary: ProductSummary
    public var images: [ProductImage]?
    public var vendors: VendorInfo?

    public init(summary: ProductSummary, images: [ProductImage]?, vendors: VendorInfo?) {
        self.summary = summary
        self.images = images
        self.vendors = vendors
    }

    public var id: Int { summary.id }

    enum CodingKeys: String, CodingKey { case images, vendors }

    public init(from decoder: any Decoder) throws {
        summary = try ProductSummary(from: decoder)
        let c = try decoder.container(keyedBy: CodingKeys.self)
        images = try c.decodeIfPresent([ProductImage].self, forKey: .images)
        vendors = try c.decodeIfPresent(VendorInfo.self, forKey: .vendors)
    }

    public func encode(to encoder: any Encoder) throws {
        try summary.encode(to: encoder)
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(images, forKey: .images)
        try c.encodeIfPresent(vendors, forKey: .vendors)
    }
}

/// `GET /api/products`: one page of the catalog.
public struct ProductPage: Codable, Sendable, Equatable {
    public var pageNo: Int
    public var itemsPerPage: Int
    public var totalCount: Int
    public var offset: Int
    public var limit: Int
    public var lastPage: Int
    public var hasNext: Bool
    public var hasPrev: Bool
    public var pages: [ProductSummary]
    /// What a page of this server can be relied on for (never sent on the wire). A 2022
    /// page is newest first, counts the catalog and names each product's vendor; a 2021
    /// page does none of that: its order is not by id, its end is the first empty page,
    /// and who may write an item is known only by asking with the password.
    public var newestFirst = true
    public var totalKnown = true
    public var vendorsKnown = true

    public init(
        pageNo: Int, itemsPerPage: Int, totalCount: Int, offset: Int, limit: Int,
        lastPage: Int, hasNext: Bool, hasPrev: Bool, pages: [ProductSummary]
    ) {
        self.pageNo = pageNo
        self.itemsPerPage = itemsPerPage
        self.totalCount = totalCount
        self.offset = offset
        self.limit = limit
        self.lastPage = lastPage
        self.hasNext = hasNext
        self.hasPrev = hasPrev
        self.pages = pages
    }

    enum CodingKeys: String, CodingKey {
        case pageNo, itemsPerPage, totalCount, offset, limit, lastPage, hasNext, hasPrev, pages
        /// Older servers spell it without the s.
        case itemPerPage
        /// The 2022-01…08 server spells the page's keys in snake_case (its products too).
        case pageNoSnake = "page_no", itemsPerPageSnake = "items_per_page", totalCountSnake = "total_count"
        case lastPageSnake = "last_page", hasNextSnake = "has_next", hasPrevSnake = "has_prev"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        /// A key in the camelCase of the contract, else in the snake_case of the 2022-01 server.
        func int(_ camel: CodingKeys, _ snake: CodingKeys) throws -> Int {
            try c.lenientIntIfPresent(forKey: camel) ?? c.lenientInt(forKey: c.contains(snake) ? snake : camel)
        }
        func bool(_ camel: CodingKeys, _ snake: CodingKeys) throws -> Bool? {
            try c.decodeIfPresent(Bool.self, forKey: camel) ?? c.decodeIfPresent(Bool.self, forKey: snake)
        }
        pageNo = try int(.pageNo, .pageNoSnake)
        itemsPerPage = try c.lenientIntIfPresent(forKey: .itemsPerPage) ?? c.lenientIntIfPresent(forKey: .itemsPerPageSnake)
            ?? c.lenientInt(forKey: .itemPerPage)
        totalCount = try int(.totalCount, .totalCountSnake)
        if let given = try c.lenientIntIfPresent(forKey: .offset) {
            offset = given
        } else {
            // A page number no server sends (found by `scripts/fuzz answers-2022-10`): a decoding
            // error that says so, never an overflow that stops the program.
            guard pageNo > Int.min, case let (before, false) = (pageNo - 1).multipliedReportingOverflow(by: itemsPerPage) else {
                throw DecodingError.dataCorruptedError(forKey: .pageNo, in: c, debugDescription: "page \(pageNo) of \(itemsPerPage) is past any offset")
            }
            offset = before
        }
        limit = try c.lenientIntIfPresent(forKey: .limit) ?? itemsPerPage
        lastPage = try int(.lastPage, .lastPageSnake)
        guard let next = try bool(.hasNext, .hasNextSnake) else {
            throw DecodingError.keyNotFound(CodingKeys.hasNext, .init(codingPath: c.codingPath, debugDescription: "no hasNext or has_next"))
        }
        hasNext = next
        hasPrev = try bool(.hasPrev, .hasPrevSnake) ?? (pageNo > 1)
        pages = try c.decode([ProductSummary].self, forKey: .pages)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(pageNo, forKey: .pageNo)
        try c.encode(itemsPerPage, forKey: .itemsPerPage)
        try c.encode(totalCount, forKey: .totalCount)
        try c.encode(offset, forKey: .offset)
        try c.encode(limit, forKey: .limit)
        try c.encode(lastPage, forKey: .lastPage)
        try c.encode(hasNext, forKey: .hasNext)
        try c.encode(hasPrev, forKey: .hasPrev)
        try c.encode(pages, forKey: .pages)
    }
}

/// The JSON body of every error answer: `{"code": 400, "message": "..."}` (2022), or
/// `{"error": true, "reason": "..."}` (2021, Vapor's).
public struct APIErrorBody: Codable, Sendable, Equatable {
    public var code: Int
    public var message: String

    public init(code: Int, message: String) {
        self.code = code
        self.message = message
    }

    enum CodingKeys: String, CodingKey { case code, message, reason }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let reason = try c.decodeIfPresent(String.self, forKey: .reason) {
            code = 0
            message = reason
            return
        }
        code = try c.lenientInt(forKey: .code)
        message = try c.decode(String.self, forKey: .message)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(message, forKey: .message)
    }
}

extension KeyedDecodingContainer {
    /// An integer that some servers send as `7`, others as `7.0`.
    func lenientInt(forKey key: Key) throws -> Int {
        if let value = try? decode(Int.self, forKey: key) { return value }
        let double = try decode(Double.self, forKey: key)
        guard double.rounded() == double, let value = Int(exactly: double) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "expected an integer, found \(double)")
        }
        return value
    }

    func lenientIntIfPresent(forKey key: Key) throws -> Int? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try lenientInt(forKey: key)
    }

    func timestamp(forKey key: Key) throws -> Date {
        let text = try decode(String.self, forKey: key)
        guard let date = OpenMarketTimestamp.parse(text) else {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: self, debugDescription: "not a timestamp: \(text)")
        }
        return date
    }

    func timestampIfPresent(forKey key: Key) throws -> Date? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try timestamp(forKey: key)
    }
}
