import Feeds
import Foundation
import OpenMarketContract
import Manifest

/// What export writes, import reads back the same: products made of the fuzzer's text
/// (fields parted by the unit separator U+001F, products by the record separator U+001E)
/// are written by `ManifestWriter` and read by `ManifestCheck`; every product the writer
/// wrote comes back as a row with the same key, name, description, price, stock and photos.
enum RoundTrip {
    static func entries(_ data: Data) -> [ManifestEntry] {
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\u{1E}", omittingEmptySubsequences: false).prefix(50).enumerated().map { index, record in
            let fields = record.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            func field(_ n: Int) -> String { n < fields.count ? fields[n] : "" }
            let price: Decimal = switch Money.parse(field(2)) {
            case .success(let parsed) where parsed.amount >= 0 && parsed.amount < 1_000_000_000: parsed.amount
            default: Decimal(index * 100)
            }
            let stock = Int(field(3)).map { min(max($0, 0), 1_000_000) } ?? index
            let images = field(4).split(separator: "\u{1D}").map(String.init)
            return ManifestEntry(id: nil, key: field(5).isEmpty ? nil : field(5),
                                 fields: Product(name: field(0), description: field(1), price: Money(price), currency: "USD", stock: stock),
                                 images: images)
        }
    }

    static func check(_ data: Data, named name: String) throws(FuzzFinding) {
        let written = entries(data)
        let url = Scratch.folder.appendingPathComponent(name)
        do {
            let writer = try ManifestWriter(url: url)
            for entry in written { try writer.write(entry) }
            try writer.finish()
        } catch {
            throw FuzzFinding("the writer refused products it was given: \(error)")
        }
        var reading = SheetReading()
        reading.map = .none
        reading.imagesFolder = Scratch.folder
        reading.checkPhotoFiles = false
        let options = reading.options
        var read: [(RawRow, ProductDraft?, [RowIssue])] = []
        do {
            _ = try ManifestCheck.run(url, options: options, onFileIssue: { _ in }, onRow: { read.append(($0, $1, $2)) })
        } catch {
            throw FuzzFinding("the reader cannot read what the writer wrote: \(error)")
        }
        guard read.count == written.count else {
            throw FuzzFinding("\(written.count) products written, \(read.count) rows read back")
        }
        // The CSV holds no NUL (`ManifestWriter.csvText`); JSON Lines escapes it.
        let csv = name.hasSuffix(".csv")
        func held(_ text: String) -> String { csv ? ManifestWriter.csvText(text) : text }
        for (entry, (raw, draft, issues)) in zip(written, read) {
            guard let draft else {
                // A product the rules refuse (an empty name, one too long) is refused the
                // same from the sheet as from the writer's input: nothing to compare.
                if issues.contains(where: { $0.severity == .error }) { continue }
                throw FuzzFinding("row \(raw.number) read back as neither a product nor an error")
            }
            let expected = ManifestValidator.trimmed(held(entry.fields.name))
            if draft.fields.name != expected { throw FuzzFinding("row \(raw.number): name \(quoted(expected)) came back as \(quoted(draft.fields.name))") }
            let description = ManifestValidator.trimmed(held(entry.fields.description))
            if draft.fields.description != description {
                throw FuzzFinding("row \(raw.number): description \(quoted(description)) came back as \(quoted(draft.fields.description))")
            }
            if draft.fields.price != entry.fields.price { throw FuzzFinding("row \(raw.number): price \(entry.fields.price) came back as \(draft.fields.price)") }
            if draft.fields.stock != entry.fields.stock { throw FuzzFinding("row \(raw.number): stock \(entry.fields.stock) came back as \(draft.fields.stock)") }
            let key = entry.key.map { ManifestValidator.trimmed(held($0)) }.flatMap { $0.isEmpty ? nil : $0 }
            if draft.key != key { throw FuzzFinding("row \(raw.number): key \(quoted(key ?? "")) came back as \(quoted(draft.key ?? ""))") }
        }
    }

    static func quoted(_ text: String) -> String { "'\(text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())'" }
}
