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
    /// source). Separable, one output row at a time: the source rows it covers
    /// are weighed into one Float row (a loop the compiler vectorises), which is
    /// then weighed across, a pixel's three channels in one SIMD4. No buffer the
    /// size of the image besides the output.
    public func downscaled(toWidth newWidth: Int, height newHeight: Int, filter: Filter = .lanczos3) -> PixelImage {
        precondition(newWidth >= 1 && newHeight >= 1)
        if newWidth == width && newHeight == height { return self }
        precondition(newWidth <= width && newHeight <= height, "downscale only")
        let xs = FilterWeights(from: width, to: newWidth, filter: filter)
        let ys = FilterWeights(from: height, to: newHeight, filter: filter)
        let c = channels
        let rowLength = width * c, outRowLength = newWidth * c
        // One spare Float: a SIMD4 load of the last RGB pixel reads one past it.
        var column = [Float](repeating: 0, count: rowLength + 1)
        let output = [UInt8](unsafeUninitializedCapacity: outRowLength * newHeight) { out, initialized in
            pixels.withUnsafeBufferPointer { src in
            column.withUnsafeMutableBufferPointer { col in
            xs.start.withUnsafeBufferPointer { xStart in
            xs.count.withUnsafeBufferPointer { xCount in
            xs.offset.withUnsafeBufferPointer { xOffset in
            xs.weights.withUnsafeBufferPointer { xWeights in
                let a = col.baseAddress!
                let across = UnsafeMutablePointer<Float>.allocate(capacity: outRowLength + 1)
                defer { across.deallocate() }
                for dy in 0..<newHeight {
                    // Down: the covered source rows, weighed, into one row.
                    let first = ys.start[dy], count = ys.count[dy], w0 = ys.offset[dy]
                    do {
                        let weight = ys.weights[w0]
                        let row = src.baseAddress! + first * rowLength
                        for i in 0..<rowLength { a[i] = Float(row[i]) * weight }
                    }
                    for j in 1..<max(1, count) {
                        let weight = ys.weights[w0 + j]
                        let row = src.baseAddress! + (first + j) * rowLength
                        for i in 0..<rowLength { a[i] += Float(row[i]) * weight }
                    }
                    // Across: each output pixel from its covered columns.
                    let outRow = out.baseAddress! + dy * outRowLength
                    if c == 3 {
                        let raw = UnsafeRawPointer(a)
                        for dx in 0..<newWidth {
                            let taps = xCount[dx]
                            let w = xWeights.baseAddress! + xOffset[dx]
                            var pixel = raw + xStart[dx] &* 12
                            // Two sums, so that one addition need not wait for the other.
                            var even = SIMD4<Float>(), odd = SIMD4<Float>()
                            var j = 0
                            while j &+ 1 < taps {
                                even += pixel.loadUnaligned(as: SIMD4<Float>.self) * w[j]
                                odd += (pixel + 12).loadUnaligned(as: SIMD4<Float>.self) * w[j &+ 1]
                                pixel += 24
                                j &+= 2
                            }
                            if j < taps { even += pixel.loadUnaligned(as: SIMD4<Float>.self) * w[j] }
                            // Stored whole: the fourth lane is overwritten by the next pixel (or is the spare).
                            (UnsafeMutableRawPointer(across) + dx &* 12).storeBytes(of: even + odd, as: SIMD4<Float>.self)
                        }
                        // Clamped, then rounded to the nearest integer by adding 1.5 × 2²³: the
                        // float's low mantissa bits are then that integer.
                        for i in 0..<outRowLength {
                            let value = max(0, min(255, across[i])) + 12_582_912
                            outRow[i] = UInt8(truncatingIfNeeded: value.bitPattern)
                        }
                    } else {
                        for dx in 0..<newWidth {
                            let firstX = xStart[dx], taps = xCount[dx]
                            let w = xWeights.baseAddress! + xOffset[dx]
                            var sum: Float = 0
                            for j in 0..<taps { sum += a[firstX + j] * w[j] }
                            outRow[dx] = UInt8(max(0, min(255, sum + 0.5)))
                        }
                    }
                }
            }
            }
            }
            }
            }
            }
            initialized = outRowLength * newHeight
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
