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

    /// Area-average downscale to exactly `newWidth` × `newHeight` (both no
    /// larger than the source). Each destination pixel is the mean of the
    /// source pixels it covers, weighted by coverage, which avoids the
    /// aliasing of nearest-neighbour sampling on photos. Separable: rows
    /// first, then columns, with flat weight tables.
    public func downscaled(toWidth newWidth: Int, height newHeight: Int) -> PixelImage {
        precondition(newWidth >= 1 && newHeight >= 1)
        if newWidth == width && newHeight == height { return self }
        precondition(newWidth <= width && newHeight <= height, "downscale only")
        let xs = Coverage(from: width, to: newWidth)
        let ys = Coverage(from: height, to: newHeight)
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
                                for k in 0..<c {
                                    var sum: Float = 0
                                    for j in 0..<count { sum += Float(first[j * c + k]) * w[j] }
                                    outRow[dx * c + k] = sum
                                }
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
                    for dy in 0..<newHeight {
                        for i in 0..<rowLength { acc[i] = 0 }
                        let first = ys.start[dy], count = ys.count[dy], w0 = ys.offset[dy]
                        for j in 0..<count {
                            let weight = ys.weights[w0 + j]
                            let row = src.baseAddress! + (first + j) * rowLength
                            let a = acc.baseAddress!
                            for i in 0..<rowLength { a[i] += row[i] * weight }
                        }
                        let out = dy * rowLength
                        for i in 0..<rowLength { dst[out + i] = UInt8(max(0, min(255, acc[i] + 0.5))) }
                    }
                }
            }
        }
        return PixelImage(width: newWidth, height: newHeight, channels: c, pixels: output)
    }
}

/// For each destination index: the first source index it covers, how many,
/// and their normalised weights (in one flat table).
private struct Coverage {
    var start: [Int] = []
    var count: [Int] = []
    var offset: [Int] = []
    var weights: [Float] = []

    init(from source: Int, to destination: Int) {
        let scale = Double(source) / Double(destination)
        for d in 0..<destination {
            let low = Double(d) * scale, high = low + scale
            let first = Int(low)
            start.append(first)
            offset.append(weights.count)
            var s = first
            while Double(s) < high && s < source {
                let overlap = min(high, Double(s + 1)) - max(low, Double(s))
                weights.append(Float(max(0, overlap) / scale))
                s += 1
            }
            count.append(s - first)
        }
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
