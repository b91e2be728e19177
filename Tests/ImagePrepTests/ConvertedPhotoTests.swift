import CHeif
import Foundation
import ImagePrep
import Support
import Testing
import TestSupport

/// HEIC and WebP files made by real writers: ImageMagick (as a merchant's tools make
/// them), and libheif's own encoder where ImageMagick cannot say what a phone says
/// (rotation, a colour profile).
enum Converted {
    /// A scratch folder of its own.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("converted-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `image` as a file in `format` (heic, webp…) written by ImageMagick from a lossless PNG.
    static func byMagick(_ image: PixelImage, as format: String, quality: Int = 92, extra: [String] = []) throws -> [UInt8] {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("source.jpg")
        try Data(try Photos.jpeg(image, quality: 100)).write(to: source)
        let output = dir.appendingPathComponent("out.\(format)")
        try ImageMagick.convert([source.path, "-quality", String(quality)] + extra + [output.path])
        return Array(try Data(contentsOf: output))
    }

    /// `image` as HEIC by libheif's encoder (x265), stored so that a reader must apply
    /// EXIF-style `orientation` (irot/imir boxes), with `profile` as its ICC profile.
    static func heic(_ image: PixelImage, orientation: Int = 1, profile: [UInt8]? = nil, quality: Int = 90) throws -> [UInt8] {
        let context = heif_context_alloc()!
        defer { heif_context_free(context) }
        var encoder: OpaquePointer? = nil
        guard heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoder).code == heif_error_Ok,
              let encoder else { throw JPEGError("libheif has no HEVC encoder here") }
        defer { heif_encoder_release(encoder) }
        heif_encoder_set_lossy_quality(encoder, Int32(quality))
        var picture: OpaquePointer? = nil
        guard heif_image_create(Int32(image.width), Int32(image.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB,
                                &picture).code == heif_error_Ok, let picture else { throw JPEGError("heif_image_create") }
        defer { heif_image_release(picture) }
        heif_image_add_plane(picture, heif_channel_interleaved, Int32(image.width), Int32(image.height), 8)
        var stride: Int32 = 0
        let plane = heif_image_get_plane(picture, heif_channel_interleaved, &stride)!
        for y in 0..<image.height {
            for i in 0..<(image.width * 3) { plane[y * Int(stride) + i] = image.pixels[y * image.width * 3 + i] }
        }
        if let profile {
            _ = profile.withUnsafeBytes { heif_image_set_raw_color_profile(picture, "prof", $0.baseAddress, $0.count) }
        }
        let options = heif_encoding_options_alloc()!
        defer { heif_encoding_options_free(options) }
        options.pointee.image_orientation = heif_orientation(rawValue: UInt32(orientation))
        guard heif_context_encode_image(context, picture, encoder, options, nil).code == heif_error_Ok else {
            throw JPEGError("heif_context_encode_image")
        }
        let dir = try folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("photo.heic")
        guard heif_context_write_to_file(context, file.path).code == heif_error_Ok else { throw JPEGError("heif write") }
        return Array(try Data(contentsOf: file))
    }

    /// An extended WebP (VP8X) made around a simple lossy one: its VP8 bitstream, with an
    /// ICCP chunk and an EXIF chunk (orientation), laid out as the container spec says.
    static func webp(wrapping simple: [UInt8], width: Int, height: Int, profile: [UInt8]?, orientation: Int?) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        func le24(_ v: Int) -> [UInt8] { Array(le32(v).prefix(3)) }
        func chunk(_ fourCC: String, _ body: [UInt8]) -> [UInt8] {
            Array(fourCC.utf8) + le32(body.count) + body + (body.count % 2 == 1 ? [0] : [])
        }
        let bitstream = Array(simple[12...])  // the VP8 chunk of `RIFF····WEBP VP8 ···`
        var exif: [UInt8]? = nil
        if let orientation {
            var tiff: [UInt8] = [0x49, 0x49, 42, 0] + le32(8) + [1, 0]
            tiff += [0x12, 0x01, 3, 0] + le32(1) + [UInt8(orientation), 0, 0, 0] + le32(0)
            exif = tiff
        }
        let flags: UInt8 = (profile != nil ? 0x20 : 0) | (exif != nil ? 0x08 : 0)
        var body: [UInt8] = Array("WEBP".utf8)
        body += chunk("VP8X", [flags, 0, 0, 0] + le24(width - 1) + le24(height - 1))
        if let profile { body += chunk("ICCP", profile) }
        body += bitstream
        if let exif { body += chunk("EXIF", exif) }
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    /// An ICC profile header and a 'desc' tag naming `description`: enough for a reader
    /// to carry it (the test checks the bytes arrive, not colour maths).
    static func profile(_ description: String, size: Int = 600) -> [UInt8] {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.replaceSubrange(0..<4, with: be32(size))
        bytes.replaceSubrange(12..<16, with: Array("mntr".utf8))
        bytes.replaceSubrange(16..<20, with: Array("RGB ".utf8))
        bytes.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        bytes.replaceSubrange(36..<40, with: Array("acsp".utf8))
        bytes.replaceSubrange(128..<132, with: be32(1))
        let text: [UInt8] = Array("desc".utf8) + [0, 0, 0, 0] + be32(description.utf8.count + 1) + Array(description.utf8) + [0]
        bytes.replaceSubrange(132..<144, with: Array("desc".utf8) + be32(200) + be32(text.count))
        bytes.replaceSubrange(200..<(200 + text.count), with: text)
        for i in (200 + text.count)..<size { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
        return bytes
    }

    /// 64×40, a red square in the stored top-left corner on a blue-green ground.
    static func marked() -> PixelImage {
        var image = PixelImage(width: 64, height: 40, channels: 3,
                               pixels: (0..<(64 * 40)).flatMap { _ in [UInt8(20), 120, 200] })
        for y in 0..<16 { for x in 0..<16 { let i = (y * 64 + x) * 3; image.pixels[i] = 230; image.pixels[i + 1] = 20; image.pixels[i + 2] = 20 } }
        return image
    }

    /// Where the stored top-left corner appears once `orientation` is applied, in an image of w × h.
    static func corner(_ orientation: Int, _ w: Int, _ h: Int) -> (Int, Int) {
        switch orientation {
        case 1, 5: (4, 4)
        case 2, 6: (w - 5, 4)
        case 3, 7: (w - 5, h - 5)
        default: (4, h - 5)
        }
    }

    /// The mean absolute difference of two images' samples (0–255).
    static func meanDifference(_ a: PixelImage, _ b: PixelImage) -> Double {
        precondition(a.width == b.width && a.height == b.height && a.channels == b.channels)
        var sum = 0
        for i in a.pixels.indices { sum += abs(Int(a.pixels[i]) - Int(b.pixels[i])) }
        return Double(sum) / Double(a.pixels.count)
    }

    static func isRed(_ pixel: [Int]) -> Bool { pixel[0] > 170 && pixel[1] < 90 && pixel[2] < 90 }
}

@Suite("HEIC and WebP photos become JPEGs under the limit")
struct ConvertedPhotoTests {
    @Test("an HEIC written by ImageMagick: a JPEG at the photo's size, its colours kept")
    func heicByMagick() throws {
        let photo = Photos.photo(width: 900, height: 600, seed: 11)
        let heic = try Converted.byMagick(photo, as: "heic")
        #expect(PhotoFormat.sniff(heic) == .heif)
        let prepared = try ImagePreparer().prepare(heic)
        #expect(prepared.format == .jpeg && ImageFormat.sniff(prepared.data) == .jpeg)
        #expect(prepared.action == .recompressed, "sent as JPEG, never passed through")
        #expect(prepared.width == 900 && prepared.height == 600 && prepared.data.count <= 307_200)
        let decoded = try Photos.decode(prepared.data)
        // The red disc of the test photo is where it was, still red.
        #expect(Converted.isRed(Photos.pixel(decoded, 300, 300)), "\(Photos.pixel(decoded, 300, 300))")
        #expect(Converted.meanDifference(photo, decoded) < 6, "\(Converted.meanDifference(photo, decoded))")
    }

    @Test("a phone-sized HEIC over the limit is resized to 2048 px and fits")
    func bigHEIC() throws {
        let heic = try Converted.heic(Photos.photo(width: 3000, height: 2250, seed: 3), quality: 95)
        #expect(heic.count > 307_200)
        let prepared = try ImagePreparer().prepare(heic)
        #expect(prepared.action == .resized && prepared.width == 2048 && prepared.height == 1536)
        #expect(prepared.data.count <= 307_200 && prepared.originalWidth == 3000)
    }

    @Test("HEIC rotation and mirroring (irot/imir, as a phone writes them) are applied", arguments: 1...8)
    func heicOrientation(_ orientation: Int) throws {
        let heic = try Converted.heic(Converted.marked(), orientation: orientation)
        let upright = try Photos.decode(try ImagePreparer().prepare(heic).data)
        let swapped = orientation >= 5
        #expect(upright.width == (swapped ? 40 : 64) && upright.height == (swapped ? 64 : 40))
        let (x, y) = Converted.corner(orientation, upright.width, upright.height)
        #expect(Converted.isRed(Photos.pixel(upright, x, y)), "orientation \(orientation): \(Photos.pixel(upright, x, y)) at \(x),\(y)")
    }

    @Test("a WebP written by ImageMagick, lossy and lossless")
    func webpByMagick() throws {
        let photo = Photos.photo(width: 800, height: 500, seed: 4)
        for extra in [[], ["-define", "webp:lossless=true"]] {
            let webp = try Converted.byMagick(photo, as: "webp", extra: extra)
            #expect(PhotoFormat.sniff(webp) == .webp)
            let prepared = try ImagePreparer().prepare(webp)
            #expect(ImageFormat.sniff(prepared.data) == .jpeg && prepared.width == 800 && prepared.height == 500)
            let difference = Converted.meanDifference(photo, try Photos.decode(prepared.data))
            #expect(difference < 6, "\(extra): \(difference)")
        }
    }

    @Test("a transparent WebP is laid over white")
    func webpAlpha() throws {
        let dir = try Converted.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("a.webp")
        // Fully transparent but for an opaque red square in the middle.
        try ImageMagick.convert(["-size", "64x64", "xc:none", "-fill", "red", "-draw", "rectangle 24,24 39,39",
                              "-define", "webp:lossless=true", file.path])
        let prepared = try ImagePreparer().prepare(Array(try Data(contentsOf: file)))
        let decoded = try Photos.decode(prepared.data)
        #expect(Photos.pixel(decoded, 4, 4).allSatisfy { $0 > 245 }, "\(Photos.pixel(decoded, 4, 4))")
        #expect(Converted.isRed(Photos.pixel(decoded, 32, 32)))
    }

    @Test("a WebP's EXIF orientation, written by ImageMagick from a rotated JPEG, is applied")
    func webpOrientation() throws {
        let jpeg = Photos.withOrientation(try Photos.jpeg(Converted.marked(), quality: 98), 6)
        let dir = try Converted.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("r.jpg"), output = dir.appendingPathComponent("r.webp")
        try Data(jpeg).write(to: source)
        try ImageMagick.convert([source.path, "-quality", "95", output.path])
        let upright = try Photos.decode(try ImagePreparer().prepare(Array(try Data(contentsOf: output))).data)
        #expect(upright.width == 40 && upright.height == 64)
        let (x, y) = Converted.corner(6, 40, 64)
        #expect(Converted.isRed(Photos.pixel(upright, x, y)), "\(Photos.pixel(upright, x, y))")
    }

    @Test("a wide-gamut profile goes into the JPEG byte for byte (HEIC, WebP and JPEG); an sRGB one is left out")
    func colourProfiles() throws {
        let wide = Converted.profile("Display P3")
        let heic = try Converted.heic(Converted.marked(), profile: wide)
        #expect(ICCProfile.read(jpeg: try ImagePreparer().prepare(heic).data) == wide)

        let simple = try Converted.byMagick(Converted.marked(), as: "webp")
        let webp = Converted.webp(wrapping: simple, width: 64, height: 40, profile: wide, orientation: 8)
        let fromWebP = try ImagePreparer().prepare(webp)
        #expect(ICCProfile.read(jpeg: fromWebP.data) == wide)
        #expect(fromWebP.width == 40 && fromWebP.height == 64, "the EXIF chunk beside the profile is read too")

        // A JPEG over the limit with the profile: re-encoded, the profile kept, the whole under the limit.
        var settings = ImagePrepSettings()
        settings.maxBytes = 30_000
        let big = ICCProfile.embedding(wide, in: try Photos.jpeg(Photos.photo(width: 1200, height: 800, seed: 9), quality: 95))
        #expect(ICCProfile.read(jpeg: big) == wide)
        let shrunk = try ImagePreparer(settings: settings).prepare(big)
        #expect(shrunk.action != .kept && shrunk.data.count <= 30_000)
        #expect(ICCProfile.read(jpeg: shrunk.data) == wide)

        let srgb = try Converted.heic(Converted.marked(), profile: Converted.profile("sRGB IEC61966-2.1"))
        #expect(ICCProfile.read(jpeg: try ImagePreparer().prepare(srgb).data) == nil)
    }

    @Test("a profile larger than one APP2 segment is split and joined again")
    func longProfile() throws {
        let profile = Converted.profile("Wide", size: 150_000)
        let jpeg = try Photos.jpeg(Converted.marked())
        let embedded = ICCProfile.embedding(profile, in: jpeg)
        #expect(embedded.count == jpeg.count + ICCProfile.cost(profile))
        #expect(ICCProfile.read(jpeg: embedded) == profile)
        #expect(try Photos.decode(embedded).width == 64, "still a JPEG TurboJPEG reads")
    }

    @Test("broken, cut-off and animated files: a clear error, never a crash")
    func broken() throws {
        let heic = try Converted.heic(Photos.photo(width: 256, height: 192, seed: 2))
        let preparer = try ImagePreparer()
        for cut in [40, heic.count / 3, heic.count - 10] {
            #expect(throws: ImagePrepError.self) { try preparer.prepare(Array(heic.prefix(cut))) }
        }
        var garbage = Array(heic.prefix(32))
        garbage += [UInt8](repeating: 0xAB, count: 4096)
        do {
            _ = try preparer.prepare(garbage)
            Issue.record("garbage after an HEIC header decoded")
        } catch {
            #expect("\(error)".contains("HEIC"), "\(error)")
        }
        let webp = try Converted.byMagick(Photos.photo(width: 200, height: 100), as: "webp")
        #expect(throws: ImagePrepError.self) { try preparer.prepare(Array(webp.prefix(webp.count / 2))) }

        let dir = try Converted.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let animated = dir.appendingPathComponent("anim.webp")
        try ImageMagick.convert(["-delay", "10", "-size", "32x32", "xc:red", "xc:blue", animated.path])
        do {
            _ = try preparer.prepare(Array(try Data(contentsOf: animated)))
            Issue.record("an animated WebP was taken")
        } catch {
            #expect("\(error)".contains("animated WebP"), "\(error)")
        }
    }

    @Test("the pixel budget is checked before an HEIC or WebP is decoded")
    func pixelBudget() throws {
        var settings = ImagePrepSettings()
        settings.pixelBudget = 10_000
        let preparer = try ImagePreparer(settings: settings)
        let heic = try Converted.heic(Photos.photo(width: 200, height: 100))
        #expect(throws: ImagePrepError.tooManyPixels(width: 200, height: 100, budget: 10_000)) { try preparer.prepare(heic) }
        let webp = try Converted.byMagick(Photos.photo(width: 200, height: 100), as: "webp")
        #expect(throws: ImagePrepError.tooManyPixels(width: 200, height: 100, budget: 10_000)) { try preparer.prepare(webp) }
    }

    @Test("formats by content: HEIC and AVIF brands, WebP, and not a GIF or a text file")
    func sniffing() {
        func ftyp(_ brand: String) -> [UInt8] { [0, 0, 0, 24] + Array("ftyp".utf8) + Array(brand.utf8) + [0, 0, 0, 0] }
        #expect(PhotoFormat.sniff(ftyp("heic")) == .heif)
        #expect(PhotoFormat.sniff(ftyp("mif1")) == .heif)
        #expect(PhotoFormat.sniff(ftyp("avif")) == .heif)
        #expect(PhotoFormat.sniff(ftyp("isom")) == nil, "an MP4 video is not a photo")
        #expect(PhotoFormat.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8)) == .webp)
        #expect(PhotoFormat.sniff(Array("RIFF\u{0}\u{0}\u{0}\u{0}WAVEfmt ".utf8)) == nil)
        #expect(PhotoFormat.sniff(Array("GIF89a......".utf8)) == nil)
        #expect(PhotoFormat.sniff([0xFF, 0xD8, 0xFF]) == .jpeg)
        #expect(ImageFormat.sniff(ftyp("heic")) == nil, "the server's own formats stay JPEG and PNG")
    }
}
