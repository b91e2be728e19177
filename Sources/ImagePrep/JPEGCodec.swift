import CTurboJPEG

/// What went wrong in TurboJPEG, with its own message.
public struct JPEGError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The header of a JPEG: enough to plan a decode without allocating pixels.
public struct JPEGHeader: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// TurboJPEG's colourspace (`TJCS_*`) as an integer.
    public var colorspace: Int32
    public var subsampling: Int32

    public var isGrayscale: Bool { colorspace == Int32(TJCS_GRAY.rawValue) }
}

/// One TurboJPEG decompressor and one compressor. Not thread-safe by design:
/// make one per worker thread, never share.
public final class JPEGCodec {
    private let decompressor: tjhandle
    private let compressor: tjhandle

    public init() throws {
        guard let d = tjInitDecompress() else { throw JPEGError("TurboJPEG: cannot create a decompressor") }
        guard let c = tjInitCompress() else {
            tjDestroy(d)
            throw JPEGError("TurboJPEG: cannot create a compressor")
        }
        decompressor = d
        compressor = c
    }

    deinit {
        tjDestroy(decompressor)
        tjDestroy(compressor)
    }

    private func lastError(_ handle: tjhandle) -> String {
        guard let message = tjGetErrorStr2(handle) else { return "unknown TurboJPEG error" }
        return String(cString: message)
    }

    /// Reads the header only.
    public func header(of jpeg: [UInt8]) throws -> JPEGHeader {
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        let status = jpeg.withUnsafeBufferPointer { buffer in
            tjDecompressHeader3(
                decompressor, buffer.baseAddress, UInt(buffer.count),
                &width, &height, &subsampling, &colorspace)
        }
        guard status == 0, width > 0, height > 0 else {
            throw JPEGError("not a readable JPEG: \(lastError(decompressor))")
        }
        return JPEGHeader(width: Int(width), height: Int(height), colorspace: colorspace, subsampling: subsampling)
    }

    /// The DCT scaling factors TurboJPEG offers (1/8 … 2), largest first.
    public static let scalingFactors: [(num: Int, denom: Int)] = {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count) else { return [(1, 1)] }
        return (0..<Int(count))
            .map { (Int(factors[$0].num), Int(factors[$0].denom)) }
            .sorted { Double($0.num) / Double($0.denom) > Double($1.num) / Double($1.denom) }
    }()

    /// The smallest DCT-scaled size whose long edge is still at least
    /// `minimumLongEdge` (so a later area downscale keeps full detail);
    /// full size when no reduction qualifies.
    public static func scaledSize(width: Int, height: Int, minimumLongEdge: Int) -> (width: Int, height: Int) {
        var best = (width, height)
        for f in scalingFactors where f.num <= f.denom {
            let w = (width * f.num + f.denom - 1) / f.denom
            let h = (height * f.num + f.denom - 1) / f.denom
            if max(w, h) >= minimumLongEdge { best = (w, h) } else { break }
        }
        return best
    }

    /// Decodes to grey (for greyscale JPEGs) or RGB at the given DCT-scaled
    /// size (which must come from `scaledSize`).
    public func decode(_ jpeg: [UInt8], header: JPEGHeader, width: Int, height: Int) throws -> PixelImage {
        let channels = header.isGrayscale ? 1 : 3
        let format = header.isGrayscale ? TJPF_GRAY : TJPF_RGB
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let status = jpeg.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(
                    decompressor, src.baseAddress, UInt(src.count), dst.baseAddress,
                    Int32(width), 0, Int32(height), Int32(format.rawValue), 0)
            }
        }
        if status != 0 && tjGetErrorCode(decompressor) == Int32(TJERR_FATAL.rawValue) {
            throw JPEGError("cannot decode JPEG: \(lastError(decompressor))")
        }
        return PixelImage(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// Encodes at `quality` (1–100), 4:2:0 for colour, grey for grey.
    public func encode(_ image: PixelImage, quality: Int) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let format = image.channels == 1 ? TJPF_GRAY : TJPF_RGB
        let subsampling = image.channels == 1 ? TJSAMP_GRAY : TJSAMP_420
        let status = image.pixels.withUnsafeBufferPointer { src in
            tjCompress2(
                compressor, src.baseAddress, Int32(image.width), 0, Int32(image.height),
                Int32(format.rawValue), &output, &size, Int32(subsampling.rawValue),
                Int32(max(1, min(100, quality))), Int32(TJFLAG_ACCURATEDCT))
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else { throw JPEGError("cannot encode JPEG: \(lastError(compressor))") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}
