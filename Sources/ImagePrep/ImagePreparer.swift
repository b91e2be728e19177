import CTurboJPEG
import Foundation
import OpenMarketContract
import Support
import Phrases

public struct ImagePrepSettings: Sendable, Equatable, Hashable {
    /// The server's limit per image.
    public var maxBytes = ServerLimits.maxImageBytes
    /// The long edge of a re-encoded photo is at most this many pixels.
    public var maxDimension = 2048
    /// The lowest JPEG quality tried before the dimensions shrink further. Low,
    /// because fewer pixels look worse: on a photo of fine detail, 1920 px at
    /// quality 44 came out closer to the source (butteraugli) than 1668 px at 65.
    public var qualityFloor = 35
    /// The highest JPEG quality tried: none below 100, so that no budget is left
    /// unused while a better encode fits.
    public var qualityCeiling = 100
    /// Chroma subsampling; nil chooses per photo whichever of 4:4:4, 4:2:2 and
    /// 4:2:0 comes closest to the photo at the limit.
    public var chroma: Chroma? = nil
    /// Progressive JPEG. Off: optimised Huffman tables (always on) give a baseline JPEG
    /// the same bytes at a quarter of the encoding time.
    public var progressive = false
    /// Images with more pixels are refused before decoding (decompression bombs).
    public var pixelBudget = 100_000_000

    /// The largest photo downloaded from a URL (import, migrate, export): 25 MB.
    public static let maxDownloadBytes = ServerLimits.maxDownloadBytes

    public init() {}

    /// Part of the cache key: a change of any setting prepares again.
    var cacheTag: String {
        "v5-\(maxBytes)-\(maxDimension)-\(qualityFloor)-\(qualityCeiling)-\(chroma?.rawValue ?? "auto")-\(progressive ? "p" : "b")"
    }
}

public enum ImagePrepError: Error, Sendable, Equatable, CustomStringConvertible {
    case empty
    case notAnImage
    case unreadable(String)
    case tooManyPixels(width: Int, height: Int, budget: Int)
    case cannotFit(maxBytes: Int)

    public var description: String {
        switch self {
        case .empty: "the file is empty"
        case .notAnImage: PhotoFormat.refusal
        case .unreadable(let detail): detail
        case let .tooManyPixels(width, height, budget):
            "\(width)×\(height) is \(width * height / 1_000_000) megapixels, over the limit of \(budget / 1_000_000) (raise it with --pixel-budget if the image is genuine)"
        case .cannotFit(let maxBytes): "cannot make this image fit in \(maxBytes) bytes"
        }
    }
}

/// What preparation produced and did.
public struct PreparedImage: Sendable, Equatable {
    public enum Action: String, Sendable, Equatable {
        /// Passed through byte for byte.
        case kept
        /// Re-encoded at the same dimensions (rotation applied, or only the size shrank).
        case recompressed
        /// Turned upright without re-encoding (its DCT coefficients moved).
        case turned
        /// Made smaller in pixels, then encoded.
        case resized
    }

    public var data: [UInt8]
    public var format: ImageFormat
    public var action: Action
    public var width: Int
    public var height: Int
    /// JPEG quality of the final encode (nil when kept).
    public var quality: Int?
    public var originalBytes: Int
    public var originalWidth: Int
    public var originalHeight: Int
    /// Full-size encodes tried (the cost of the size search).
    public var encodes: Int
    /// Things worth telling (a truncated photo that still decoded), said in the reader's language.
    public var warnings: [Phrase]
    /// Chroma subsampling of the final encode (nil when kept or grey).
    public var chroma: Chroma? = nil
    /// Encodes of the sample that predicted the sizes: bands of an eighth or a
    /// quarter of the rows, or the whole image when it has under 1,024 rows.
    public var sampleEncodes = 0
}

/// Turns any JPEG, PNG, HEIC or WebP into the best-looking JPEG or PNG that fits the
/// server's limit. One per worker thread: it owns its TurboJPEG handles.
public final class ImagePreparer {
    public let settings: ImagePrepSettings
    let codec: JPEGCodec

    public init(settings: ImagePrepSettings = ImagePrepSettings()) throws {
        self.settings = settings
        self.codec = try JPEGCodec()
    }

    public func prepare(_ input: [UInt8]) throws(ImagePrepError) -> PreparedImage {
        guard !input.isEmpty else { throw .empty }
        guard let format = PhotoFormat.sniff(input) else { throw .notAnImage }
        var result: PreparedImage
        switch format {
        case .jpeg: result = try prepareJPEG(input)
        case .png: result = try preparePNG(input)
        case .heif: result = try prepareConverted(HEIFDecoder.decode(input, pixelBudget: settings.pixelBudget), bytes: input.count)
        case .webp: result = try prepareConverted(WebPDecoder.decode(input, pixelBudget: settings.pixelBudget), bytes: input.count)
        }
        if max(result.originalWidth, result.originalHeight) < Self.usefulLongEdge {
            result.warnings.append(Self.smallPhotoWarning(width: result.originalWidth, height: result.originalHeight))
        }
        return result
    }

    static func smallPhotoWarning(width: Int, height: Int) -> Phrase {
        Phrase("n_photo_small", String(width), String(height), String(usefulLongEdge))
    }

    /// Below this long edge a photo is sent with a warning: it looks blurred in a shop.
    public static let usefulLongEdge = 200

    /// A photo in a format the server does not take (HEIC, WebP): always encoded as JPEG,
    /// through the same downscale and quality search, with its orientation and profile.
    private func prepareConverted(_ photo: DecodedPhoto, bytes: Int) throws(ImagePrepError) -> PreparedImage {
        let pixels = photo.image
        let target = min(settings.maxDimension, max(pixels.width, pixels.height))
        var result = try encodeToFit(pixels, longEdge: target, orientation: photo.orientation,
                                     original: (bytes, pixels.width, pixels.height), profile: photo.iccProfile)
        // Re-encoded at its own size is still a conversion, not a byte-for-byte keep.
        if result.action == .kept { result.action = .recompressed }
        return result
    }

    private func prepareJPEG(_ input: [UInt8]) throws(ImagePrepError) -> PreparedImage {
        let header: JPEGHeader
        do { header = try codec.header(of: input) } catch { throw .unreadable("\(error)") }
        guard header.width * header.height <= settings.pixelBudget else {
            throw .tooManyPixels(width: header.width, height: header.height, budget: settings.pixelBudget)
        }
        let orientation = EXIFOrientation.read(input)
        let isCMYK = header.colorspace == Int32(TJCS_CMYK.rawValue) || header.colorspace == Int32(TJCS_YCCK.rawValue)
        if input.count <= settings.maxBytes && orientation == 1 && !isCMYK {
            return kept(input, format: .jpeg, width: header.width, height: header.height)
        }
        // Under the limit and only on its side: turned losslessly, its colour profile kept.
        if input.count <= settings.maxBytes && !isCMYK, let turned = LosslessTurn.upright(input, orientation: orientation) {
            let profiled = ICCProfile.embedding(ICCProfile.carried(ICCProfile.read(jpeg: input)), in: turned)
            if profiled.count <= min(settings.maxBytes, input.count + LosslessTurn.tolerance(input.count)),
               let upright = try? codec.header(of: profiled) {
                return PreparedImage(data: profiled, format: .jpeg, action: .turned, width: upright.width, height: upright.height,
                                     quality: nil, originalBytes: input.count, originalWidth: header.width,
                                     originalHeight: header.height, encodes: 0, warnings: [])
            }
        }
        // Decode at a reduced DCT scale with room above the target, then Lanczos-3.
        let scaled = JPEGCodec.decodeSize(width: header.width, height: header.height, maxLongEdge: settings.maxDimension)
        let target = min(settings.maxDimension, max(scaled.width, scaled.height))
        let decoded: (image: PixelImage, warning: String?)
        do {
            decoded = try codec.decodeForDisplay(input, header: header, width: scaled.width, height: scaled.height)
        } catch { throw .unreadable("\(error)") }
        // A photo under the limit re-encoded (CMYK, a turn that could not be lossless) is never
        // made bigger than it came: its own size is the budget.
        var result = try encodeToFit(decoded.image, longEdge: target, orientation: orientation,
                                     original: (input.count, header.width, header.height), profile: ICCProfile.read(jpeg: input),
                                     budget: input.count <= settings.maxBytes ? input.count : nil)
        if let warning = decoded.warning { result.warnings.append(Phrase("n_photo_damaged", warning)) }
        return result
    }

    private func preparePNG(_ input: [UInt8]) throws(ImagePrepError) -> PreparedImage {
        let pixels: PixelImage
        do { pixels = try PNGDecoder.decode(input, pixelBudget: settings.pixelBudget) }
        catch let error as ImagePrepError { throw error }
        catch { throw .unreadable("\(error)") }
        if input.count <= settings.maxBytes {
            return kept(input, format: .png, width: pixels.width, height: pixels.height)
        }
        let target = min(settings.maxDimension, max(pixels.width, pixels.height))
        return try encodeToFit(pixels, longEdge: target, orientation: 1, original: (input.count, pixels.width, pixels.height))
    }

    private func kept(_ input: [UInt8], format: ImageFormat, width: Int, height: Int) -> PreparedImage {
        PreparedImage(data: input, format: format, action: .kept, width: width, height: height, quality: nil,
                      originalBytes: input.count, originalWidth: width, originalHeight: height, encodes: 0, warnings: [])
    }

    /// Scales `source` so its long edge is `longEdge`, orients it, then finds
    /// the highest quality that fits; if even the floor does not fit, shrinks
    /// the dimensions by the square root of the overshoot and searches again.
    private func encodeToFit(_ source: PixelImage, longEdge: Int, orientation: Int,
                             original: (bytes: Int, width: Int, height: Int), profile: [UInt8]? = nil,
                             budget: Int? = nil) throws(ImagePrepError) -> PreparedImage {
        // The colour profile goes into the JPEG, so the pixels get what is left of the limit.
        let profile = source.channels == 3 ? ICCProfile.carried(profile) : nil
        let limit = min(settings.maxBytes, budget ?? settings.maxBytes) - ICCProfile.cost(profile)
        var edge = longEdge
        var encodes = 0, sampleEncodes = 0
        for _ in 0..<8 {
            let ratio = Double(edge) / Double(max(source.width, source.height))
            let width = max(1, min(source.width, Int((Double(source.width) * ratio).rounded())))
            let height = max(1, min(source.height, Int((Double(source.height) * ratio).rounded())))
            let image = source.downscaled(toWidth: width, height: height).oriented(orientation)
            let search = try searchQuality(image, maxBytes: limit)
            encodes += search.encodes
            sampleEncodes += search.sampleEncodes
            if let best = search.best {
                let resized = image.width * image.height < original.width * original.height
                return PreparedImage(
                    data: ICCProfile.embedding(profile, in: best.data), format: .jpeg, action: resized ? .resized : .recompressed,
                    width: image.width, height: image.height, quality: best.quality,
                    originalBytes: original.bytes, originalWidth: original.width, originalHeight: original.height,
                    encodes: encodes, warnings: [], chroma: image.channels == 1 ? nil : best.chroma,
                    sampleEncodes: sampleEncodes)
            }
            // Bytes scale roughly with pixel count: shrink each side by √(limit / size), with a margin.
            let shrink = min(0.95, (Double(limit) / Double(search.floorSize)).squareRoot() * 0.97)
            let next = Int(Double(edge) * shrink)
            guard next >= 16, next < edge else { break }
            edge = next
        }
        throw .cannotFit(maxBytes: settings.maxBytes)
    }
}
