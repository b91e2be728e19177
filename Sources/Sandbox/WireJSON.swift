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
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: seconds)) + ".00"
    }

    /// A JSON object's keys as Spring read them: names it does not know are ignored.
    static func object(_ data: Data, what: String) throws -> [String: JSONValue] {
        try JSONValue.object(from: data, what: what)
    }
}
