/// The image formats the Open Market server accepts, decided by content
/// (magic bytes), never by file name.
public enum ImageFormat: String, Sendable, Equatable {
    case jpeg
    case png

    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        }
    }

    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// JPEG starts with SOI followed by a marker (FF D8 FF); PNG with its
    /// eight-byte signature. Anything else is not an image the server takes.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> ImageFormat? {
        var iterator = bytes.makeIterator()
        var head: [UInt8] = []
        head.reserveCapacity(8)
        while head.count < 8, let b = iterator.next() { head.append(b) }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head == pngSignature { return .png }
        return nil
    }
}

/// The photo formats openmarket reads: the two the server takes, and the two that
/// merchants' photos often are (HEIC/HEIF from a phone, WebP saved from the web),
/// which are turned into JPEG before they are sent. Decided by content.
public enum PhotoFormat: String, Sendable, Equatable {
    case jpeg
    case png
    /// HEIF: HEIC from an iPhone, and AVIF, which the same container holds.
    case heif
    case webp

    /// The format the server takes as it is; nil for one that must be converted.
    public var accepted: ImageFormat? {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .heif, .webp: nil
        }
    }

    /// As people call it, for messages.
    public var label: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .heif: "HEIC"
        case .webp: "WebP"
        }
    }

    /// How many leading bytes `sniff` looks at.
    public static let sniffLength = 12

    /// The ISO base media brands of still HEIF images (HEVC and AV1 coded).
    private static let heifBrands: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1", "avif", "avis"]

    /// JPEG and PNG as `ImageFormat.sniff`; HEIF by its `ftyp` box and a still-image
    /// brand; WebP by its RIFF header (`RIFF····WEBP`).
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> PhotoFormat? {
        let head = Array(bytes.prefix(sniffLength))
        if let accepted = ImageFormat.sniff(head) { return accepted == .jpeg ? .jpeg : .png }
        guard head.count == sniffLength else { return nil }
        if head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) { return .webp }
        if head[4..<8].elementsEqual("ftyp".utf8), heifBrands.contains(String(decoding: head[8..<12], as: UTF8.self)) {
            return .heif
        }
        return nil
    }

    /// What the manifest check and the preparer say of a file that is none of these.
    public static let refusal = "not a JPEG, PNG, HEIC or WebP photo (judged by its content, not its name)"
}
