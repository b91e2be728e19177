import Foundation

/// Decoded pixels, tightly packed, one or three channels (grey or RGB).
public struct PixelImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// 1 (grey) or 3 (RGB).
    public var channels: Int
    public var pixels: [UInt8]

    public init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(channels == 1 || channels == 3, "grey or RGB only")
        precondition(pixels.count == width * height * channels, "pixel buffer size mismatch")
        self.width = width
        self.height = height
        self.channels = channels
        self.pixels = pixels
    }

    /// How a downscale weighs the source pixels.
    public enum Filter: Sendable {
        /// Lanczos-3: sharp and free of aliasing; what photos get.
        case lanczos3
        /// The mean of the covered pixels, weighted by coverage: cheap and soft
        /// (thumbnails).
        case area
    }

    /// Downscale to exactly `newWidth` × `newHeight` (both no larger than the
    /// source). Separable: rows first into Float, then columns, each from a
    /// flat table of weights per destination pixel.
    public func downscaled(toWidth newWidth: Int, height newHeight: Int, filter: Filter = .lanczos3) -> PixelImage {
        precondition(newWidth >= 1 && newHeight >= 1)
        if newWidth == width && newHeight == height { return self }
        precondition(newWidth <= width && newHeight <= height, "downscale only")
        let xs = FilterWeights(from: width, to: newWidth, filter: filter)
        let ys = FilterWeights(from: height, to: newHeight, filter: filter)
        let c = channels
        // Horizontal pass: every source row to newWidth columns, in Float.
        var rows = [Float](repeating: 0, count: height * newWidth * c)
        pixels.withUnsafeBufferPointer { src in
            rows.withUnsafeMutableBufferPointer { dst in
                xs.start.withUnsafeBufferPointer { starts in
                xs.count.withUnsafeBufferPointer { counts in
                xs.offset.withUnsafeBufferPointer { offsets in
                xs.weights.withUnsafeBufferPointer { weights in
                    for y in 0..<height {
                        let inRow = src.baseAddress! + y * width * c
                        let outRow = dst.baseAddress! + y * newWidth * c
                        for dx in 0..<newWidth {
                            let first = inRow + starts[dx] * c, count = counts[dx]
                            let w = weights.baseAddress! + offsets[dx]
                            if c == 3 {
                                var r: Float = 0, g: Float = 0, b: Float = 0
                                for j in 0..<count {
                                    let p = first + j * 3, wj = w[j]
                                    r += Float(p[0]) * wj
                                    g += Float(p[1]) * wj
                                    b += Float(p[2]) * wj
                                }
                                outRow[dx * 3] = r
                                outRow[dx * 3 + 1] = g
                                outRow[dx * 3 + 2] = b
                            } else {
                                var sum: Float = 0
                                for j in 0..<count { sum += Float(first[j]) * w[j] }
                                outRow[dx] = sum
                            }
                        }
                    }
                }
                }
                }
                }
            }
        }
        // Vertical pass: newHeight rows from the weighted source rows.
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * c)
        let rowLength = newWidth * c
        rows.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                var accumulator = [Float](repeating: 0, count: rowLength)
                accumulator.withUnsafeMutableBufferPointer { acc in
                    let a = acc.baseAddress!
                    for dy in 0..<newHeight {
                        for i in 0..<rowLength { a[i] = 0 }
                        let first = ys.start[dy], count = ys.count[dy], w0 = ys.offset[dy]
                        for j in 0..<count {
                            let weight = ys.weights[w0 + j]
                            let row = src.baseAddress! + (first + j) * rowLength
                            for i in 0..<rowLength { a[i] += row[i] * weight }
                        }
                        let out = dst.baseAddress! + dy * rowLength
                        for i in 0..<rowLength { out[i] = UInt8(max(0, min(255, a[i] + 0.5))) }
                    }
                }
            }
        }
        return PixelImage(width: newWidth, height: newHeight, channels: c, pixels: output)
    }
}

/// For each destination index: the first source index it reads, how many,
/// and their weights (summing to 1, in one flat table).
private struct FilterWeights {
    var start: [Int] = []
    var count: [Int] = []
    var offset: [Int] = []
    var weights: [Float] = []

    init(from source: Int, to destination: Int, filter: PixelImage.Filter) {
        let scale = Double(source) / Double(destination)
        start.reserveCapacity(destination)
        count.reserveCapacity(destination)
        offset.reserveCapacity(destination)
        switch filter {
        case .area:
            for d in 0..<destination {
                let low = Double(d) * scale, high = low + scale
                let first = Int(low)
                var taps: [Double] = []
                var s = first
                while Double(s) < high && s < source {
                    taps.append(max(0, min(high, Double(s + 1)) - max(low, Double(s))))
                    s += 1
                }
                append(first: first, taps)
            }
        case .lanczos3:
            // The kernel is stretched by the scale, so every source pixel counts (no aliasing).
            let support = 3 * max(1, scale)
            for d in 0..<destination {
                let center = (Double(d) + 0.5) * scale - 0.5
                let low = Int((center - support).rounded(.up)), high = Int((center + support).rounded(.down))
                let first = max(0, low), last = min(source - 1, high)
                var taps = [Double](repeating: 0, count: last - first + 1)
                for s in low...high {
                    // Beyond the edges, the edge pixel repeats.
                    taps[min(last, max(first, s)) - first] += Self.lanczos3((Double(s) - center) / max(1, scale))
                }
                append(first: first, taps)
            }
        }
    }

    private mutating func append(first: Int, _ taps: [Double]) {
        let total = taps.reduce(0, +)
        start.append(first)
        offset.append(weights.count)
        count.append(taps.count)
        for tap in taps { weights.append(Float(total != 0 ? tap / total : 1 / Double(taps.count))) }
    }

    static func lanczos3(_ x: Double) -> Double {
        if x == 0 { return 1 }
        guard abs(x) < 3 else { return 0 }
        let px = Double.pi * x
        return 3 * sin(px) * sin(px / 3) / (px * px)
    }
}

extension PixelImage {
    /// Bands of `band` rows taken every `period` rows (rows k·period ..< k·period + band),
    /// stacked: a smaller image with the photo's own detail at full resolution, whose
    /// encoded size predicts the whole image's (see `ImagePreparer`).
    func bandSample(band: Int, period: Int) -> PixelImage {
        let rowBytes = width * channels
        var rows = 0
        var out: [UInt8] = []
        out.reserveCapacity((height / period + 1) * band * rowBytes)
        var start = 0
        while start < height {
            let end = min(height, start + band)
            out.append(contentsOf: pixels[(start * rowBytes)..<(end * rowBytes)])
            rows += end - start
            start += period
        }
        return PixelImage(width: width, height: rows, channels: channels, pixels: out)
    }
}
