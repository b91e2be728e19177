import CTurboJPEG
import Foundation

/// A JPEG turned upright (its EXIF orientation applied) by moving its DCT coefficients, not by
/// decoding and encoding again: no generation lost, and about the bytes it came with. A photo
/// under the server's limit that only needed turning was re-encoded at the highest quality
/// that fit — a 26 KB photo went up as 130 KB.
enum LosslessTurn {
    /// The transform for an EXIF orientation (2…8); nil for 1 or an unknown value.
    static func operation(_ orientation: Int) -> TJXOP? {
        switch orientation {
        case 2: TJXOP_HFLIP
        case 3: TJXOP_ROT180
        case 4: TJXOP_VFLIP
        case 5: TJXOP_TRANSPOSE
        case 6: TJXOP_ROT90
        case 7: TJXOP_TRANSVERSE
        case 8: TJXOP_ROT270
        default: nil
        }
    }

    /// The JPEG turned upright, without its markers (the EXIF orientation would turn it again);
    /// nil when it cannot be done without loss: a side that is no whole number of blocks would
    /// have to be trimmed (then the photo is re-encoded, within the bytes it came with).
    static func upright(_ jpeg: [UInt8], orientation: Int) -> [UInt8]? {
        guard let operation = operation(orientation) else { return nil }
        // Progressive has Huffman tables made for the photo (the standard tables made a turned
        // photo 15 % bigger than it came, its own being optimised); baseline is smaller for tiny ones.
        var best: [UInt8]?
        for options in [TJXOPT_PERFECT | TJXOPT_PROGRESSIVE, TJXOPT_PERFECT] {
            // A handle each: one that wrote a progressive JPEG keeps its scans for the next.
            guard let handle = tjInitTransform() else { return nil }
            defer { tjDestroy(handle) }
            var transform = tjtransform()
            transform.op = Int32(operation.rawValue)
            transform.options = options | TJXOPT_COPYNONE
            var output: UnsafeMutablePointer<UInt8>? = nil
            var size: UInt = 0
            let status = jpeg.withUnsafeBufferPointer { source in
                tjTransform(handle, source.baseAddress, UInt(source.count), 1, &output, &size, &transform, 0)
            }
            defer { if let output { tjFree(output) } }
            guard status == 0, let output, size > 0 else { return nil }  // not perfect: no lossless turn
            if Int(size) < best?.count ?? .max { best = Array(UnsafeBufferPointer(start: output, count: Int(size))) }
        }
        return best
    }

    /// A lossless turn moves the coefficients but codes them again: a few bytes either way.
    /// More than this over the photo's own size, and it is re-encoded within its size instead.
    static func tolerance(_ bytes: Int) -> Int { bytes / 100 }
}
