import Foundation
import Words
import Zip

/// A zip a merchant hands over (photos and sheets, made on a Mac, Windows or Linux): its files
/// listed under the names their maker meant, each checked to stay inside the folder it is
/// unpacked into, and read by their real bytes under the limits. Where the files go is the
/// caller's (the console's upload); what the zip holds and whether it may be taken is here,
/// where the fuzzer reads it too.
public struct MerchantZip: Sendable {
    public struct Limits: Sendable {
        public var entries: Int
        public var unpackedBytes: UInt64
        public init(entries: Int = 100_000, unpackedBytes: UInt64 = 4 << 30) {
            self.entries = entries
            self.unpackedBytes = unpackedBytes
        }
    }

    /// A file of the zip: where it goes (`photos/녹차.jpg`, relative, `/` between folders) and,
    /// when its name was not written in UTF-8, how it was read (`cp949`, `cp437`, `unicode-path`).
    public struct File: Sendable {
        public var part: ZipParts.Part
        public var path: String
        public var encoding: String?
    }

    /// Why the zip, or one of its files, is not taken: said by the catalogue's words.
    public struct Refused: SaysPhrase, CustomStringConvertible {
        public var phrase: Phrase
        init(_ key: String, _ values: String...) { phrase = Phrase(key, values) }
        public var description: String { phrase.text(.en) }
    }

    /// How a name read from Info-ZIP's Unicode Path field is said.
    public static let unicodePath = "unicode-path"

    /// The zip's name, as the merchant gave it (for the words).
    public let name: String
    public let limits: Limits
    public let files: [File]
    private let archive: ZipParts

    public init(url: URL, name: String, limits: Limits = Limits()) throws(Refused) {
        let archive: ZipParts
        do { archive = try ZipParts(url: url) } catch { throw Refused("upload_not_zip", name) }
        try self.init(archive, name: name, limits: limits)
    }

    public init(data: Data, name: String, limits: Limits = Limits()) throws(Refused) {
        let archive: ZipParts
        do { archive = try ZipParts(data: data) } catch { throw Refused("upload_not_zip", name) }
        try self.init(archive, name: name, limits: limits)
    }

    /// Every file checked before any byte is unpacked: no link, nothing that climbs out, the
    /// declared sizes under the limit; folders and the Mac's `__MACOSX/`, `._` and `.DS_Store` left out.
    private init(_ archive: ZipParts, name: String, limits: Limits) throws(Refused) {
        self.archive = archive
        self.name = name
        self.limits = limits
        var files: [File] = []
        var declared: UInt64 = 0
        for part in archive.parts {
            guard files.count < limits.entries else { throw Refused("upload_too_many", name, String(limits.entries)) }
            let (path, encoding) = Self.decodedName(part)
            let parts = path.replacingOccurrences(of: "\\", with: "/").split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if parts.first == "__MACOSX" || parts.last?.hasPrefix("._") == true || parts.last == ".DS_Store" { continue }
            if part.isSymlink { throw Refused("upload_link", name, path) }
            if part.isDirectory { continue }
            guard !path.hasPrefix("/"), !parts.contains(".."), !parts.contains(where: { $0.isEmpty }) else {
                throw Refused("upload_outside", name, path)
            }
            declared += UInt64(part.size)
            guard declared <= limits.unpackedBytes else { throw Refused("upload_unpacked_too_large", name) }
            files.append(File(part: part, path: parts.joined(separator: "/"), encoding: encoding))
        }
        self.files = files
    }

    /// `file`'s bytes into `consumer`, counted as they come: a file that inflates past the size
    /// its headers declare is refused at once, so is the whole past the limit (`written` counts
    /// every file read so far), and bytes that do not match the file's CRC-32 are damaged.
    public func read(_ file: File, written: inout UInt64, _ consumer: (Data) throws -> Void) throws {
        var own: UInt64 = 0
        var checksum = CRC32()
        do {
            try archive.inflate(file.part, chunk: 256 << 10) { chunk in
                own += UInt64(chunk.count)
                written += UInt64(chunk.count)
                guard own <= UInt64(file.part.size) else { throw Refused("upload_entry_lies", name, file.path, String(file.part.size)) }
                guard written <= limits.unpackedBytes else { throw Refused("upload_unpacked_too_large", name) }
                chunk.withUnsafeBytes { checksum.update($0) }
                try consumer(chunk)
            }
        } catch let refused as Refused {
            throw refused
        } catch {
            throw Refused("upload_entry_damaged", name, file.path)
        }
        guard own == UInt64(file.part.size), checksum.value == file.part.checksum else { throw Refused("upload_entry_damaged", name, file.path) }
    }

    /// A name as the machine that made the zip wrote it: UTF-8 (flagged or not), else the UTF-8
    /// name Info-ZIP's Unicode Path field gives for its bytes, else CP949 (Korean Windows' own
    /// zip), else the zip standard's CP437. The encoding is said when it is not UTF-8.
    static func decodedName(_ part: ZipParts.Part) -> (String, String?) {
        if let text = String(validating: part.nameBytes, as: UTF8.self) { return (text, nil) }
        if let text = part.unicodePath { return (text, unicodePath) }
        if let text = TextEncoding.cp949Text(part.nameBytes) { return (text, "cp949") }
        return (CP437.text(part.nameBytes), "cp437")
    }
}
