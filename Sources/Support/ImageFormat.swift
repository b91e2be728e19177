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
