import Support

/// Thumbnails for the sandbox's `thumbnail_url`: a JPEG whose long edge is at
/// most `maxEdge`, decoded at reduced DCT scale and area-averaged.
public enum Thumbnailer {
    public static let defaultMaxEdge = 360

    /// Returns a thumbnail JPEG, or nil when the source is already small
    /// enough to serve as its own thumbnail.
    public static func thumbnail(ofJPEG jpeg: [UInt8], maxEdge: Int = defaultMaxEdge, quality: Int = 80,
                                 codec: JPEGCodec) throws -> [UInt8]? {
        let header = try codec.header(of: jpeg)
        guard max(header.width, header.height) > maxEdge else { return nil }
        let scaled = JPEGCodec.scaledSize(width: header.width, height: header.height, minimumLongEdge: maxEdge)
        let decoded = try codec.decode(jpeg, header: header, width: scaled.width, height: scaled.height)
        let ratio = Double(maxEdge) / Double(max(decoded.width, decoded.height))
        let target = decoded.downscaled(
            toWidth: max(1, min(decoded.width, Int((Double(decoded.width) * ratio).rounded()))),
            height: max(1, min(decoded.height, Int((Double(decoded.height) * ratio).rounded()))), filter: .area)
        return try codec.encode(target, quality: quality)
    }

    /// A JPEG thumbnail of a JPEG or PNG (a PNG is decoded within `pixelBudget`); nil
    /// for anything else. A JPEG already small enough is returned as it is.
    public static func thumbnail(of bytes: [UInt8], maxEdge: Int, quality: Int = 75, codec: JPEGCodec,
                                 pixelBudget: Int = 40_000_000) throws -> [UInt8]? {
        switch ImageFormat.sniff(bytes) {
        case .jpeg:
            return try thumbnail(ofJPEG: bytes, maxEdge: maxEdge, quality: quality, codec: codec) ?? bytes
        case .png:
            let decoded = try PNGDecoder.decode(bytes, pixelBudget: pixelBudget)
            let ratio = min(1, Double(maxEdge) / Double(max(decoded.width, decoded.height)))
            let target = decoded.downscaled(toWidth: max(1, Int((Double(decoded.width) * ratio).rounded())),
                                            height: max(1, Int((Double(decoded.height) * ratio).rounded())), filter: .area)
            return try codec.encode(target, quality: quality)
        default:
            return nil
        }
    }
}
