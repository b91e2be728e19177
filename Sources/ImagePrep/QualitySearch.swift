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
    func searchQuality(_ image: PixelImage, maxBytes: Int) throws(ImagePrepError) -> (best: Encoded?, floorSize: Int, encodes: Int, sampleEncodes: Int) {
        let limit = Double(maxBytes)
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
        // How steeply size falls with the quantiser: learnt on the first subsampling, a
        // good first guess for the next (the photo's detail is the same).
        var slope = Self.typicalSlope
        for chroma in modes {
            let quality = try searchQuality(limit: limit * 0.99, low: floor - 1, high: ceiling + 1, start: start, slope: slope,
                                            size: { (q: Int) throws(ImagePrepError) -> Double in try estimate(chroma, q) })
            if let learnt = Self.slope(of: estimates[chroma] ?? [:], near: limit) { slope = learnt }
            if let quality {
                fitting.append((chroma, quality))
                start = quality
            }
        }
        var chosen = modes[modes.count - 1]
        if fitting.isEmpty {
            // Not even the floor fits, by the prediction: check it for real only if it is close.
            let floorEstimate = try estimate(chosen, floor)
            if floorEstimate > limit * 1.05 { return (nil, Int(floorEstimate), 0, sampleEncodes.values.map(\.count).reduce(0, +)) }
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
        let full = try fullSearch(image, chroma: chosen, start: start, estimated: estimates[chosen] ?? [:], limit: maxBytes)
        return (full.best, full.floorSize, full.encodes, sampleEncodes.values.map(\.count).reduce(0, +))
    }

    /// Full encodes from `start`. With estimates from a sample, each full encode
    /// calibrates them (the ratio of the real size to the estimate at that
    /// quality), and the calibrated estimates guide the next try and rule out
    /// the next quality up when it clearly will not fit.
    private func fullSearch(_ image: PixelImage, chroma: Chroma, start: Int, estimated: [Int: Double], limit: Int) throws(ImagePrepError)
        -> (best: Encoded?, floorSize: Int, encodes: Int) {
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
            // The next quality up, by the calibrated estimate, is over the limit. Calibrated on a
            // full encode of the same photo the estimate is within about 0.3 % (15 photos: 308,473
            // predicted, 308,241 encoded): a try it predicts over the limit is an encode thrown away.
            guard let predicted = estimated[quality] else { return false }
            return predicted * calibration > Double(limit)
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
    private func searchQuality(limit: Double, low: Int, high: Int, start: Int, slope: Double = typicalSlope,
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
            quality = predict(samples + guides, limit: Int(limit), low: low, high: high, slope: slope)
        }
        return low >= settings.qualityFloor ? low : nil
    }

    /// Next quality to try, strictly between `low` and `high`: a secant in the
    /// plane of log size against log quantiser scale (`scaleCoordinate`), where
    /// JPEG sizes fall along nearly straight lines; with one sample, a line of
    /// the given `slope` through it.
    private func predict(_ samples: [(quality: Int, size: Int)], limit: Int, low: Int, high: Int, slope: Double) -> Int {
        let target = log(Double(limit))
        var guess: Double
        let points = samples.map { (x: Self.scaleCoordinate($0.quality), y: log(Double($0.size))) }
        if points.count >= 2 {
            // Through the two samples nearest the limit.
            let near = points.sorted { abs($0.y - target) < abs($1.y - target) }
            let (a, b) = (near[0], near[1])
            let secant = (b.y - a.y) / (b.x - a.x)
            guess = secant < 0 && secant.isFinite ? Self.quality(atScaleCoordinate: a.x + (target - a.y) / secant) : Double(low + high) / 2
        } else {
            let a = points[0]
            guess = Self.quality(atScaleCoordinate: a.x + (target - a.y) / slope)
        }
        if !guess.isFinite { guess = Double(low + high) / 2 }
        // A fitting guess one below a known failure is the answer; otherwise stay strictly inside.
        return min(high - 1, max(low + 1, Int(guess.rounded(.down))))
    }

    /// d log(size) / d `scaleCoordinate` of a typical photo (seen: −0.6 to −1.3).
    static let typicalSlope = -0.9

    /// libjpeg's quality in the coordinate where sizes are nearly linear: the log of
    /// its quantiser scale (5000/q below 50, 200 − 2q from 50; tables are the
    /// standard ones times scale/100, at least 1, hence the + 1).
    static func scaleCoordinate(_ quality: Int) -> Double {
        let q = Double(min(100, max(1, quality)))
        return log((q < 50 ? 5000 / q : 200 - 2 * q) + 1)
    }

    /// The inverse of `scaleCoordinate`, as a fractional quality.
    static func quality(atScaleCoordinate x: Double) -> Double {
        let scale = max(0, exp(x) - 1)
        return scale <= 100 ? (200 - scale) / 2 : 5000 / scale
    }

    /// The slope of a photo's sizes (quality → bytes) between the two samples
    /// nearest `limit`, in the `scaleCoordinate` plane; nil with fewer than two.
    static func slope(of sizes: [Int: Double], near limit: Double) -> Double? {
        let target = log(limit)
        let near = sizes.map { (x: scaleCoordinate($0.key), y: log($0.value)) }.sorted { abs($0.y - target) < abs($1.y - target) }
        guard near.count >= 2, near[0].x != near[1].x else { return nil }
        let slope = (near[1].y - near[0].y) / (near[1].x - near[0].x)
        return slope < 0 && slope.isFinite ? slope : nil
    }
}
