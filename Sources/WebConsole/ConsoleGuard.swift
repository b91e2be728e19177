import Foundation
import Words
import Hummingbird
import NIOCore
import HTTPTypes

/// What stands before every route of the console: it answers only to itself. A request whose
/// `Host` is not the console's own address is refused (DNS rebinding: a page of another site
/// made to resolve to 127.0.0.1); a write whose `Origin` is not the console's own is refused
/// (a form on another site posting here); and nothing is served without the token — given
/// once in the printed URL, then kept in a cookie only this console gets: the console listens
/// on a loopback address of its own (`127.x.y.z`, so a browser sends the cookie to no other
/// local server: not the sandbox's pages at 127.0.0.1, not another program's), and the cookie is
/// named by the port (a second console never replaces the first one's). All before routing.
struct ConsoleGuard<Context: RequestContext>: RouterMiddleware {
    let token: String
    let address: ConsoleAddress

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await guarded(request, context: context, next: next)
        Self.secure(&response.headers, framedBySelf: request.uri.path.hasSuffix("/report.html"))
        return response
    }

    /// What every answer of the console says to the browser: scripts, styles, pictures and
    /// forms from the console itself only (no inline script: the pages' script is /console.js;
    /// pictures may be the shop's), framed by no other page (a run's report by the console's
    /// own page only), no address of the console passed on to a link's site, no guessed types.
    static func secure(_ headers: inout HTTPFields, framedBySelf: Bool) {
        headers[.contentSecurityPolicy] = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: http: https:; "
            + "connect-src 'self'; form-action 'self'; frame-src 'self'; base-uri 'none'; frame-ancestors \(framedBySelf ? "'self'" : "'none'")"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[.xContentTypeOptions] = "nosniff"
        if !framedBySelf { headers[HTTPField.Name("X-Frame-Options")!] = "DENY" }
    }

    private func guarded(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let own = address.authorities
        let host = request.head.authority ?? ""
        guard own.contains(host) else { return Self.refused(request, "refused_host", own.first ?? "") }
        if request.method != .get && request.method != .head {
            // Under `Referrer-Policy: no-referrer` a browser names the origin of its own page's
            // form `null`; it says then, in Sec-Fetch-Site, that the form is the console's own.
            let origin = request.headers[.origin]
            let ownPage = origin.map { own.map({ "http://" + $0 }).contains($0) } ?? false
                || (origin == "null" && request.headers[HTTPField.Name("Sec-Fetch-Site")!] == "same-origin")
            guard ownPage else { return Self.refused(request, "refused_origin") }
        }
        // On the shared address nothing is answered outside the console's secret path.
        if !address.root.isEmpty, ConsoleAddress.root(of: request) != address.root { return Self.refused(request, "refused_no_token") }
        if let given = request.uri.queryParameters.get("token") {
            guard given == token else { return Self.refused(request, "refused_token") }
            // The token leaves the address bar: a cookie for this console carries it from now on.
            return Response(status: .seeOther, headers: [
                .location: Self.ownPath(request.uri.path),
                .setCookie: "\(address.cookieName)=\(token); HttpOnly; SameSite=Strict; Path=\(address.root)/",
            ])
        }
        guard Cookies.value(request, named: address.cookieName) == token else {
            return Self.refused(request, "refused_no_token")
        }
        var response = try await next(request, context)
        guard !address.root.isEmpty else { return response }
        // The routes answer with the console's own paths: under the secret path here.
        if let location = response.headers[.location], location.hasPrefix("/"), !location.hasPrefix(address.root + "/") {
            response.headers[.location] = address.root + location
        }
        let cookies = response.headers[values: .setCookie]
        if !cookies.isEmpty {
            response.headers[values: .setCookie] = cookies.map { $0.replacingOccurrences(of: "; Path=/", with: "; Path=\(address.root)/") }
        }
        return response
    }

    /// A path of this console to go on to: `//host/…` or `/\host/…` would take the browser to
    /// another site, so those (and anything not a path) go to the first page.
    static func ownPath(_ path: String) -> String {
        guard path.hasPrefix("/"), !path.hasPrefix("//"), !path.hasPrefix("/\\"), !path.contains("\\") else { return "/" }
        return path
    }

    /// A refusal, as a page in the reader's language (nothing of the console's shop on it).
    static func refused(_ request: Request, _ key: String, _ values: String...) -> Response {
        let language = ConsoleWords.language(of: request)
        return plainPage(status: .forbidden, title: "403 · " + WordTable.text("refused_title", language),
                         message: WordTable.filled(key, language, values))
    }

    /// A page of its own, for an answer given before the console knows whose page it is.
    static func plainPage(status: HTTPResponse.Status, title: String, message: String) -> Response {
        let html = ConsolePages.plain.render(["title": title, "message": message])
        return Response(status: status, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}

/// The console's own address, known once it listens.
final class ConsoleAddress: @unchecked Sendable {
    let host: String
    /// Where its pages live: `/` on a loopback address of its own; under a secret path
    /// (`/s/RANDOM`) on the shared 127.0.0.1, where its cookies are scoped to that path so that
    /// no other local server, on any port, is ever sent them.
    let root: String
    private let lock = NSLock()
    private var port = 0

    init(host: String, root: String = "") {
        self.host = host
        self.root = root
    }

    static let sharedPrefix = "/s/"

    /// The secret path a request came under (`/s/RANDOM`), or "" for a console on an address of its own.
    static func root(of request: Request) -> String {
        let path = request.uri.path
        guard path.hasPrefix(sharedPrefix) else { return "" }
        let rest = path.dropFirst(sharedPrefix.count)
        return sharedPrefix + rest.prefix { $0 != "/" }
    }

    func listening(on port: Int) { lock.withLock { self.port = port } }

    /// `HOST:PORT` (and `localhost:PORT` when the host is 127.0.0.1): what a browser on this
    /// machine sends as Host.
    var authorities: [String] {
        let port = lock.withLock { self.port }
        return ["\(host):\(port)"] + (host == "127.0.0.1" ? ["localhost:\(port)"] : [])
    }

    /// `openmarket-console-PORT`: the token's cookie of this console.
    var cookieName: String { "openmarket-console-\(lock.withLock { port })" }
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
