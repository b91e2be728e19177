import CCrypto
import Foundation

/// SHA-256 from OpenSSL's libcrypto (Debian's, the one libcurl already links): photos,
/// rows, snapshots and feeds are named by it. One digest for the whole tool, in C at full
/// speed in every build, instead of a second copy of BoringSSL compiled from source.
public struct SHA256: ~Copyable {
    private let context: OpaquePointer

    public init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("OpenSSL's SHA-256 is not available")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    public mutating func update(data: some DataProtocol) {
        for region in data.regions {
            region.withUnsafeBytes { bytes in
                _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
            }
        }
    }

    public mutating func update(bytes: UnsafeRawBufferPointer) {
        _ = EVP_DigestUpdate(context, bytes.baseAddress, bytes.count)
    }

    public consuming func finalize() -> Digest {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &digest, &length)
        return Digest(bytes: digest)
    }

    public static func hash(data: some DataProtocol) -> Digest {
        var hasher = SHA256()
        hasher.update(data: data)
        return hasher.finalize()
    }

    /// 32 bytes; `hex` is how openmarket writes it.
    public struct Digest: Sequence, Sendable, Equatable, Hashable {
        public let bytes: [UInt8]
        public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }

        public var hex: String {
            let digits = Array("0123456789abcdef".utf8)
            var text: [UInt8] = []
            text.reserveCapacity(64)
            for byte in bytes {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            return String(decoding: text, as: UTF8.self)
        }
    }
}
