import CHeif
import Foundation

/// HEIF decoding (HEIC from a phone, and AVIF) with libheif: the primary image, its
/// rotation and mirroring applied as the file says (HEIF carries them as transforms,
/// which libheif applies, so an EXIF orientation inside is not applied again), more
/// than 8 bits brought to 8, alpha laid over white, and its ICC profile when it has one.
public enum HEIFDecoder {
    /// Refuses an image over `pixelBudget` before any pixel is decoded.
    public static func decode(_ data: [UInt8], pixelBudget: Int) throws(ImagePrepError) -> DecodedPhoto {
        guard let context = heif_context_alloc() else { throw .unreadable("libheif: cannot allocate a context") }
        defer { heif_context_free(context) }
        let result: Result<DecodedPhoto, ImagePrepError> = data.withUnsafeBytes { bytes in
            // The context reads from `bytes` without a copy: everything happens inside this closure.
            var error = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
            guard error.code == heif_error_Ok else { return .failure(.unreadable("not a readable HEIC/HEIF file: \(message(error))")) }
            var handle: OpaquePointer? = nil
            error = heif_context_get_primary_image_handle(context, &handle)
            guard error.code == heif_error_Ok, let handle else {
                return .failure(.unreadable("HEIC/HEIF file without a primary image: \(message(error))"))
            }
            defer { heif_image_handle_release(handle) }
            let width = Int(heif_image_handle_get_width(handle)), height = Int(heif_image_handle_get_height(handle))
            guard width > 0, height > 0 else { return .failure(.unreadable("HEIC/HEIF image with no pixels")) }
            guard width * height <= pixelBudget else {
                return .failure(.tooManyPixels(width: width, height: height, budget: pixelBudget))
            }
            return Result { () throws(ImagePrepError) in try decodePixels(handle) }
        }
        return try result.get()
    }

    private static func decodePixels(_ handle: OpaquePointer) throws(ImagePrepError) -> DecodedPhoto {
        let alpha = heif_image_handle_has_alpha_channel(handle) != 0
        guard let options = heif_decoding_options_alloc() else { throw .unreadable("libheif: cannot allocate options") }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var image: OpaquePointer? = nil
        let error = heif_decode_image(handle, &image, heif_colorspace_RGB,
                                      alpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB, options)
        guard error.code == heif_error_Ok, let image else { throw .unreadable("cannot decode the HEIC/HEIF image: \(message(error))") }
        defer { heif_image_release(image) }
        let width = Int(heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif_image_get_height(image, heif_channel_interleaved))
        var stride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride) else {
            throw .unreadable("the HEIC/HEIF image decoded to no pixels")
        }
        let source = UnsafeBufferPointer(start: plane, count: Int(stride) * height)
        let pixels = PixelImage.rgb(from: source, width: width, height: height, rowBytes: Int(stride), hasAlpha: alpha)
        return DecodedPhoto(image: pixels, iccProfile: iccProfile(handle))
    }

    private static func iccProfile(_ handle: OpaquePointer) -> [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0 else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? profile : nil
    }

    private static func message(_ error: heif_error) -> String {
        guard let text = error.message else { return "error \(error.code.rawValue)" }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// A photo decoded from a format the server does not take, ready to be encoded as JPEG.
public struct DecodedPhoto: Sendable {
    public var image: PixelImage
    /// The colour profile the pixels are in, when the file carried one.
    public var iccProfile: [UInt8]?
    /// EXIF orientation still to apply (1: none).
    public var orientation = 1
}

extension PixelImage {
    /// RGB (or RGBA, laid over white) rows of `rowBytes` each, packed into RGB.
    static func rgb(from source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, rowBytes: Int, hasAlpha: Bool) -> PixelImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<height {
                let row = y * rowBytes, outRow = y * width * 3
                if !hasAlpha {
                    (out.baseAddress! + outRow).update(from: source.baseAddress! + row, count: width * 3)
                    continue
                }
                for x in 0..<width {
                    let s = row + x * 4, d = outRow + x * 3
                    let a = UInt32(source[s + 3])
                    for k in 0..<3 {
                        // Over white: c·a + 255·(1 − a), rounded.
                        out[d + k] = UInt8((UInt32(source[s + k]) * a + 255 * (255 - a) + 127) / 255)
                    }
                }
            }
        }
        return PixelImage(width: width, height: height, channels: 3, pixels: pixels)
    }
}

/// What the photo decoders on this machine can read, for `doctor`.
public enum PhotoDecoders {
    public static var libheifVersion: String { String(cString: heif_get_version()) }
    /// Whether libheif has an HEVC decoder (HEIC; Debian's libheif1 has libde265).
    public static var decodesHEIC: Bool { heif_have_decoder_for_format(heif_compression_HEVC) != 0 }
    /// Whether libheif has an AV1 decoder (AVIF).
    public static var decodesAVIF: Bool { heif_have_decoder_for_format(heif_compression_AV1) != 0 }
}
