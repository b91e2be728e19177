import ImagePrep
import Support
import Testing

@Suite("Image formats, JPEG coding, thumbnails")
struct ImageBasicsTests {
    func gradient(width: Int, height: Int, channels: Int = 3) -> PixelImage {
        var pixels = [UInt8](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels { pixels[(y * width + x) * channels + c] = UInt8((x + y * 2 + c * 40) % 256) }
            }
        }
        return PixelImage(width: width, height: height, channels: channels, pixels: pixels)
    }

    @Test("formats are judged by content")
    func sniff() throws {
        let jpeg = try JPEGCodec().encode(gradient(width: 8, height: 8), quality: 80)
        #expect(ImageFormat.sniff(jpeg) == .jpeg)
        #expect(ImageFormat.sniff([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0]) == .png)
        #expect(ImageFormat.sniff(Array("GIF89a....".utf8)) == nil)
        #expect(ImageFormat.sniff([0xFF, 0xD8]) == nil)
        #expect(ImageFormat.sniff([UInt8]()) == nil)
    }

    @Test("encode then decode keeps size, channels and roughly the pixels")
    func roundTrip() throws {
        let codec = try JPEGCodec()
        for channels in [1, 3] {
            let image = gradient(width: 64, height: 48, channels: channels)
            let jpeg = try codec.encode(image, quality: 95)
            let header = try codec.header(of: jpeg)
            #expect(header.width == 64 && header.height == 48 && header.isGrayscale == (channels == 1))
            let decoded = try codec.decode(jpeg, header: header, width: 64, height: 48)
            #expect(decoded.channels == channels)
            let error = zip(decoded.pixels, image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(error < 24, "max error \(error)")
        }
    }

    @Test("JPEGs are written with optimised Huffman tables, set before main (no setenv while threads run)")
    func optimisedHuffmanTables() throws {
        #expect(JPEGCodec.optimisesHuffmanTables)
        let jpeg = try JPEGCodec().encode(gradient(width: 64, height: 48), quality: 85)
        // The standard luminance DC table (JPEG Annex K.3) has these code counts for lengths
        // 1…16; a table built for this image's statistics does not.
        let standardDC: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        var tables: [[UInt8]] = []
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            if jpeg[i + 1] == 0xC4 {
                var t = i + 4
                while t < i + 2 + length {
                    let counts = Array(jpeg[(t + 1)..<(t + 17)])
                    tables.append([jpeg[t]] + counts)
                    t += 17 + counts.reduce(0) { $0 + Int($1) }
                }
            }
            i += 2 + length
        }
        let dcLuminance = try #require(tables.first { $0[0] == 0x00 })
        #expect(Array(dcLuminance.dropFirst()) != standardDC)
    }

    @Test("garbage is refused with TurboJPEG's message, not a crash")
    func garbage() throws {
        let codec = try JPEGCodec()
        #expect(throws: JPEGError.self) { try codec.header(of: [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3]) }
        #expect(throws: JPEGError.self) { try codec.header(of: []) }
    }

    @Test("DCT scaling picks the smallest size still at least the wanted edge")
    func scaling() {
        #expect(JPEGCodec.scaledSize(width: 4000, height: 3000, minimumLongEdge: 360) == (500, 375))
        // 1/2 would give 2000 < 2048: 5/8 is the smallest that covers it.
        #expect(JPEGCodec.scaledSize(width: 4000, height: 3000, minimumLongEdge: 2048) == (2500, 1875))
        // Decoding for a 2048 maximum: the smallest scale at least 2560 px (a quarter of room
        // for Lanczos-3), never one right at or below the target.
        #expect(JPEGCodec.decodeSize(width: 4000, height: 3000, maxLongEdge: 2048) == (3000, 2250))
        #expect(JPEGCodec.decodeSize(width: 3840, height: 2400, maxLongEdge: 2048) == (2880, 1800))
        #expect(JPEGCodec.decodeSize(width: 5640, height: 3172, maxLongEdge: 2048) == (2820, 1586))
        #expect(JPEGCodec.decodeSize(width: 2560, height: 1600, maxLongEdge: 2048) == (2560, 1600))
        #expect(JPEGCodec.decodeSize(width: 12000, height: 8000, maxLongEdge: 2048) == (3000, 2000))
        #expect(JPEGCodec.decodeSize(width: 1600, height: 1200, maxLongEdge: 2048) == (1600, 1200))
        #expect(JPEGCodec.scaledSize(width: 300, height: 200, minimumLongEdge: 360) == (300, 200))
    }

    @Test("area downscale averages blocks exactly")
    func downscale() {
        let image = PixelImage(width: 4, height: 2, channels: 1, pixels: [0, 100, 200, 50, 100, 200, 0, 150])
        let half = image.downscaled(toWidth: 2, height: 1, filter: .area)
        #expect(half.pixels == [100, 100])
    }

    @Test("thumbnails keep the aspect ratio with the long edge at the limit; small images need none")
    func thumbnails() throws {
        let codec = try JPEGCodec()
        let big = try codec.encode(gradient(width: 1600, height: 1200), quality: 85)
        let thumbnail = try #require(try Thumbnailer.thumbnail(ofJPEG: big, maxEdge: 360, codec: codec))
        let header = try codec.header(of: thumbnail)
        #expect(header.width == 360 && header.height == 270)
        let small = try codec.encode(gradient(width: 200, height: 100), quality: 85)
        #expect(try Thumbnailer.thumbnail(ofJPEG: small, maxEdge: 360, codec: codec) == nil)
    }
}
