import Foundation
import Manifest

/// The zips merchants drop on the console (photos and sheets, from a Mac, Windows or Info-ZIP):
/// read by `MerchantZip`, the reader the console's upload unpacks with.
enum UploadTargets {
    static let all = [
        FuzzTarget("upload-zip", reads: "a zip dropped on the console: every name kept inside, every file read by its real bytes under the limits", check: uploadZip),
    ]

    /// Small limits, so that a bomb is met within a fuzzer's input.
    static let limits = MerchantZip.Limits(entries: 1000, unpackedBytes: 64 << 20)

    @Sendable static func uploadZip(_ data: Data) throws(FuzzFinding) {
        let zip: MerchantZip
        do { zip = try MerchantZip(data: data, name: "photos.zip", limits: limits) } catch { return }
        var written: UInt64 = 0
        for file in zip.files {
            let parts = file.path.split(separator: "/", omittingEmptySubsequences: false)
            if file.path.hasPrefix("/") || parts.contains("..") || parts.contains("") || file.path.contains("\\") {
                throw FuzzFinding("a file the zip would unpack outside its folder: \(file.path.debugDescription)")
            }
            if parts.first == "__MACOSX" || parts.last?.hasPrefix("._") == true { throw FuzzFinding("the Mac's own file kept: \(file.path)") }
            var own: UInt64 = 0
            let before = written
            do {
                try zip.read(file, written: &written) { own += UInt64($0.count) }
            } catch {
                guard error is MerchantZip.Refused else { throw FuzzFinding("a read failed with no words for the merchant: \(error)") }
                // Refused: the limit holds, and the rest of the zip is not unpacked.
                guard written <= limits.unpackedBytes + (256 << 10) else { throw FuzzFinding("\(written) bytes read past the limit before the refusal") }
                return
            }
            guard own == UInt64(file.part.size), written - before == own else {
                throw FuzzFinding("\(file.path): \(own) bytes read, \(file.part.size) declared and checked")
            }
        }
        guard written <= limits.unpackedBytes else { throw FuzzFinding("\(written) bytes unpacked past the limit of \(limits.unpackedBytes)") }
    }
}
