import Foundation
import OpenMarketContract
import Support

/// Where a row's photo comes from.
public enum ImageSource: Sendable, Equatable, Hashable {
    case file(URL)
    case url(String)

    /// As reports and the change log write it: a path in composed Unicode (NFC), whatever
    /// form the disk spells it in, so that one photo is one text.
    public var display: String {
        switch self {
        case .file(let url): FileLookup.nfc(url.path)
        case .url(let url): url
        }
    }

    /// The references of an images cell: separated by `;`, `|`, a line break or a comma,
    /// trimmed, blanks dropped. A comma separates only where every piece it makes is a photo
    /// (a name with a photo's extension, or a URL): a comma inside a URL's query
    /// (`?w=100,h=80`) or in a file's own name (`front, left.jpg`) is not a separator.
    public static func references(inCell cell: String) -> [String] {
        // ASCII without a comma (most cells): split at the separators' bytes, no grapheme breaking
        // (ASCII's line breaks are LF, VT, FF and CR; CRLF splits into an empty piece, left out).
        if cell.isPlainASCII, !cell.holdsByte(UInt8(ascii: ",")) {
            if let pieces = cell.utf8.withContiguousStorageIfAvailable(asciiReferences) { return pieces }
            return cell.utf8.split(whereSeparator: { $0 == 0x3B || $0 == 0x7C || (0x0A...0x0D).contains($0) })
                .map { ManifestValidator.trimmed(String($0)!) }.filter { !$0.isEmpty }
        }
        guard cell.holdsByte(UInt8(ascii: ",")) else {
            return cell.split(whereSeparator: { $0 == ";" || $0 == "|" || $0.isNewline })
                .map { ManifestValidator.trimmed(String($0)) }.filter { !$0.isEmpty }
        }
        return cell.split(whereSeparator: { $0 == ";" || $0 == "|" || $0.isNewline })
            .flatMap { splitCommas(ManifestValidator.trimmed(String($0))) }
            .filter { !$0.isEmpty }
    }

    /// An ASCII cell without commas, split at `;`, `|` and line breaks, each piece trimmed of
    /// ASCII's spaces (tab to CR, space: what `ManifestValidator.trimmed` takes off ASCII),
    /// blanks left out; one string made per reference.
    private static func asciiReferences(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
        var pieces: [String] = []
        var start = 0
        for index in 0...bytes.count {
            if index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x3B || byte == 0x7C || (0x0A...0x0D).contains(byte) else { continue }
            }
            var first = start, end = index
            start = index + 1
            while first < end, isSpace(bytes[first]) { first += 1 }
            while end > first, isSpace(bytes[end - 1]) { end -= 1 }
            if first < end { pieces.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<end]), as: UTF8.self)) }
        }
        return pieces
    }

    private static func splitCommas(_ text: String) -> [String] {
        guard text.contains(",") else { return [text] }
        // Each piece runs from a part that starts a reference to the next one; a part that does
        // not (a query's comma, a name's) stays with the piece before it. Ranges, not strings
        // joined again and again: a cell of a million commas is read once.
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        var starts: [Int] = []
        for (index, part) in parts.enumerated() where starts.isEmpty || isReference(ManifestValidator.trimmed(String(part))) {
            starts.append(index)
        }
        guard starts.count > 1 else { return [text] }
        let pieces = starts.indices.map { i -> String in
            let end = i + 1 < starts.count ? starts[i + 1] : parts.count
            let range = parts[starts[i]].startIndex..<parts[end - 1].endIndex
            return ManifestValidator.trimmed(String(text[range]))
        }
        return pieces.allSatisfy(isReference) ? pieces : [text]
    }

    private static func isURL(_ text: String) -> Bool {
        let lower = text.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("s3://")
    }

    private static func isReference(_ text: String) -> Bool { isURL(text) || hasPhotoExtension(text) }

    private static let photoExtensions: Set<String> = ["jpg", "jpeg", "jpe", "png", "heic", "heif", "webp", "gif", "tif", "tiff", "bmp"]

    private static func hasPhotoExtension(_ text: String) -> Bool {
        let path = text.split(separator: "?", maxSplits: 1).first ?? ""
        guard let dot = path.lastIndex(of: ".") else { return false }
        return photoExtensions.contains(path[path.index(after: dot)...].lowercased())
    }
}

/// One row of a manifest as import and export share it: every value parsed
/// and checked, ready to become a product.
public struct ProductDraft: Sendable, Equatable {
    /// The row number a spreadsheet shows (header = 1).
    public var row: Int
    /// The merchant's stable key (`key`/`sku`), if given.
    public var key: String?
    /// An existing product's id (for updates).
    public var id: Int?
    /// The product's own fields (the one `Product`); those the row does not set (`given`)
    /// hold what the reader left there, not a value to send.
    public var fields: Product
    public var images: [ImageSource]
    /// The product fields the row sets: a blank cell or a missing column keeps the
    /// live value. A full row (every field) unless the manifest left some out.
    public var given: ColumnSet = ProductDraft.allFields
    /// `+5` / `-3` in the stock column: a change to the live stock, not a value.
    public var stockDelta: Int?
    /// What the row lacks to create a product (name, price, photos): errors only if
    /// it would create one; a row that updates needs none of them.
    public var createProblems: [RowIssue] = Array()
    /// How a value was made from a supplier's cells (a feed's price rule), by column.
    public var explanations: [Column: String] = Dictionary()
    /// Fields a feed sets when the product is made and never overwrites after.
    public var protected = ColumnSet()
    /// The photos' identity when it is known from elsewhere (a migrated product: the hashes
    /// of the files its merchant sent, from the source account's link store), kept in the
    /// link instead of the hashes of `images`, so that the merchant's sheet matches it.
    public var knownPhotoHashes: [String]?
    /// The vendor the row's product belongs to, when the sheet says (an export of several vendors).
    public var vendor: Int?
    /// The row says its product is not on sale: only its stock (0) is sent, to a product the
    /// shop holds; none is made for it.
    public var offSale: OffSale?

    /// A checked row's draft, every part given at once (`ManifestValidator.check`: a draft changed
    /// part by part after it was made was copied, each of its texts retained and released again).
    init(row: Int, key: String?, id: Int?, fields: Product, images: [ImageSource], given: ColumnSet, stockDelta: Int?,
         vendor: Int?, createProblems: [RowIssue], origin: RowOrigin?) {
        self.row = row
        self.key = key
        self.id = id
        self.fields = fields
        self.images = images
        self.given = given
        self.stockDelta = stockDelta
        self.vendor = vendor
        self.createProblems = createProblems
        if let origin {
            explanations = origin.explanations
            protected = origin.protected
            offSale = origin.offSale
        }
    }

    /// The product's texts and photos let go (`ManifestCheck.run(keepsContents: false)`): what
    /// says whether and how the row counts stays (its row, given columns, `createProblems`, `offSale`).
    mutating func dropContents() {
        key = nil
        fields = Product(name: "", description: "", price: fields.price, currency: "", discountedPrice: fields.discountedPrice, stock: fields.stock)
        images = []
        explanations = [:]
        knownPhotoHashes = nil
    }

    /// The columns that are product fields (not `id` or `key`).
    public static let allFields: ColumnSet = [.name, .description, .price, .currency, .discountedPrice, .stock, .images]

    public init(row: Int, key: String?, id: Int?, fields: Product, images: [ImageSource]) {
        self.row = row
        self.key = key
        self.id = id
        self.fields = fields
        self.images = images
    }

    public init(row: Int, key: String?, id: Int?, name: String, description: String, price: Money,
                currency: String, discountedPrice: Money, stock: Int, images: [ImageSource]) {
        // Not by `init(row:key:id:fields:images:)`: a draft made so was copied into place (every row's).
        self.row = row
        self.key = key
        self.id = id
        fields = Product(name: name, description: description, price: price, currency: currency,
                         discountedPrice: discountedPrice, stock: stock)
        self.images = images
    }
}
