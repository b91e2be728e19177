import Foundation
import ImagePrep
import Testing

/// What the shrink chooses to spend the 300 KB on: resolution, chroma, format.
@Suite("Choosing the best picture under the limit")
struct QualityChoiceTests {
    /// An RGB picture whose pixel (x, y) is `colour(x, y, random)`, with a fresh
    /// pseudo-random number (from `seed`) for each pixel.
    static func picture(width: Int, height: Int, seed: UInt64, _ colour: (Int, Int, UInt64) -> (Int, Int, Int)) -> PixelImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        var state = seed
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let (red, green, blue) = colour(x, y, state)
                let i = (y * width + x) * 3
                pixels[i] = UInt8(clamping: red)
                pixels[i + 1] = UInt8(clamping: green)
                pixels[i + 2] = UInt8(clamping: blue)
            }
        }
        return PixelImage(width: width, height: height, channels: 3, pixels: pixels)
    }

    /// Fine stripes of two colours of about the same brightness (red and a green
    /// that matches its luma): all of the detail is in the colour, which 4:2:0 and
    /// 4:2:2 would smear.
    static func colourEdges(width: Int, height: Int) -> PixelImage {
        picture(width: width, height: height, seed: 11) { x, y, random in
            let noise = Int((random >> 60) & 7) - 4
            let red = ((x / 2) + (y / 24)) % 2 == 0
            return ((red ? 230 : 30) + noise, (red ? 40 : 130) + noise, (red ? 40 : 60) + noise)
        }
    }

    /// Strong grey grain over a smooth colour wash: all of the detail is in the
    /// brightness, so bytes spent on colour detail are wasted.
    static func lumaGrain(width: Int, height: Int) -> PixelImage {
        picture(width: width, height: height, seed: 5) { x, y, random in
            let grain = Int((random >> 58) & 63) - 32
            return (90 + x * 80 / width + grain, 120 + grain, 160 - y * 60 / height + grain)
        }
    }

    @Test("colour detail keeps 4:4:4; brightness grain spends no bytes on colour detail; both fit")
    func chromaChoice() throws {
        let codec = try JPEGCodec()
        let edges = try codec.encode(Self.colourEdges(width: 1600, height: 1200), quality: 95, chroma: .s444)
        let grain = try codec.encode(Self.lumaGrain(width: 1600, height: 1200), quality: 95, chroma: .s444)
        #expect(edges.count > 307_200 && grain.count > 307_200)
        let preparer = try ImagePreparer()
        let keptColour = try preparer.prepare(edges)
        let grainy = try preparer.prepare(grain)
        #expect(keptColour.chroma == .s444, "chose \(String(describing: keptColour.chroma)) q\(keptColour.quality ?? 0)")
        #expect(grainy.chroma == .s420 || grainy.chroma == .s422, "chose \(String(describing: grainy.chroma)) q\(grainy.quality ?? 0)")
        #expect(keptColour.data.count <= 307_200 && grainy.data.count <= 307_200)
        #expect(keptColour.width == 1600 && grainy.width == 1600)
    }

    @Test("the choice is real: each forced subsampling is further from the colour-edge photo than 4:4:4")
    func forcedChroma() throws {
        let source = Self.colourEdges(width: 1600, height: 1200)
        let jpeg = try JPEGCodec().encode(source, quality: 95, chroma: .s444)
        var distances: [Chroma: Double] = [:]
        for chroma in Chroma.allCases {
            var settings = ImagePrepSettings()
            settings.chroma = chroma
            let prepared = try ImagePreparer(settings: settings).prepare(jpeg)
            #expect(prepared.chroma == chroma && prepared.data.count <= 307_200)
            let codec = try JPEGCodec()
            let decoded = try codec.decode(prepared.data, header: codec.header(of: prepared.data), width: 1600, height: 1200)
            distances[chroma] = Self.meanSquaredError(source, decoded)
        }
        #expect(distances[.s444]! < distances[.s422]! && distances[.s444]! < distances[.s420]!, "\(distances)")
    }

    @Test("a 3840 px photo comes out at the 2048 px allowed, under the limit, with optimised Huffman tables; --progressive too")
    func fullResolution() throws {
        let jpeg = try Photos.jpeg(Photos.photo(width: 3840, height: 2400, seed: 9), quality: 95)
        let prepared = try ImagePreparer().prepare(jpeg)
        #expect(prepared.width == 2048 && prepared.height == 1280)
        #expect(prepared.data.count <= 307_200)
        // The search's cost: three subsamplings on the band sample, a few tries each, then few full encodes.
        #expect(prepared.sampleEncodes <= 10 && prepared.encodes <= 2, "sample encodes \(prepared.sampleEncodes), full \(prepared.encodes), q\(prepared.quality ?? 0)")
        // Baseline (SOF0), and the first Huffman table is not the standard luminance DC table.
        #expect(Self.markers(prepared.data).contains(0xC0))
        #expect(Self.firstHuffmanCounts(prepared.data) != [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0])
        var settings = ImagePrepSettings()
        settings.progressive = true
        let progressive = try ImagePreparer(settings: settings).prepare(jpeg)
        #expect(Self.markers(progressive.data).contains(0xC2) && !Self.markers(progressive.data).contains(0xC0))
        #expect(progressive.width == 2048 && progressive.data.count <= 307_200)
    }

    /// The 16 code-length counts of the first table in the first DHT segment.
    static func firstHuffmanCounts(_ jpeg: [UInt8]) -> [UInt8] {
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            if jpeg[offset + 1] == 0xC4 { return Array(jpeg[(offset + 5)..<(offset + 21)]) }
            offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
        }
        return []
    }

    @Test("Lanczos-3 keeps a flat image flat and a fine pattern's mean, with no ringing past the range")
    func lanczos() {
        let flat = PixelImage(width: 300, height: 200, channels: 3, pixels: [UInt8](repeating: 77, count: 300 * 200 * 3))
        #expect(flat.downscaled(toWidth: 128, height: 85).pixels.allSatisfy { $0 == 77 })
        var stripes = [UInt8](repeating: 0, count: 400 * 10)
        for y in 0..<10 { for x in 0..<400 where x % 2 == 0 { stripes[y * 400 + x] = 200 } }
        let small = PixelImage(width: 400, height: 10, channels: 1, pixels: stripes).downscaled(toWidth: 150, height: 10)
        // One-pixel stripes cannot be shown at 150 px: a filter without aliasing gives their mean.
        #expect(small.pixels[5 * 150 + 10 ..< 5 * 150 + 140].allSatisfy { abs(Int($0) - 100) <= 3 })
    }

    @Test("Lanczos-3 keeps each channel's gradient in place: red across, green down, blue flat, any width")
    func lanczosGradients() {
        // A symmetric filter whose weights sum to 1 reproduces a linear ramp exactly (away from the
        // edges, where the edge pixel repeats): a channel mixed up, a pixel off by one or an axis
        // swapped shows at once.
        for (width, height, newWidth, newHeight) in [(401, 303, 150, 97), (2880, 40, 2048, 29), (97, 61, 96, 60)] {
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 3
                    pixels[i] = UInt8(20 + x * 200 / (width - 1))
                    pixels[i + 1] = UInt8(30 + y * 190 / (height - 1))
                    pixels[i + 2] = 77
                }
            }
            let small = PixelImage(width: width, height: height, channels: 3, pixels: pixels)
                .downscaled(toWidth: newWidth, height: newHeight)
            let grey = PixelImage(width: width, height: height, channels: 1, pixels: stride(from: 0, to: pixels.count, by: 3).map { pixels[$0] })
                .downscaled(toWidth: newWidth, height: newHeight)
            let sx = Double(width) / Double(newWidth), sy = Double(height) / Double(newHeight)
            var worst = 0.0
            for dy in Int((3 * sy).rounded(.up))..<(newHeight - Int((3 * sy).rounded(.up))) {
                for dx in Int((3 * sx).rounded(.up))..<(newWidth - Int((3 * sx).rounded(.up))) {
                    let x = (Double(dx) + 0.5) * sx - 0.5, y = (Double(dy) + 0.5) * sy - 0.5
                    let i = (dy * newWidth + dx) * 3
                    // The source ramps are whole numbers (rounded down), so ±1 level is the margin.
                    worst = max(worst, abs(Double(small.pixels[i]) - (20 + x * 200 / Double(width - 1))))
                    worst = max(worst, abs(Double(small.pixels[i + 1]) - (30 + y * 190 / Double(height - 1))))
                    worst = max(worst, abs(Double(small.pixels[i + 2]) - 77))
                    worst = max(worst, abs(Double(grey.pixels[dy * newWidth + dx]) - Double(small.pixels[i])))
                }
            }
            #expect(worst <= 1.5, "\(width)×\(height) → \(newWidth)×\(newHeight): off by \(worst)")
        }
    }

    static func meanSquaredError(_ a: PixelImage, _ b: PixelImage) -> Double {
        var sum = 0.0
        for i in 0..<a.pixels.count { let d = Double(a.pixels[i]) - Double(b.pixels[i]); sum += d * d }
        return sum / Double(a.pixels.count)
    }

    /// The marker bytes of a JPEG's segments up to the first scan.
    static func markers(_ jpeg: [UInt8]) -> [UInt8] {
        var found: [UInt8] = []
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            found.append(marker)
            if marker == 0xDA { break }
            offset += 2 + (Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3]))
        }
        return found
    }
}
