extension PixelImage {
    /// How far `other` (the same size) looks from this image: a cheap stand-in
    /// for a perceptual metric, used to choose between encodes of one photo
    /// (the chroma subsampling). The mean squared error in YCbCr with the
    /// colour differences weighted by `chromaWeight`. With 1/4, its choice
    /// agreed with butteraugli's on 10 of 12 real photographs (the other two
    /// within 0.08 of the best), where equal weights agreed on 8 and pooling
    /// by 8×8 blocks did not help (Benchmarks/shrink.sh measures it).
    func distance(to other: PixelImage, chromaWeight: Double = 0.25) -> Double {
        precondition(width == other.width && height == other.height && channels == other.channels)
        var sum = 0.0
        pixels.withUnsafeBufferPointer { a in
            other.pixels.withUnsafeBufferPointer { b in
                if channels == 1 {
                    for i in 0..<a.count {
                        let d = Double(a[i]) - Double(b[i])
                        sum += d * d
                    }
                    return
                }
                var i = 0
                while i < a.count {
                    let dr = Double(a[i]) - Double(b[i])
                    let dg = Double(a[i + 1]) - Double(b[i + 1])
                    let db = Double(a[i + 2]) - Double(b[i + 2])
                    let dy = 0.299 * dr + 0.587 * dg + 0.114 * db
                    let dcb = -0.168736 * dr - 0.331264 * dg + 0.5 * db
                    let dcr = 0.5 * dr - 0.418688 * dg - 0.081312 * db
                    sum += dy * dy + chromaWeight * (dcb * dcb + dcr * dcr)
                    i += 3
                }
            }
        }
        return sum / Double(width * height)
    }
}
