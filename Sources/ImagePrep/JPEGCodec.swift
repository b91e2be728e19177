import CTurboJPEG
import CJPEGSettings
import Foundation

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

    /// Optimised Huffman tables: about 10 % fewer bytes than the standard tables at the same
    /// quality, for about twice the entropy-coding time (a progressive JPEG gets the same bytes
    /// for four times). TurboJPEG 2.1 has no flag for it; it reads TJ_OPTIMIZE from the
    /// environment at each compression. CJPEGSettings sets it before main, while the process
    /// has one thread (setenv beside a thread starting a child process crashed the tests),
    /// unless the environment already says otherwise.
    public static var optimisesHuffmanTables: Bool { openmarket_jpeg_optimise_huffman() != 0 }

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

    /// The DCT-scaled size to decode a photo at, for a wanted long edge of at
    /// most `maxLongEdge`: the smallest scale that leaves a quarter of room above
    /// it (full size when none does), to be resampled down with Lanczos-3. Fewer
    /// pixels, or a scale right at the target, lose detail a buyer sees (butteraugli
    /// at 2048 px): a 5640 px photo decoded at 3/8 (2115 px) scored 5.3, at 1/2 then
    /// Lanczos 3.7, at full size 3.4; 3840 px photos decoded straight at 1/2
    /// (1920 px) scored 3.0–3.5 where Lanczos to 2048 from 3/4 scored 1.4–2.2.
    public static func decodeSize(width: Int, height: Int, maxLongEdge: Int) -> (width: Int, height: Int) {
        if max(width, height) <= maxLongEdge { return (width, height) }
        return scaledSize(width: width, height: height, minimumLongEdge: maxLongEdge + maxLongEdge / 4)
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

    /// Decodes to the pixels a viewer shows: grey stays grey, RGB stays RGB,
    /// CMYK and YCCK (including Adobe's inverted CMYK) become RGB. A damaged
    /// file that still decodes comes with TurboJPEG's warning.
    public func decodeForDisplay(_ jpeg: [UInt8], header: JPEGHeader, width: Int, height: Int) throws -> (image: PixelImage, warning: String?) {
        let isCMYK = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        let channels = header.isGrayscale ? 1 : isCMYK ? 4 : 3
        let format = header.isGrayscale ? TJPF_GRAY : isCMYK ? TJPF_CMYK : TJPF_RGB
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        let status = jpeg.withUnsafeBufferPointer { src in
            pixels.withUnsafeMutableBufferPointer { dst in
                tjDecompress2(
                    decompressor, src.baseAddress, UInt(src.count), dst.baseAddress,
                    Int32(width), 0, Int32(height), Int32(format.rawValue), Int32(TJFLAG_ACCURATEDCT))
            }
        }
        var warning: String? = nil
        if status != 0 {
            guard tjGetErrorCode(decompressor) == Int32(TJERR_WARNING.rawValue) else {
                throw JPEGError("cannot decode JPEG: \(lastError(decompressor))")
            }
            warning = lastError(decompressor)
        }
        guard isCMYK else { return (PixelImage(width: width, height: height, channels: channels, pixels: pixels), warning) }
        // Photoshop and libjpeg-turbo store CMYK inverted (255 = no ink) and say so in an Adobe
        // APP14 marker; without it, 255 means full ink.
        let inverted = Self.hasAdobeMarker(jpeg)
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            var c = Int(pixels[i * 4]), m = Int(pixels[i * 4 + 1]), y = Int(pixels[i * 4 + 2]), k = Int(pixels[i * 4 + 3])
            if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            rgb[i * 3] = UInt8(c * k / 255)
            rgb[i * 3 + 1] = UInt8(m * k / 255)
            rgb[i * 3 + 2] = UInt8(y * k / 255)
        }
        return (PixelImage(width: width, height: height, channels: 3, pixels: rgb), warning)
    }

    /// Whether the JPEG's headers hold an Adobe APP14 marker.
    static func hasAdobeMarker(_ jpeg: [UInt8]) -> Bool {
        var offset = 2
        while offset + 9 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            if marker == 0xDA || marker == 0xD9 { return false }
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            guard length >= 2 else { return false }
            if marker == 0xEE, Array(jpeg[(offset + 4)..<(offset + 9)]) == Array("Adobe".utf8) { return true }
            offset += 2 + length
        }
        return false
    }

    /// Encodes at `quality` (1–100) with the given chroma subsampling (grey
    /// images are grey whatever it says), with optimised Huffman tables;
    /// `progressive` for a JPEG that browsers show coarse-to-fine.
    public func encode(_ image: PixelImage, quality: Int, chroma: Chroma = .s420, progressive: Bool = false) throws -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let format = image.channels == 1 ? TJPF_GRAY : TJPF_RGB
        let subsampling = image.channels == 1 ? TJSAMP_GRAY : chroma.turboJPEG
        let flags = TJFLAG_ACCURATEDCT | (progressive ? TJFLAG_PROGRESSIVE : 0)
        let status = image.pixels.withUnsafeBufferPointer { src in
            tjCompress2(
                compressor, src.baseAddress, Int32(image.width), 0, Int32(image.height),
                Int32(format.rawValue), &output, &size, Int32(subsampling.rawValue),
                Int32(max(1, min(100, quality))), Int32(flags))
        }
        defer { if let output { tjFree(output) } }
        guard status == 0, let output else { throw JPEGError("cannot encode JPEG: \(lastError(compressor))") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }
}

/// How much colour detail a JPEG keeps: full (4:4:4), half across (4:2:2),
/// or half across and down (4:2:0, the usual camera choice). Less colour
/// leaves more of the byte budget for brightness detail.
public enum Chroma: String, Sendable, CaseIterable, Hashable {
    case s444 = "4:4:4"
    case s422 = "4:2:2"
    case s420 = "4:2:0"

    var turboJPEG: TJSAMP {
        switch self {
        case .s444: TJSAMP_444
        case .s422: TJSAMP_422
        case .s420: TJSAMP_420
        }
    }
}
