/// The header segments of a JPEG (APPn and the others before the image data), walked
/// without decoding anything: `body` gets each marker and its payload (after the length
/// field), and returns true to stop. Used for EXIF orientation and ICC profiles.
enum JPEGSegments {
    static func forEach(_ jpeg: [UInt8], _ body: (_ marker: UInt8, _ payload: ArraySlice<UInt8>) -> Bool) {
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
            if marker == 0xDA || marker == 0xD9 { break }  // image data: no more headers
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            guard length >= 2, offset + 2 + length <= jpeg.count else { break }
            if body(marker, jpeg[(offset + 4)..<(offset + 2 + length)]) { return }
            offset += 2 + length
        }
    }
}

/// The EXIF orientation (tag 0x0112) of a JPEG, read from its APP1 segment
/// without decoding anything. 1 (upright) when absent or unreadable.
public enum EXIFOrientation {
    private static let exifPrefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

    public static func read(_ jpeg: [UInt8]) -> Int {
        var found = 1
        JPEGSegments.forEach(jpeg) { marker, payload in
            guard marker == 0xE1, payload.count >= 14, payload.starts(with: exifPrefix),
                  let value = orientation(tiff: payload.dropFirst(6)) else { return false }
            found = value
            return true
        }
        return found
    }

    /// The orientation in an EXIF payload as a WebP EXIF chunk holds it: a TIFF
    /// structure, with or without the `Exif\0\0` that JPEG puts before it.
    public static func read(exifPayload: [UInt8]) -> Int {
        let tiff = exifPayload.starts(with: exifPrefix) ? exifPayload[6...] : exifPayload[...]
        return orientation(tiff: tiff) ?? 1
    }

    private static func orientation(tiff: ArraySlice<UInt8>) -> Int? {
        let base = tiff.startIndex
        guard tiff.count >= 8 else { return nil }
        let little: Bool
        switch (tiff[base], tiff[base + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= tiff.count else { return nil }
            let a = Int(tiff[base + at]), b = Int(tiff[base + at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let lo = u16(little ? at : at + 2), let hi = u16(little ? at + 2 : at) else { return nil }
            return hi << 16 | lo
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd), count < 1000 else { return nil }
        for index in 0..<count {
            let entry = ifd + 2 + index * 12
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, let value = u16(entry + 8), (1...8).contains(value) { return value }
        }
        return nil
    }
}

extension PixelImage {
    /// Turns stored pixels into the upright picture EXIF `orientation` (1–8) describes.
    public func oriented(_ orientation: Int) -> PixelImage {
        guard (2...8).contains(orientation) else { return self }
        let swaps = orientation >= 5
        let outWidth = swaps ? height : width
        let outHeight = swaps ? width : height
        var output = [UInt8](repeating: 0, count: pixels.count)
        let (w, h, c) = (width, height, channels)
        pixels.withUnsafeBufferPointer { src in
            output.withUnsafeMutableBufferPointer { dst in
                for dy in 0..<outHeight {
                    for dx in 0..<outWidth {
                        let (sx, sy): (Int, Int) = switch orientation {
                        case 2: (w - 1 - dx, dy)
                        case 3: (w - 1 - dx, h - 1 - dy)
                        case 4: (dx, h - 1 - dy)
                        case 5: (dy, dx)
                        case 6: (dy, h - 1 - dx)
                        case 7: (w - 1 - dy, h - 1 - dx)
                        default: (w - 1 - dy, dx)  // 8
                        }
                        let from = (sy * w + sx) * c, to = (dy * outWidth + dx) * c
                        for k in 0..<c { dst[to + k] = src[from + k] }
                    }
                }
            }
        }
        return PixelImage(width: outWidth, height: outHeight, channels: c, pixels: output)
    }
}
