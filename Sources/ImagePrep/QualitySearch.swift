import Foundation

/// One encode the search kept.
struct Encoded {
    var quality: Int
    var chroma: Chroma
    var data: [UInt8]
}

extension ImagePreparer {
    /// The best encode of `image` that fits, in few full encodes.
    ///
    /// A large image is first measured on a band sample (16-row bands, whole MCU
    /// rows, every 64 rows, or every 128 when three subsamplings are tried): the
    /// sample's encoded size times four (or eight) predicts the full size within
    /// a few percent.
    /// On the sample, each chroma subsampling gets the highest quality whose
    /// predicted size fits; the sample encodes at those qualities are decoded
    /// and the one closest to the sample (`PixelImage.distance`) decides the
    /// subsampling. The full encodes then start at the predicted quality (see
    /// `fullSearch`). A small image is its own sample.
    func searchQuality(_ image: PixelImage) throws(ImagePrepError) -> (best: Encoded?, floorSize: Int, encodes: Int) {
        let limit = Double(settings.maxBytes)
        let floor = settings.qualityFloor, ceiling = settings.qualityCeiling
        let modes: [Chroma] = image.channels == 1 ? [.s420] : settings.chroma.map { [$0] } ?? [.s444, .s422, .s420]
        // Three subsamplings to try: an eighth of the rows; one: a quarter.
        let period = modes.count > 1 ? 128 : 64
        let banded = image.height >= 8 * period && image.width >= 256
        let sample = banded ? image.bandSample(band: 16, period: period) : image
        let factor = Double(image.height) / Double(sample.height)
        // Headers and tables are not multiplied with the rows.
        let header = banded ? 620.0 : 0
        var estimates: [Chroma: [Int: Double]] = [:]
        var sampleEncodes: [Chroma: [Int: [UInt8]]] = [:]

        func estimate(_ chroma: Chroma, _ quality: Int) throws(ImagePrepError) -> Double {
            if let known = estimates[chroma]?[quality] { return known }
            let data: [UInt8]
            do {
                data = try codec.encode(sample, quality: quality, chroma: chroma, progressive: settings.progressive)
            } catch { throw .unreadable("\(error)") }
            let value = header + (Double(data.count) - header) * factor
            estimates[chroma, default: [:]][quality] = value
            sampleEncodes[chroma, default: [:]][quality] = data
            return value
        }

        var fitting: [(chroma: Chroma, quality: Int)] = []
        var start = min(ceiling, max(floor, 75))
        for chroma in modes {
            let quality = try searchQuality(limit: limit * 0.99, low: floor - 1, high: ceiling + 1, start: start,
                                            size: { (q: Int) throws(ImagePrepError) -> Double in try estimate(chroma, q) })
            if let quality {
                fitting.append((chroma, quality))
                start = quality
            }
        }
        var chosen = modes[modes.count - 1]
        if fitting.isEmpty {
            // Not even the floor fits, by the prediction: check it for real only if it is close.
            let floorEstimate = try estimate(chosen, floor)
            if floorEstimate > limit * 1.05 { return (nil, Int(floorEstimate), 0) }
            start = floor
        } else if fitting.count == 1 {
            (chosen, start) = fitting[0]
        } else {
            var closest = Double.infinity
            for candidate in fitting {
                guard let data = sampleEncodes[candidate.chroma]?[candidate.quality] else { continue }
                let decoded: PixelImage
                do { decoded = try codec.decode(data, header: try codec.header(of: data), width: sample.width, height: sample.height) }
                catch { throw .unreadable("\(error)") }
                let distance = sample.distance(to: decoded)
                if distance < closest { closest = distance; (chosen, start) = candidate }
            }
        }
        return try fullSearch(image, chroma: chosen, start: start, estimated: estimates[chosen] ?? [:])
    }

    /// Full encodes from `start`. With estimates from a sample, each full encode
    /// calibrates them (the ratio of the real size to the estimate at that
    /// quality), and the calibrated estimates guide the next try and rule out
    /// the next quality up when it clearly will not fit.
    private func fullSearch(_ image: PixelImage, chroma: Chroma, start: Int, estimated: [Int: Double]) throws(ImagePrepError)
        -> (best: Encoded?, floorSize: Int, encodes: Int) {
        let limit = settings.maxBytes
        var sizes: [Int: Int] = [:]
        var best: Encoded? = nil
        var encodes = 0
        var calibration = 1.0
        try searchQuality(limit: Double(limit), low: settings.qualityFloor - 1, high: settings.qualityCeiling + 1,
                          start: start, size: { (quality: Int) throws(ImagePrepError) -> Double in
            let data: [UInt8]
            do { data = try codec.encode(image, quality: quality, chroma: chroma, progressive: settings.progressive) }
            catch { throw .unreadable("\(error)") }
            encodes += 1
            sizes[quality] = data.count
            if let estimate = estimated[quality], estimate > 0 { calibration = Double(data.count) / estimate }
            if data.count <= limit, quality > (best?.quality ?? Int.min) { best = Encoded(quality: quality, chroma: chroma, data: data) }
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
