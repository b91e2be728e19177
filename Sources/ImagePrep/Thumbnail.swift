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
            height: max(1, min(decoded.height, Int((Double(decoded.height) * ratio).rounded()))))
        return try codec.encode(target, quality: quality)
    }
}
