import Foundation
import OpenMarketContract
import Support

/// One product as a manifest row is written: what `export` writes and
/// `import` reads back unchanged.
public struct ManifestEntry: Sendable, Equatable {
    public var id: Int?
    public var key: String?
    /// The product's own fields (the one `Product`).
    public var fields: Product
    /// Paths relative to the manifest's folder, or http(s) URLs.
    public var images: [String]
    /// The product's vendor (an export of several vendors writes it; nil on a server without vendors).
    public var vendor: Int?

    public init(id: Int?, key: String?, fields: Product, images: [String]) {
        self.id = id
        self.key = key
        self.fields = fields
        self.images = images
    }

    /// A product from the server, with its images saved at `images` (relative paths).
    public init(_ product: ProductDetail, images: [String]) {
        let summary = product.summary
        self.init(id: summary.id, key: nil, fields: Product(summary), images: images)
        vendor = summary.vendorId > 0 ? summary.vendorId : nil
    }


    /// A validated row, with image paths made relative to `base` when inside it.
    public init(_ draft: ProductDraft, relativeTo base: URL) {
        let root = base.standardizedFileURL.path + "/"
        self.init(id: draft.id, key: draft.key, fields: draft.fields,
                  images: draft.images.map { source in
                      switch source {
                      case .url(let url): return url
                      case .file(let url):
                          let path = url.standardizedFileURL.path
                          return path.hasPrefix(root) ? String(path.dropFirst(root.count)) : path
                      }
                  })
    }
}

/// As export's state file stores it (JSON keeps the decimals exact): one flat object, the
/// product's fields beside the entry's own, as state files always held it.
extension ManifestEntry: Codable {
    private enum Keys: String, CodingKey { case id, key, images, vendor }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(id: try c.decodeIfPresent(Int.self, forKey: .id), key: try c.decodeIfPresent(String.self, forKey: .key),
                  fields: try Product(from: decoder), images: try c.decode([String].self, forKey: .images))
        vendor = try c.decodeIfPresent(Int.self, forKey: .vendor)
    }

    public func encode(to encoder: any Encoder) throws {
        try fields.encode(to: encoder)
        var c = encoder.container(keyedBy: Keys.self)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encodeIfPresent(key, forKey: .key)
        try c.encode(images, forKey: .images)
        try c.encodeIfPresent(vendor, forKey: .vendor)
    }
}

/// Writes a manifest as a stream, to a temporary name renamed into place by
/// `finish()`, so an interrupted run never leaves a file that looks complete.
public final class ManifestWriter {
    public static let columns: [Column] = [.id, .key, .name, .description, .price, .currency, .discountedPrice, .stock, .images]
    /// The columns written: `vendor` last when the manifest holds several vendors' products.
    public let columns: [Column]

    public let url: URL
    public let format: ManifestFormat
    private let temporary: URL
    private var csv: CSVLines?
    private var csvOutput: BufferedFileOutput?
    private var handle: FileHandle?
    private var sheet: SpreadsheetWriter?
    private var count = 0

    public init(url: URL, format: ManifestFormat? = nil, vendorColumn: Bool = false) throws {
        self.url = url
        columns = Self.columns + (vendorColumn ? [.vendor] : [])
        self.format = format ?? ManifestFormat(url: url)
        temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).partial")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw ManifestError(file: url.lastPathComponent, message: "cannot create a file in \(url.deletingLastPathComponent().path)")
        }
        switch self.format {
        case .csv:
            let stream = try BufferedFileOutput(url: temporary)
            csvOutput = stream
            let writer = CSVLines(stream, newline: "\r\n")
            try writer.write(row: columns.map(\.rawValue))
            csv = writer
        case .xlsx:
            try? FileManager.default.removeItem(at: temporary)
            let sheet = try SpreadsheetWriter(url: temporary)
            sheet.widths([10, 16, 40, 50, 12, 9, 16, 8, 50, 10])
            sheet.header(columns.map(\.rawValue))
            self.sheet = sheet
        case .json, .jsonl:
            handle = try FileHandle(forWritingTo: temporary)
            if self.format == .json { try handle?.write(contentsOf: Data("[".utf8)) }
        }
    }

    /// Writes one product; a failed write (a full disk) names the file.
    public func write(_ entry: ManifestEntry) throws {
        do { try append(entry) } catch { throw writeFailure(error) }
    }

    private func writeFailure(_ error: any Error) -> ManifestError {
        if let named = error as? ManifestError { return named }
        return ManifestError(file: url.path, message: "cannot be written: \(fileErrorReason(csvOutput?.failure ?? error))")
    }

    private func append(_ entry: ManifestEntry) throws {
        switch format {
        case .csv:
            let product = entry.fields
            let cells = [entry.id.map(String.init) ?? "", entry.key ?? "", product.name, ManifestValidator.descriptionCell(product.description),
                         Self.number(product.price), product.currency, Self.number(product.discountedPrice),
                         String(product.stock), entry.images.joined(separator: ";")]
                + (columns.contains(.vendor) ? [entry.vendor.map(String.init) ?? ""] : [])
            try csv?.write(row: cells.map { CSVCell.neutralise(Self.csvText($0)) })
        case .json, .jsonl:
            let product = entry.fields
            var object: [String: Any] = [
                "name": product.name, "description": ManifestValidator.descriptionCell(product.description), "price": NSDecimalNumber(decimal: product.price.amount),
                "currency": product.currency, "discounted_price": NSDecimalNumber(decimal: product.discountedPrice.amount),
                "stock": product.stock, "images": entry.images,
            ]
            if let id = entry.id { object["id"] = id }
            if let key = entry.key { object["key"] = key }
            if columns.contains(.vendor), let vendor = entry.vendor { object["vendor"] = vendor }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            var line = format == .json ? Data((count == 0 ? "\n" : ",\n").utf8) : Data()
            line.append(data)
            if format == .jsonl { line.append(0x0A) }
            try handle?.write(contentsOf: line)
        case .xlsx:
            // Keys and ids as text (leading zeros, long digits stay), amounts and counts as numbers.
            try sheet?.write([entry.id.map { .text(String($0)) } ?? .empty, entry.key.map { .text($0) } ?? .empty,
                              .text(entry.fields.name), .text(ManifestValidator.descriptionCell(entry.fields.description)), .number(Self.number(entry.fields.price)),
                              .text(entry.fields.currency), .number(Self.number(entry.fields.discountedPrice)),
                              .number(String(entry.fields.stock)), .text(entry.images.joined(separator: ";"))]
                              + (columns.contains(.vendor) ? [entry.vendor.map { .number(String($0)) } ?? .empty] : []))
            if let last = sheet?.cutCells.last, last.row == count + 2 {
                cutProducts.append(entry.id.map { "#\($0)" } ?? entry.key ?? entry.fields.name)
            }
        }
        count += 1
    }

    /// Gives up: the temporary file goes, nothing appears under the manifest's name.
    public func abandon() {
        csvOutput?.close()
        try? handle?.close()
        sheet?.abandon()
        try? FileManager.default.removeItem(at: temporary)
    }

    /// Completes the file and moves it into place; a failed write names the file.
    /// Products whose text was longer than an Excel cell holds (their id, else key): written
    /// cut in an .xlsx, whole in the other formats.
    public var cutInWorkbook: [String] { cutProducts }
    private var cutProducts: [String] = []

    public func finish() throws {
        do { try complete() } catch { throw writeFailure(error) }
    }

    private func complete() throws {
        if let csvOutput {
            // Rows are separated; the last one is ended too, as line-based tools expect.
            let end: [UInt8] = [0x0D, 0x0A]
            _ = end.withUnsafeBufferPointer { csvOutput.write($0.baseAddress!, maxLength: 2) }
            try csvOutput.finish()
        }
        if format == .json { try handle?.write(contentsOf: Data("\n]\n".utf8)) }
        try handle?.synchronize()
        try handle?.close()
        try sheet?.close()
        _ = try? FileManager.default.removeItem(at: url)
        try FileManager.default.moveItem(at: temporary, to: url)
    }

    /// A decimal as plain text with a dot (`12.5`, `1800000`).
    public static func number(_ value: Money) -> String { value.description }

    /// A text cell as the CSV holds it: without NUL, which makes a reader take the file for
    /// binary (a name with one, from a server that keeps anything, would make the whole
    /// export unreadable).
    public static func csvText(_ value: String) -> String {
        // By scalars: a NUL and the combining marks after it are one Character.
        value.utf8.contains(0) ? String(String.UnicodeScalarView(value.unicodeScalars.filter { $0 != "\u{0}" })) : value
    }
}
