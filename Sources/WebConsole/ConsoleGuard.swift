import Foundation
import Hummingbird
import NIOCore

/// What stands before every route of the console: it answers only to itself. A request whose
/// `Host` is not the console's own address is refused (DNS rebinding: a page of another site
/// made to resolve to 127.0.0.1); a write whose `Origin` is not the console's own is refused
/// (a form on another site posting here); and nothing is served without the token — given
/// once in the printed URL, then kept in a cookie only this address gets. All before routing.
struct ConsoleGuard<Context: RequestContext>: RouterMiddleware {
    let token: String
    let address: ConsoleAddress

    static var cookieName: String { "openmarket-console" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let own = address.authorities
        let host = request.head.authority ?? ""
        guard own.contains(host) else { return Self.refused("this console answers only at \(own.first ?? "its own address")") }
        if request.method != .get && request.method != .head {
            guard let origin = request.headers[.origin], own.map({ "http://" + $0 }).contains(origin) else {
                return Self.refused("a write from another page")
            }
        }
        if let given = request.uri.queryParameters.get("token") {
            guard given == token else { return Self.refused("a wrong token") }
            // The token leaves the address bar: a cookie for this address carries it from now on.
            return Response(status: .seeOther, headers: [
                .location: request.uri.path.isEmpty ? "/" : request.uri.path,
                .setCookie: "\(Self.cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/",
            ])
        }
        guard Self.cookie(request) == token else {
            return Self.refused("no token: open the address openmarket console printed")
        }
        return try await next(request, context)
    }

    static func cookie(_ request: Request) -> String? { Cookies.value(request, named: cookieName) }

    static func refused(_ why: String) -> Response {
        Response(status: .forbidden, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: .init(byteBuffer: ByteBuffer(string: "403 refused: \(why)\n")))
    }
}

/// The console's own address, known once it listens.
final class ConsoleAddress: @unchecked Sendable {
    private let lock = NSLock()
    private var port = 0

    func listening(on port: Int) { lock.withLock { self.port = port } }

    /// `127.0.0.1:PORT` and `localhost:PORT`: what a browser on this machine sends as Host.
    var authorities: [String] {
        let port = lock.withLock { self.port }
        return ["127.0.0.1:\(port)", "localhost:\(port)"]
    }
}

/// A cookie of a request by its name.
enum Cookies {
    static func value(_ request: Request, named name: String) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let pair = part.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2, pair[0] == name { return pair[1] }
            }
        }
        return nil
    }
}
