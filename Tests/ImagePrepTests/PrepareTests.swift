import CTurboJPEG
import Foundation
import Words
import ImagePrep
import Support
import Testing

/// Test images, made here with TurboJPEG.
enum Photos {
    /// A photo-like picture: smooth gradients, a few shapes, and sensor-like noise.
    static func photo(width: Int, height: Int, seed: UInt64 = 7) -> PixelImage {
        var state = seed
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { p in
            for y in 0..<height {
                for x in 0..<width {
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    let noise = Int((state >> 59) & 15) - 8
                    let i = (y * width + x) * 3
                    let fx = x * 255 / width, fy = y * 255 / height
                    let inCircle = ((x - width / 3) * (x - width / 3) + (y - height / 2) * (y - height / 2)) < (height / 4) * (height / 4)
                    let stripe = (x / max(1, width / 40)) % 2 == 0 && y > height * 3 / 4
                    let r = inCircle ? 220 : (stripe ? 40 : fx)
                    let g = inCircle ? 60 : (stripe ? 40 : (fx + fy) / 2)
                    let b = inCircle ? 50 : (stripe ? 200 : 255 - fy)
                    p[i] = UInt8(clamping: r + noise)
                    p[i + 1] = UInt8(clamping: g + noise)
                    p[i + 2] = UInt8(clamping: b + noise)
                }
            }
        }
        return PixelImage(width: width, height: height, channels: 3, pixels: pixels)
    }

    static func jpeg(_ image: PixelImage, quality: Int = 92) throws -> [UInt8] {
        try JPEGCodec().encode(image, quality: quality)
    }

    /// Inserts an EXIF APP1 segment with `orientation` right after SOI.
    static func withOrientation(_ jpeg: [UInt8], _ orientation: Int, bigEndian: Bool = false) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        var tiff: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        tiff += u16(42) + u32(8) + u16(1)
        tiff += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        tiff += u32(0)
        let payload: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + Array(jpeg.dropFirst(2))
    }

    /// A CMYK JPEG (YCCK, Adobe marker, inverted values as Photoshop writes them).
    static func cmykRed(width: Int = 64, height: Int = 64) throws -> [UInt8] {
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        // Red ink: no cyan, full magenta and yellow, no black; stored inverted (255 = no ink).
        let pixel: [UInt8] = [255, 0, 0, 255]
        let pixels = (0..<(width * height)).flatMap { _ in pixel }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_CMYK.rawValue),
                        &output, &size, Int32(TJSAMP_444.rawValue), 95, 0)
        }
        defer { tjFree(output) }
        guard status == 0, let output else { throw JPEGError("cannot make a CMYK JPEG") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    static func progressive(_ image: PixelImage) throws -> [UInt8] {
        let handle = tjInitCompress()!
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let status = image.pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(image.width), 0, Int32(image.height), Int32(TJPF_RGB.rawValue),
                        &output, &size, Int32(TJSAMP_420.rawValue), 90, Int32(TJFLAG_PROGRESSIVE))
        }
        defer { tjFree(output) }
        guard status == 0, let output else { throw JPEGError("cannot make a progressive JPEG") }
        return Array(UnsafeBufferPointer(start: output, count: Int(size)))
    }

    static func pixel(_ image: PixelImage, _ x: Int, _ y: Int) -> [Int] {
        let i = (y * image.width + x) * image.channels
        return (0..<image.channels).map { Int(image.pixels[i + $0]) }
    }

    static func decode(_ jpeg: [UInt8]) throws -> PixelImage {
        let codec = try JPEGCodec()
        let header = try codec.header(of: jpeg)
        return try codec.decodeForDisplay(jpeg, header: header, width: header.width, height: header.height).image
    }
}

@Suite("Preparing photos for the server")
struct PrepareTests {
    @Test("an image already under the limit and upright is passed through byte for byte")
    func passThrough() throws {
        let jpeg = try Photos.jpeg(Photos.photo(width: 400, height: 300), quality: 80)
        let prepared = try ImagePreparer().prepare(jpeg)
        #expect(prepared.action == .kept)
        #expect(prepared.data == jpeg)
        #expect(prepared.width == 400 && prepared.height == 300 && prepared.encodes == 0)
    }

    @Test("a 6000×4000 noisy photo ends under 307,200 bytes, long edge 2048, quality at or above the floor")
    func bigPhoto() throws {
        let jpeg = try Photos.jpeg(Photos.photo(width: 6000, height: 4000), quality: 95)
        #expect(jpeg.count > 1_000_000)
        let prepared = try ImagePreparer().prepare(jpeg)
        #expect(prepared.data.count <= 307_200)
        #expect(prepared.action == .resized)
        #expect(prepared.width == 2048 && prepared.height == 1365)
        #expect((prepared.quality ?? 0) >= ImagePrepSettings().qualityFloor)
        #expect(prepared.encodes <= 5, "\(prepared.encodes) encodes")
        #expect(ImageFormat.sniff(prepared.data) == .jpeg)
        let header = try JPEGCodec().header(of: prepared.data)
        #expect(header.width == 2048 && header.height == 1365)
    }

    @Test("the limit is honoured at 50 KB, 300 KB and 1 MB, with the highest quality that fits", arguments: [51_200, 307_200, 1_048_576])
    func limits(_ limit: Int) throws {
        let jpeg = try Photos.jpeg(Photos.photo(width: 2400, height: 1600, seed: 3), quality: 97)
        var settings = ImagePrepSettings()
        settings.maxBytes = limit
        let preparer = try ImagePreparer(settings: settings)
        let prepared = try preparer.prepare(jpeg)
        #expect(prepared.data.count <= limit)
        #expect(prepared.encodes <= (limit > 51_200 ? 3 : 5), "\(prepared.encodes) full encodes")
        let quality = try #require(prepared.quality)
        let chroma = try #require(prepared.chroma)
        // At 300 KB and 1 MB the photo is resampled to the 2048 px allowed (decoded at full size,
        // as 7/8 would leave no room above 2048); at 50 KB even the floor quality does not fit
        // that, and it gets smaller.
        #expect((prepared.width == 2048 && prepared.height == 1365) == (limit > 51_200))
        if quality < settings.qualityCeiling, prepared.width == 2048 {
            // One step up would not have fitted: the search found the highest quality.
            let codec = try JPEGCodec()
            let scaled = try codec.decode(jpeg, header: codec.header(of: jpeg), width: 2400, height: 1600)
                .downscaled(toWidth: 2048, height: 1365)
            let higher = try codec.encode(scaled, quality: quality + 1, chroma: chroma)
            #expect(higher.count > limit, "quality \(quality + 1) also fits (\(higher.count) bytes)")
            #expect(try codec.encode(scaled, quality: quality, chroma: chroma) == prepared.data)
        }
    }

    @Test("when even the floor quality does not fit, the dimensions shrink")
    func shrinksDimensions() throws {
        var settings = ImagePrepSettings()
        settings.maxBytes = 40_000
        let jpeg = try Photos.jpeg(Photos.photo(width: 2000, height: 1500, seed: 5), quality: 95)
        let prepared = try ImagePreparer(settings: settings).prepare(jpeg)
        #expect(prepared.data.count <= 40_000)
        #expect(prepared.width < 2000 && prepared.action == .resized)
        #expect((prepared.quality ?? 0) >= settings.qualityFloor)
    }

    @Test("EXIF orientation 1–8 turns the picture upright", arguments: 1...8)
    func orientation(_ orientation: Int) throws {
        // Stored 60×40 with a red block in the stored top-left corner.
        var image = Photos.photo(width: 60, height: 40)
        for y in 0..<10 { for x in 0..<10 { let i = (y * 60 + x) * 3; image.pixels[i] = 255; image.pixels[i + 1] = 0; image.pixels[i + 2] = 0 } }
        let jpeg = Photos.withOrientation(try Photos.jpeg(image, quality: 95), orientation, bigEndian: orientation % 2 == 0)
        #expect(EXIFOrientation.read(jpeg) == orientation)
        let prepared = try ImagePreparer().prepare(jpeg)
        let upright = try Photos.decode(prepared.data)
        let swapped = orientation >= 5
        #expect(upright.width == (swapped ? 40 : 60) && upright.height == (swapped ? 60 : 40))
        // Where the stored top-left corner must appear once upright.
        let (w, h) = (upright.width, upright.height)
        let corner: (Int, Int) = switch orientation {
        case 1, 5: (2, 2)
        case 2, 6: (w - 3, 2)
        case 3, 7: (w - 3, h - 3)
        default: (2, h - 3)  // 4, 8
        }
        let red = Photos.pixel(upright, corner.0, corner.1)
        #expect(red[0] > 200 && red[1] < 60 && red[2] < 60, "orientation \(orientation): \(red) at \(corner)")
        if orientation == 1 { #expect(prepared.action == .kept) } else {
            // 60×40 is no whole number of blocks: turned losslessly where JPEG allows (a transpose
            // always does), else re-encoded within the bytes it came with.
            #expect(prepared.action == .turned || prepared.action == .recompressed)
            #expect(prepared.data.count <= jpeg.count + jpeg.count / 100, "\(prepared.data.count) > \(jpeg.count)")
        }
    }

    @Test("a photo under the limit that only needs turning is turned losslessly, never made bigger", arguments: [3, 6, 8])
    func losslessTurn(_ orientation: Int) throws {
        let image = Photos.photo(width: 320, height: 240)
        let stored = try Photos.jpeg(image, quality: 80)
        let jpeg = Photos.withOrientation(stored, orientation)
        let prepared = try ImagePreparer().prepare(jpeg)
        #expect(prepared.action == .turned && prepared.quality == nil)
        // The coefficients coded again: a few bytes either way, never more than 1 %.
        #expect(prepared.data.count <= jpeg.count + jpeg.count / 100, "\(prepared.data.count) > \(jpeg.count)")
        #expect(EXIFOrientation.read(prepared.data) == 1, "no orientation left to turn it again")
        // The same pixels as the stored photo's, moved: nothing re-encoded.
        let before = try Photos.decode(stored)
        let after = try Photos.decode(prepared.data)
        let swapped = orientation != 3
        #expect(after.width == (swapped ? 240 : 320) && after.height == (swapped ? 320 : 240))
        var differing = 0
        for y in 0..<before.height {
            for x in 0..<before.width {
                let (u, v): (Int, Int) = switch orientation {
                case 3: (before.width - 1 - x, before.height - 1 - y)
                case 6: (before.height - 1 - y, x)
                default: (y, before.width - 1 - x)  // 8
                }
                // Chroma upsampling rounds by position: ±2 is the same pixel.
                if zip(Photos.pixel(before, x, y), Photos.pixel(after, u, v)).contains(where: { abs($0 - $1) > 2 }) { differing += 1 }
            }
        }
        #expect(differing * 100 < before.width * before.height, "\(differing) pixels differ")
    }

    @Test("a photo too small to look sharp is sent with a warning")
    func smallPhoto() throws {
        let prepared = try ImagePreparer().prepare(try Photos.jpeg(Photos.photo(width: 40, height: 40)))
        #expect(prepared.action == .kept && prepared.warnings.contains { $0.text(.en).contains("only 40×40 pixels") })
        let large = try ImagePreparer().prepare(try Photos.jpeg(Photos.photo(width: 400, height: 300)))
        #expect(large.warnings.isEmpty)
    }

    @Test("a CMYK JPEG whose red stays red")
    func cmyk() throws {
        let jpeg = try Photos.cmykRed()
        let header = try JPEGCodec().header(of: jpeg)
        #expect(header.colorspace == Int32(TJCS_YCCK.rawValue) || header.colorspace == Int32(TJCS_CMYK.rawValue))
        let prepared = try ImagePreparer().prepare(jpeg)
        let pixels = try Photos.decode(prepared.data)
        #expect(pixels.channels == 3)
        let center = Photos.pixel(pixels, 32, 32)
        #expect(center[0] > 220 && center[1] < 40 && center[2] < 40, "\(center)")
    }

    @Test("grayscale stays grayscale; progressive JPEGs are read")
    func grayAndProgressive() throws {
        var settings = ImagePrepSettings()
        settings.maxBytes = 20_000
        let photo = Photos.photo(width: 800, height: 600)
        let gray = PixelImage(width: 800, height: 600, channels: 1,
                              pixels: stride(from: 0, to: photo.pixels.count, by: 3).map { photo.pixels[$0] })
        let grayPrepared = try ImagePreparer(settings: settings).prepare(try Photos.jpeg(gray, quality: 98))
        #expect(try JPEGCodec().header(of: grayPrepared.data).isGrayscale)
        #expect(grayPrepared.data.count <= 20_000)

        let progressive = try Photos.progressive(photo)
        let prepared = try ImagePreparer(settings: settings).prepare(progressive)
        #expect(prepared.data.count <= 20_000 && prepared.width > 0)
    }

    @Test("PNG: small ones pass through, alpha is composited on white, large ones become JPEG")
    func png() throws {
        let small = PNGFixtures.rgba(width: 8, height: 8, alpha: 255)
        #expect(try ImagePreparer().prepare(small).action == .kept)

        var settings = ImagePrepSettings()
        settings.maxBytes = 2_000
        // Fully transparent red: on white it is white.
        let transparent = PNGFixtures.rgba(width: 64, height: 64, alpha: 0)
        try #require(transparent.count > 2_000)
        let prepared = try ImagePreparer(settings: settings).prepare(transparent)
        #expect(prepared.format == .jpeg && prepared.data.count <= 2_000)
        let pixel = Photos.pixel(try Photos.decode(prepared.data), 32, 32)
        #expect(pixel.allSatisfy { $0 > 240 }, "\(pixel)")

        let palette = PNGFixtures.palette(width: 64, height: 64)
        try #require(palette.count > 2_000)
        let fromPalette = try ImagePreparer(settings: settings).prepare(palette)
        #expect(fromPalette.format == .jpeg)
        let blue = Photos.pixel(try Photos.decode(fromPalette.data), 10, 10)
        #expect(blue[2] > 200 && blue[0] < 60, "\(blue)")

        let interlaced = PNGFixtures.interlaced(width: 120, height: 80)
        #expect(interlaced[28] == 1, "the IHDR says Adam7")
        try #require(interlaced.count > 5_000, "\(interlaced.count) bytes")
        var justBelow = settings
        justBelow.maxBytes = interlaced.count - 1
        let fromInterlaced = try ImagePreparer(settings: justBelow).prepare(interlaced)
        #expect(fromInterlaced.format == .jpeg && fromInterlaced.width == 120 && fromInterlaced.height == 80)
        let corner = Photos.pixel(try Photos.decode(fromInterlaced.data), 100, 70)
        #expect(abs(corner[0] - 144) < 30 && abs(corner[1] - 24) < 30, "\(corner)")

        let sixteen = PNGFixtures.gray16(width: 64, height: 64)
        try #require(sixteen.count > 2_000)
        let fromSixteen = try ImagePreparer(settings: settings).prepare(sixteen)
        #expect(try JPEGCodec().header(of: fromSixteen.data).isGrayscale)
    }

    @Test("bad input is a clear error, never a crash or a hang")
    func badInput() throws {
        let preparer = try ImagePreparer()
        #expect(throws: ImagePrepError.empty) { try preparer.prepare([]) }
        #expect(throws: ImagePrepError.notAnImage) { try preparer.prepare(Array("just text, named photo.jpg".utf8)) }
        #expect(throws: ImagePrepError.self) { try preparer.prepare([0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 1, 2, 3]) }
        // A PNG with a broken CRC.
        var badCRC = PNGFixtures.rgba(width: 8, height: 8, alpha: 255)
        badCRC[29] ^= 0xFF
        #expect(throws: ImagePrepError.self) { try preparer.prepare(badCRC) }
    }

    @Test("a truncated photo that still decodes is used, with a warning")
    func truncated() throws {
        let jpeg = try Photos.jpeg(Photos.photo(width: 1200, height: 800), quality: 95)
        let cut = Array(jpeg.prefix(jpeg.count * 2 / 3))
        var settings = ImagePrepSettings()
        settings.maxBytes = 50_000
        let prepared = try ImagePreparer(settings: settings).prepare(cut)
        #expect(prepared.data.count <= 50_000)
        #expect(prepared.warnings.contains { $0.text(.en).contains("damaged JPEG, decoded anyway") }, "\(prepared.warnings)")
    }

    @Test("a 50,000×50,000 header is refused before any pixel is allocated")
    func bomb() throws {
        // A real JPEG whose frame header claims 50,000×50,000.
        var jpeg = try Photos.jpeg(Photos.photo(width: 16, height: 16))
        var i = 2
        while i + 8 < jpeg.count {
            if jpeg[i] == 0xFF, jpeg[i + 1] == 0xC0 {
                jpeg[i + 5] = UInt8(50_000 >> 8); jpeg[i + 6] = UInt8(50_000 & 0xFF)
                jpeg[i + 7] = UInt8(50_000 >> 8); jpeg[i + 8] = UInt8(50_000 & 0xFF)
                break
            }
            i += 1
        }
        #expect(throws: ImagePrepError.tooManyPixels(width: 50_000, height: 50_000, budget: 100_000_000)) {
            try ImagePreparer().prepare(jpeg)
        }
        let png = PNGFixtures.header(width: 50_000, height: 50_000)
        #expect(throws: ImagePrepError.tooManyPixels(width: 50_000, height: 50_000, budget: 100_000_000)) {
            try ImagePreparer().prepare(png)
        }
    }

    @Test("the cache returns finished photos without preparing them again, and stays bounded")
    func cache() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var settings = ImagePrepSettings()
        settings.maxBytes = 30_000
        let preparer = try ImagePreparer(settings: settings)
        let cache = try ImageCache(directory: directory, maxBytes: 70_000)
        let photos = try (1...4).map { try Photos.jpeg(Photos.photo(width: 900, height: 600, seed: UInt64($0)), quality: 95) }
        let first = try preparer.prepare(photos[0], cache: cache)
        #expect(!first.cached && first.image.data.count <= 30_000)
        let again = try preparer.prepare(photos[0], cache: cache)
        #expect(again.cached && again.image.data == first.image.data && again.image.width == first.image.width)
        // Other settings are another key.
        var other = settings
        other.maxBytes = 25_000
        #expect(try ImagePreparer(settings: other).prepare(photos[0], cache: cache).cached == false)
        for photo in photos.dropFirst() { _ = try preparer.prepare(photo, cache: cache) }
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.fileSizeKey])
        let total = try files.reduce(0) { $0 + (try $1.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0) }
        #expect(total <= 70_000 && files.count < 5)
    }

    @Test("behind the local cache, a shared store: a miss there prepares and stores; another machine's empty cache takes it from there; a store that fails costs preparation, never the photo")
    func sharedStore() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("shared-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        var settings = ImagePrepSettings()
        settings.maxBytes = 30_000
        let preparer = try ImagePreparer(settings: settings)
        let photo = try Photos.jpeg(Photos.photo(width: 900, height: 600, seed: 11), quality: 95)
        // The storage as a folder both "machines" reach, first writer wins (as If-None-Match: *).
        let storage = FolderStore(root.appendingPathComponent("storage"))
        let here = try ImageCache(directory: root.appendingPathComponent("a"), shared: storage)
        let made = try preparer.prepare(photo, cache: here)
        #expect(!made.cached && here.sharedCounts.misses == 1 && here.sharedCounts.stored == 1 && here.sharedCounts.hits == 0)
        let there = try ImageCache(directory: root.appendingPathComponent("b"), shared: storage)
        let found = try preparer.prepare(photo, cache: there)
        #expect(found.cached && found.image.data == made.image.data && there.sharedCounts.hits == 1)
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("b/\(ImageCache.key(for: photo, settings: settings))").path))
        let broken = try ImageCache(directory: root.appendingPathComponent("c"), shared: FolderStore(URL(fileURLWithPath: "/proc/no-such/storage")))
        let anyway = try preparer.prepare(photo, cache: broken)
        #expect(!anyway.cached && anyway.image.data == made.image.data)
        #expect(broken.sharedCounts.failures == 2 && broken.sharedCounts.firstFailure != nil)
    }

    @Test("preparers on all cores at once give the same bytes as one alone")
    func threads() throws {
        let photos = try (1...4).map { try Photos.jpeg(Photos.photo(width: 1000, height: 700, seed: UInt64($0)), quality: 95) }
        let settings = { var s = ImagePrepSettings(); s.maxBytes = 60_000; return s }()
        let alone = try photos.map { try ImagePreparer(settings: settings).prepare($0).data }
        let results = LockedResults(count: photos.count)
        DispatchQueue.concurrentPerform(iterations: photos.count) { index in
            let preparer = try? ImagePreparer(settings: settings)
            results.set(index, (try? preparer?.prepare(photos[index]))?.data)
        }
        #expect(results.all == alone)
    }
}

final class LockedResults: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [[UInt8]?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: [UInt8]?) { lock.lock(); values[index] = value; lock.unlock() }
    var all: [[UInt8]] { lock.lock(); defer { lock.unlock() }; return values.compactMap { $0 } }
}

/// A shared store in a folder: what S3 does for the cache (load, store unless there), on disk.
struct FolderStore: SharedImageStore {
    let folder: URL
    init(_ folder: URL) { self.folder = folder }
    var name: String { folder.path }

    func load(_ key: String) throws -> [UInt8]? {
        let url = folder.appendingPathComponent(key)
        guard FileManager.default.fileExists(atPath: folder.deletingLastPathComponent().path) else { throw CocoaError(.fileNoSuchFile) }
        return FileManager.default.fileExists(atPath: url.path) ? Array(try Data(contentsOf: url)) : nil
    }

    func save(_ key: String, _ data: [UInt8]) throws -> Bool {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let url = folder.appendingPathComponent(key)
        guard !FileManager.default.fileExists(atPath: url.path) else { return false }
        try Data(data).write(to: url)
        return true
    }
}
