import CPNG
import Foundation

/// PNG test files written with libpng's simplified API.
enum PNGFixtures {
    static func write(width: Int, height: Int, format: UInt32, pixels: [UInt8], colormap: [UInt8]? = nil, colormapEntries: Int = 0) -> [UInt8] {
        var image = png_image()
        image.version = png_uint_32(PNG_IMAGE_VERSION)
        image.width = png_uint_32(width)
        image.height = png_uint_32(height)
        image.format = png_uint_32(format)
        image.colormap_entries = png_uint_32(colormapEntries)
        var size: Int = 0
        let ok1 = pixels.withUnsafeBytes { px in
            withOptionalPointer(colormap) { map in
                png_image_write_to_memory(&image, nil, &size, 0, px.baseAddress, 0, map)
            }
        }
        precondition(ok1 != 0 && size > 0, "libpng could not size the PNG")
        var output = [UInt8](repeating: 0, count: size)
        let ok2 = output.withUnsafeMutableBytes { out in
            pixels.withUnsafeBytes { px in
                withOptionalPointer(colormap) { map in
                    png_image_write_to_memory(&image, out.baseAddress, &size, 0, px.baseAddress, 0, map)
                }
            }
        }
        precondition(ok2 != 0, "libpng could not write the PNG")
        return Array(output.prefix(size))
    }

    private static func withOptionalPointer<T>(_ bytes: [UInt8]?, _ body: (UnsafeRawPointer?) -> T) -> T {
        guard let bytes else { return body(nil) }
        return bytes.withUnsafeBytes { body($0.baseAddress) }
    }

    /// Red with the given alpha everywhere, plus noise so that it does not compress to nothing.
    static func rgba(width: Int, height: Int, alpha: UInt8) -> [UInt8] {
        var pixels: [UInt8] = []
        var state: UInt32 = 12345
        for _ in 0..<(width * height) {
            state = state &* 1_103_515_245 &+ 12345
            let noise = UInt8((state >> 16) & 31)
            pixels += [200 + noise, noise, noise, alpha]
        }
        return write(width: width, height: height, format: UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_ALPHA), pixels: pixels)
    }

    /// A palette PNG: blue and yellow stripes over noise indices.
    static func palette(width: Int, height: Int) -> [UInt8] {
        var colormap: [UInt8] = []
        for i in 0..<256 { colormap += i < 128 ? [UInt8(i % 40), UInt8(i % 30), 230] : [240, 230, UInt8(i % 50)] }
        var indices: [UInt8] = []
        var state: UInt32 = 99
        for y in 0..<height {
            for _ in 0..<width {
                state = state &* 1_103_515_245 &+ 12345
                indices.append(UInt8((y / 16 % 2 == 0 ? 0 : 128) + Int((state >> 16) % 128)))
            }
        }
        return write(width: width, height: height, format: UInt32(PNG_FORMAT_FLAG_COLOR | PNG_FORMAT_FLAG_COLORMAP),
                     pixels: indices, colormap: colormap, colormapEntries: 256)
    }

    /// A 16-bit greyscale PNG with a noisy ramp.
    static func gray16(width: Int, height: Int) -> [UInt8] {
        var pixels: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let value = UInt16(truncatingIfNeeded: (x * 1000 + y * 300 + (x * y * 7919) % 5000))
                withUnsafeBytes(of: value.littleEndian) { pixels += $0 }
            }
        }
        return write(width: width, height: height, format: UInt32(PNG_FORMAT_FLAG_LINEAR), pixels: pixels)
    }

    /// A small real PNG whose header claims `width` × `height`.
    static func header(width: Int, height: Int) -> [UInt8] {
        var png = rgba(width: 4, height: 4, alpha: 255)
        func put(_ value: Int, at offset: Int) {
            for k in 0..<4 { png[offset + k] = UInt8((value >> (8 * (3 - k))) & 0xFF) }
        }
        put(width, at: 16)
        put(height, at: 20)
        // IHDR's CRC covers its type and data: bytes 12..<29.
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in png[12..<29] {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        put(Int(~crc), at: 29)
        return png
    }
}

extension PNGFixtures {
    /// An Adam7-interlaced RGB PNG, written with libpng's full API (the
    /// simplified one cannot interlace).
    static func interlaced(width: Int, height: Int) -> [UInt8] {
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nil, nil, nil)
        var info = png_create_info_struct(png)
        defer { png_destroy_write_struct(&png, &info) }
        let io = Unmanaged.passUnretained(sink).toOpaque()
        png_set_write_fn(png, io, { png, data, length in
            let sink = Unmanaged<Sink>.fromOpaque(png_get_io_ptr(png)!).takeUnretainedValue()
            sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
        }, nil)
        png_set_IHDR(png, info, png_uint_32(width), png_uint_32(height), 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_ADAM7, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT)
        png_write_info(png, info)
        _ = png_set_interlace_handling(png)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                pixels[i] = UInt8(x * 4 % 256)
                pixels[i + 1] = UInt8(y * 4 % 256)
                pixels[i + 2] = UInt8(x * y % 256)
            }
        }
        pixels.withUnsafeMutableBufferPointer { buffer in
            var rows: [UnsafeMutablePointer<UInt8>?] = (0..<height).map { buffer.baseAddress! + $0 * width * 3 }
            rows.withUnsafeMutableBufferPointer { png_write_image(png, $0.baseAddress) }
        }
        png_write_end(png, nil)
        return sink.bytes
    }
}
