import CPNG

/// PNG decoding with libpng's simplified API: palette, grey, 16-bit and
/// interlaced files come out as 8-bit grey or RGB, alpha composited on white.
public enum PNGDecoder {
    public struct Header: Sendable {
        public var width: Int
        public var height: Int
        public var isGray: Bool
        public var hasAlpha: Bool
    }

    /// Reads the header; refuses an image over `pixelBudget` before any pixel is allocated.
    public static func decode(_ png: [UInt8], pixelBudget: Int) throws -> PixelImage {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        defer { png_image_free(&image) }
        let began = png.withUnsafeBytes { png_image_begin_read_from_memory(&image, $0.baseAddress, $0.count) }
        guard began != 0 else { throw ImagePrepError.unreadable("not a readable PNG: \(message(image))") }
        let width = Int(image.width), height = Int(image.height)
        guard width > 0, height > 0 else { throw ImagePrepError.unreadable("PNG with no pixels") }
        guard width * height <= pixelBudget else {
            throw ImagePrepError.tooManyPixels(width: width, height: height, budget: pixelBudget)
        }
        let isGray = image.format & PNG_FORMAT_FLAG_COLOR == 0
        let channels = isGray ? 1 : 3
        image.format = isGray ? png_uint_32(PNG_FORMAT_GRAY) : png_uint_32(PNG_FORMAT_RGB)
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        var white = png_color(red: 255, green: 255, blue: 255)
        let finished = pixels.withUnsafeMutableBytes { buffer in
            png_image_finish_read(&image, &white, buffer.baseAddress, 0, nil)
        }
        guard finished != 0 else { throw ImagePrepError.unreadable("cannot decode PNG: \(message(image))") }
        return PixelImage(width: width, height: height, channels: channels, pixels: pixels)
    }

    private static func message(_ image: png_image) -> String {
        var copy = image.message
        return withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
