import Foundation
import Hummingbird
import NIOCore

/// JSON for the older generations, built as the real servers wrote it, key by key, apart
/// from the contract's models (which the client also uses): a mistake in one is then not
/// shared by the other.
enum WireJSON {
    static func response(_ object: Any, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `2022-01-04T00:00:00.00`: the 2022-01 server's dates (local time, two zero digits).
    static func date2022January(_ seconds: Double) -> String {
        var time = time_t(seconds)
        var parts = tm()
        localtime_r(&time, &parts)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.00", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                      Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
