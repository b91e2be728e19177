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
    /// aliasing of nearest-neighbour sampling on photos.
    public func downscaled(toWidth newWidth: Int, height newHeight: Int) -> PixelImage {
        precondition(newWidth >= 1 && newHeight >= 1)
        if newWidth == width && newHeight == height { return self }
        precondition(newWidth <= width && newHeight <= height, "downscale only")
        let xWeights = Self.coverage(from: width, to: newWidth)
        let yWeights = Self.coverage(from: height, to: newHeight)
        let rowLength = width * channels
        var rowAccumulator = [Float](repeating: 0, count: newWidth * channels)
        var output = [UInt8](repeating: 0, count: newWidth * newHeight * channels)
        pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                for (dy, ySpans) in yWeights.enumerated() {
                    for i in rowAccumulator.indices { rowAccumulator[i] = 0 }
                    for (sy, wy) in ySpans {
                        let rowBase = sy * rowLength
                        for (dx, xSpans) in xWeights.enumerated() {
                            let outBase = dx * channels
                            for (sx, wx) in xSpans {
                                let w = wx * wy
                                let inBase = rowBase + sx * channels
                                for c in 0..<channels {
                                    rowAccumulator[outBase + c] += Float(src[inBase + c]) * w
                                }
                            }
                        }
                    }
                    let outRow = dy * newWidth * channels
                    for i in 0..<(newWidth * channels) {
                        dst[outRow + i] = UInt8(max(0, min(255, rowAccumulator[i].rounded())))
                    }
                }
            }
        }
        return PixelImage(width: newWidth, height: newHeight, channels: channels, pixels: output)
    }

    /// For each destination index, the source indices it covers and their
    /// normalised weights.
    private static func coverage(from source: Int, to destination: Int) -> [[(Int, Float)]] {
        let scale = Double(source) / Double(destination)
        return (0..<destination).map { d in
            let start = Double(d) * scale
            let end = start + scale
            var spans: [(Int, Float)] = []
            var s = Int(start)
            while Double(s) < end && s < source {
                let overlap = min(end, Double(s + 1)) - max(start, Double(s))
                if overlap > 0 { spans.append((s, Float(overlap / scale))) }
                s += 1
            }
            return spans
        }
    }
}
