import CTurboJPEG
import Foundation
import Support

public struct ImagePrepSettings: Sendable, Equatable, Hashable {
    /// The server's limit per image.
    public var maxBytes = ServerLimits.maxImageBytes
    /// The long edge of a re-encoded photo is at most this many pixels.
    public var maxDimension = 2048
    /// The lowest JPEG quality tried before the dimensions shrink further.
    public var qualityFloor = 60
    /// The highest JPEG quality worth its bytes.
    public var qualityCeiling = 92
    /// Images with more pixels are refused before decoding (decompression bombs).
    public var pixelBudget = 100_000_000

    /// The largest photo downloaded from a URL (import, migrate, export): 25 MB.
    public static let maxDownloadBytes = 25 * 1024 * 1024

    public init() {}

    /// Part of the cache key: a change of any setting prepares again.
    var cacheTag: String { "v1-\(maxBytes)-\(maxDimension)-\(qualityFloor)-\(qualityCeiling)" }
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
        case .notAnImage: "not a JPEG or PNG file (judged by its content, not its name)"
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
    /// Encodes tried (the cost of the size search).
    public var encodes: Int
    /// Things worth telling (a truncated photo that still decoded).
    public var warnings: [String]
}

/// Turns any JPEG or PNG into the best-looking image that fits the server's
/// limit. One per worker thread: it owns its TurboJPEG handles.
public final class ImagePreparer {
    public let settings: ImagePrepSettings
    let codec: JPEGCodec

    public init(settings: ImagePrepSettings = ImagePrepSettings()) throws {
        self.settings = settings
        self.codec = try JPEGCodec()
    }

    public func prepare(_ input: [UInt8]) throws(ImagePrepError) -> PreparedImage {
        guard !input.isEmpty else { throw .empty }
        guard let format = ImageFormat.sniff(input) else { throw .notAnImage }
        switch format {
        case .jpeg: return try prepareJPEG(input)
        case .png: return try preparePNG(input)
        }
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
        // Decode at a reduced DCT scale: right at the target when one comes close, else
        // the smallest that still covers it.
        let scaled = JPEGCodec.decodeSize(width: header.width, height: header.height, maxLongEdge: settings.maxDimension)
        let target = min(settings.maxDimension, max(scaled.width, scaled.height))
        let decoded: (image: PixelImage, warning: String?)
        do {
            decoded = try codec.decodeForDisplay(input, header: header, width: scaled.width, height: scaled.height)
        } catch { throw .unreadable("\(error)") }
        var result = try encodeToFit(decoded.image, longEdge: target, orientation: orientation,
                                     original: (input.count, header.width, header.height))
        if let warning = decoded.warning { result.warnings.append(warning) }
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
                             original: (bytes: Int, width: Int, height: Int)) throws(ImagePrepError) -> PreparedImage {
        var edge = longEdge
        var encodes = 0
        for _ in 0..<8 {
            let ratio = Double(edge) / Double(max(source.width, source.height))
            let width = max(1, min(source.width, Int((Double(source.width) * ratio).rounded())))
            let height = max(1, min(source.height, Int((Double(source.height) * ratio).rounded())))
            let image = source.downscaled(toWidth: width, height: height).oriented(orientation)
            let search = try searchQuality(image)
            encodes += search.encodes
            if let best = search.best {
                let resized = image.width * image.height < original.width * original.height
                return PreparedImage(
                    data: best.data, format: .jpeg, action: resized ? .resized : .recompressed,
                    width: image.width, height: image.height, quality: best.quality,
                    originalBytes: original.bytes, originalWidth: original.width, originalHeight: original.height,
                    encodes: encodes, warnings: [])
            }
            // Bytes scale roughly with pixel count: shrink each side by √(limit / size), with a margin.
            let shrink = min(0.95, (Double(settings.maxBytes) / Double(search.floorSize)).squareRoot() * 0.97)
            let next = Int(Double(edge) * shrink)
            guard next >= 16, next < edge else { break }
            edge = next
        }
        throw .cannotFit(maxBytes: settings.maxBytes)
    }

    /// The highest quality in [floor, ceiling] whose encode fits, in few full
    /// encodes. A large image is first measured on a band sample (a quarter of
    /// its rows, whole MCU rows every 64 rows): the sample's encoded size times
    /// four predicts the full size within a few percent (about 2 % high on the
    /// test photos), at a quarter of the cost. The full encodes then start at
    /// the predicted quality (see `fullSearch`).
    private func searchQuality(_ image: PixelImage) throws(ImagePrepError) -> (best: (quality: Int, data: [UInt8])?, floorSize: Int, encodes: Int) {
        let limit = settings.maxBytes
        let floor = settings.qualityFloor, ceiling = settings.qualityCeiling
        var estimated: [Int: Double] = [:]
        var start = min(ceiling, max(floor, 75))
        if image.height >= 16 * 64 && image.width >= 256 {
            let sample = image.bandSample(band: 16, period: 64)
            let factor = Double(image.height) / Double(sample.height)
            let header = 620.0
            func estimate(_ quality: Int) throws(ImagePrepError) -> Double {
                if let known = estimated[quality] { return known }
                let size: Int
                do { size = try codec.encode(sample, quality: quality).count } catch { throw .unreadable("\(error)") }
                let value = header + (Double(size) - header) * factor
                estimated[quality] = value
                return value
            }
            let sampled = try searchQuality(limit: Double(limit) * 0.99, low: floor - 1, high: ceiling + 1, start: start,
                                            size: estimate)
            if let quality = sampled {
                start = quality
            } else {
                // Not even the floor fits, by the prediction: check it for real only if it is close.
                let floorEstimate = try estimate(floor)
                if floorEstimate > Double(limit) * 1.05 { return (nil, Int(floorEstimate), 0) }
                start = floor
            }
        }
        return try fullSearch(image, start: start, estimated: estimated)
    }

    /// Full encodes from `start`. With estimates from a sample, each full encode
    /// calibrates them (the ratio of the real size to the estimate at that
    /// quality), and the calibrated estimates guide the next try and rule out
    /// the next quality up when it clearly will not fit.
    private func fullSearch(_ image: PixelImage, start: Int, estimated: [Int: Double]) throws(ImagePrepError)
        -> (best: (quality: Int, data: [UInt8])?, floorSize: Int, encodes: Int) {
        let limit = settings.maxBytes
        var sizes: [Int: Int] = [:]
        var best: (quality: Int, data: [UInt8])? = nil
        var encodes = 0
        var calibration = 1.0
        try searchQuality(limit: Double(limit), low: settings.qualityFloor - 1, high: settings.qualityCeiling + 1,
                              start: start, size: { (quality: Int) throws(ImagePrepError) -> Double in
            let data: [UInt8]
            do { data = try codec.encode(image, quality: quality) } catch { throw .unreadable("\(error)") }
            encodes += 1
            sizes[quality] = data.count
            if let estimate = estimated[quality], estimate > 0 { calibration = Double(data.count) / estimate }
            if data.count <= limit, quality > (best?.quality ?? Int.min) { best = (quality, data) }
            return Double(data.count)
        }, skipAbove: { quality in
            // The next quality up, by the calibrated estimate, is clearly over the limit.
            guard let predicted = estimated[quality] else { return false }
            return predicted * calibration > Double(limit) * 1.01
        }, hints: {
            estimated.filter { sizes[$0.key] == nil }.map { ($0.key, Int($0.value * calibration)) }
        })
        let floorSize = sizes[settings.qualityFloor] ?? sizes.min { $0.key < $1.key }?.value ?? limit * 2
        return (best, floorSize, encodes)
    }

    /// The highest quality in (low, high) whose `size` is at most `limit`: the first
    /// try at `start`, the next predicted from the sizes seen and the `hints`
    /// (log-size is close to linear in quality), then bisection. `skipAbove(q)`
    /// may declare that q does not fit without measuring it.
    @discardableResult
    private func searchQuality(limit: Double, low: Int, high: Int, start: Int,
                               size: (Int) throws(ImagePrepError) -> Double,
                               skipAbove: (Int) -> Bool = { _ in false },
                               hints: () -> [(Int, Int)] = { [] }) throws(ImagePrepError) -> Int? {
        var low = low, high = high
        var samples: [(quality: Int, size: Int)] = []
        var quality = min(high - 1, max(low + 1, start))
        var tries = 0
        while low + 1 < high && tries < 8 {
            let measured = try size(quality)
            tries += 1
            samples.append((quality, Int(measured)))
            if measured <= limit { low = quality } else { high = quality }
            if low + 1 < high, low == quality, skipAbove(quality + 1) { high = quality + 1 }
            guard low + 1 < high else { break }
            let guides = hints().filter { hint in !samples.contains { $0.quality == hint.0 } }.map { (quality: $0.0, size: $0.1) }
            quality = predict(samples + guides, limit: Int(limit), low: low, high: high)
        }
        return low >= settings.qualityFloor ? low : nil
    }

    /// Next quality to try, strictly between `low` and `high`.
    private func predict(_ samples: [(quality: Int, size: Int)], limit: Int, low: Int, high: Int) -> Int {
        let target = log(Double(limit))
        var guess: Double
        let sorted = samples.sorted { $0.quality < $1.quality }
        if sorted.count >= 2 {
            // Secant through the two samples nearest the limit.
            let near = sorted.sorted { abs(log(Double($0.size)) - target) < abs(log(Double($1.size)) - target) }
            let (a, b) = (near[0], near[1])
            let slope = (log(Double(b.size)) - log(Double(a.size))) / Double(b.quality - a.quality)
            guess = slope > 0 ? Double(a.quality) + (target - log(Double(a.size))) / slope : Double(low + high) / 2
        } else {
            // One sample: JPEG size grows about 2.2 % per quality step around 60–92.
            let s = sorted[0]
            guess = Double(s.quality) + (target - log(Double(s.size))) / 0.022
        }
        if !guess.isFinite { guess = Double(low + high) / 2 }
        // A fitting guess one below a known failure is the answer; otherwise stay strictly inside.
        return min(high - 1, max(low + 1, Int(guess.rounded(.down))))
    }
}
