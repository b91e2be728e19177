/// A photo's ICC colour profile, carried from the source into the JPEG that is sent,
/// so that a wide-gamut photo (an iPhone's Display P3) keeps its colours in a browser.
/// A profile that only says sRGB is dropped: sRGB is what a JPEG without one means.
public enum ICCProfile {
    /// The largest profile carried: a bigger one (a printer's) costs more of the size
    /// limit than the colours it keeps are worth, and the photo is sent without it.
    public static let maxCarried = 16 * 1024

    private static let marker: [UInt8] = Array("ICC_PROFILE".utf8) + [0]

    /// The profile of a JPEG: its APP2 `ICC_PROFILE` segments, joined in their order.
    public static func read(jpeg: [UInt8]) -> [UInt8]? {
        var chunks: [(index: UInt8, bytes: ArraySlice<UInt8>)] = []
        JPEGSegments.forEach(jpeg) { type, payload in
            if type == 0xE2, payload.count > marker.count + 2, payload.starts(with: marker) {
                let index = payload.index(payload.startIndex, offsetBy: marker.count)
                chunks.append((payload[index], payload[(index + 2)...]))
            }
            return false
        }
        guard !chunks.isEmpty else { return nil }
        return chunks.sorted { $0.index < $1.index }.flatMap(\.bytes)
    }

    /// The profile worth carrying: an RGB profile that is not sRGB, of a reasonable size.
    public static func carried(_ profile: [UInt8]?) -> [UInt8]? {
        guard let profile, profile.count >= 132, profile.count <= maxCarried else { return nil }
        // Bytes 16–19 of the header: the colour space of the data.
        guard profile[16..<20].elementsEqual("RGB ".utf8) else { return nil }
        return describesSRGB(profile) ? nil : profile
    }

    /// Whether the profile's description ('desc' tag) names sRGB.
    static func describesSRGB(_ profile: [UInt8]) -> Bool {
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= profile.count else { return nil }
            return Int(profile[at]) << 24 | Int(profile[at + 1]) << 16 | Int(profile[at + 2]) << 8 | Int(profile[at + 3])
        }
        guard let count = u32(128), count < 200 else { return false }
        for index in 0..<count {
            let entry = 132 + index * 12
            guard let signature = u32(entry), let offset = u32(entry + 4), let size = u32(entry + 8) else { return false }
            guard signature == 0x6465_7363, offset + size <= profile.count else { continue }  // 'desc'
            // Version 2 ('desc': ASCII) and version 4 ('mluc': UTF-16): look for "sRGB" either way.
            let text = profile[offset..<(offset + size)].filter { $0 != 0 }
            return String(decoding: text, as: UTF8.self).contains("sRGB")
        }
        return false
    }

    /// The bytes `embedding` adds to a JPEG.
    public static func cost(_ profile: [UInt8]?) -> Int {
        guard let profile, !profile.isEmpty else { return 0 }
        let chunks = (profile.count + chunkCapacity - 1) / chunkCapacity
        return profile.count + chunks * (4 + marker.count + 2)
    }

    /// What one APP2 segment holds of the profile.
    private static let chunkCapacity = 65_533 - 14

    /// `jpeg` with `profile` in APP2 segments right after SOI (and after JFIF's APP0
    /// when there is one, where readers look for it).
    public static func embedding(_ profile: [UInt8]?, in jpeg: [UInt8]) -> [UInt8] {
        guard let profile, !profile.isEmpty, jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { return jpeg }
        var at = 2
        if jpeg[2] == 0xFF, jpeg[3] == 0xE0, jpeg.count >= 6 {
            at = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        }
        let chunks = stride(from: 0, to: profile.count, by: chunkCapacity).map { profile[$0..<min(profile.count, $0 + chunkCapacity)] }
        var segments: [UInt8] = []
        segments.reserveCapacity(cost(profile))
        for (index, chunk) in chunks.enumerated() {
            let length = 2 + marker.count + 2 + chunk.count
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + marker
            segments += [UInt8(index + 1), UInt8(chunks.count)]
            segments += chunk
        }
        var output = [UInt8]()
        output.reserveCapacity(jpeg.count + segments.count)
        output += jpeg[0..<at]
        output += segments
        output += jpeg[at...]
        return output
    }
}
