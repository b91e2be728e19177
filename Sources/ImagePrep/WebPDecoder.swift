import CWebP

/// WebP decoding with libwebp: a still image (lossy or lossless), alpha laid over
/// white, with the orientation of its EXIF chunk and its ICC profile (read with
/// libwebp's demuxer). An animated WebP is refused: which frame to show is not ours
/// to choose.
public enum WebPDecoder {
    /// Refuses an image over `pixelBudget` before any pixel is decoded.
    public static func decode(_ data: [UInt8], pixelBudget: Int) throws(ImagePrepError) -> DecodedPhoto {
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBufferPointer { WebPGetFeatures($0.baseAddress, $0.count, &features) }
        guard status == VP8_STATUS_OK else { throw .unreadable("not a readable WebP file (libwebp status \(status.rawValue))") }
        guard features.has_animation == 0 else {
            throw .unreadable("an animated WebP: save the frame to show as a still photo (JPEG, PNG or WebP)")
        }
        let width = Int(features.width), height = Int(features.height)
        guard width > 0, height > 0 else { throw .unreadable("WebP image with no pixels") }
        guard width * height <= pixelBudget else { throw .tooManyPixels(width: width, height: height, budget: pixelBudget) }
        let alpha = features.has_alpha != 0
        let channels = alpha ? 4 : 3
        var decoded = [UInt8](repeating: 0, count: width * height * channels)
        let written = data.withUnsafeBufferPointer { input in
            decoded.withUnsafeMutableBufferPointer { output in
                alpha ? WebPDecodeRGBAInto(input.baseAddress, input.count, output.baseAddress, output.count, Int32(width * 4))
                      : WebPDecodeRGBInto(input.baseAddress, input.count, output.baseAddress, output.count, Int32(width * 3))
            }
        }
        guard written != nil else { throw .unreadable("cannot decode the WebP image: it is damaged or cut short") }
        let image = alpha
            ? decoded.withUnsafeBufferPointer { PixelImage.rgb(from: $0, width: width, height: height, rowBytes: width * 4, hasAlpha: true) }
            : PixelImage(width: width, height: height, channels: 3, pixels: decoded)
        let chunks = metadata(data)
        return DecodedPhoto(image: image, iccProfile: chunks.icc,
                            orientation: chunks.exif.map { EXIFOrientation.read(exifPayload: $0) } ?? 1)
    }

    /// The ICCP and EXIF chunks of an extended WebP, when present.
    private static func metadata(_ data: [UInt8]) -> (icc: [UInt8]?, exif: [UInt8]?) {
        data.withUnsafeBufferPointer { input in
            var whole = WebPData(bytes: input.baseAddress, size: input.count)
            guard let demuxer = WebPDemux(&whole) else { return (nil, nil) }
            defer { WebPDemuxDelete(demuxer) }
            func chunk(_ fourCC: String) -> [UInt8]? {
                var iterator = WebPChunkIterator()
                defer { WebPDemuxReleaseChunkIterator(&iterator) }
                guard WebPDemuxGetChunk(demuxer, fourCC, 1, &iterator) != 0, let bytes = iterator.chunk.bytes,
                      iterator.chunk.size > 0 else { return nil }
                return Array(UnsafeBufferPointer(start: bytes, count: iterator.chunk.size))
            }
            return (chunk("ICCP"), chunk("EXIF"))
        }
    }
}

extension PhotoDecoders {
    /// libwebp's decoder version, as major.minor.revision.
    public static var libwebpVersion: String {
        let v = WebPGetDecoderVersion()
        return "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)"
    }
}
