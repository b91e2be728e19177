import Foundation
import Words
import Hummingbird
import Synchronization

/// A shop the console works on: its engine, and its jobs (one write at a time on it).
public struct ConsoleShop: Sendable {
    let engine: ConsoleEngine
    let jobs: ConsoleJobs
    /// The menu of every page: the config file's profiles, and how the first shop is named.
    let menu: [String]
    let firstName: String
}

/// The console's request context: what a route answers for, the shop the request's page chose
/// (set by `ConsoleShopChoice` before any route), typed, carried by the request itself.
struct ConsoleContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var shop: ConsoleShop?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
    }

    /// The chosen shop; a route reached without one (a middleware missing) is a 500, not a crash.
    func chosen() throws -> ConsoleShop {
        guard let shop else { throw HTTPError(.internalServerError, message: "no shop chosen for this request") }
        return shop
    }
}

/// What a route works on: the shop its request chose, given when the route answers.
protocol ConsoleShopBound: Sendable {
    var shop: ConsoleShop { get }
    init(shop: ConsoleShop)
}

extension ConsoleShopBound {
    init(_ context: ConsoleContext) throws { self.init(shop: try context.chosen()) }
    var engine: ConsoleEngine { shop.engine }
    var jobs: ConsoleJobs { shop.jobs }
    /// The layout of this shop's pages.
    var layout: ConsoleLayout { ConsoleLayout(shop: shop) }
}

/// The shops of one console: the one chosen on the command line, and the config file's
/// profiles (a menu on every page), each opened when first picked and kept open after.
public final class ConsoleShops: Sendable {
    public typealias Opener = @Sendable (_ profile: String) async throws -> ConsoleEngine
    /// Writes a profile's identifier and secret into the config file (the page's form).
    public typealias Saver = @Sendable (_ profile: String, _ identifier: String, _ secret: String) throws -> Void

    let first: ConsoleShop
    /// The config file's profiles, by name; none: no menu.
    let profiles: [String]
    private let open: Opener?
    let save: Saver?
    private let opened = Mutex<[String: ConsoleShop]>([:])

    public init(_ engine: ConsoleEngine, profiles: [String] = [], open: Opener? = nil, save: Saver? = nil) {
        let menu = open == nil ? [] : profiles.sorted()
        first = ConsoleShop(engine: engine, jobs: ConsoleJobs(), menu: menu, firstName: engine.account.serverName)
        self.profiles = menu
        self.open = open
        self.save = save
    }

    /// A profile's new credentials saved: its shop is opened again with them at the next page
    /// (a job of it still running keeps the old one until it ends).
    func saveCredentials(profile: String, identifier: String, secret: String) throws {
        guard profiles.contains(profile), let save else { throw HTTPError(.badRequest) }
        try save(profile, identifier, secret)
        _ = opened.withLock { $0.removeValue(forKey: profile) }
    }

    static let cookieName = "openmarket-console-shop"

    /// The shop a request's page chose: a profile, or the first.
    func shop(for request: Request) async throws -> ConsoleShop {
        guard let name = Cookies.value(request, named: Self.cookieName), profiles.contains(name), let open else { return first }
        if let shop = opened.withLock({ $0[name] }) { return shop }
        let shop = ConsoleShop(engine: try await open(name), jobs: ConsoleJobs(), menu: profiles, firstName: first.firstName)
        // Two first requests at once: the first one kept is the one used.
        return opened.withLock { opened in
            if let kept = opened[name] { return kept }
            opened[name] = shop
            return shop
        }
    }

    /// The chosen profile's name, as the menu marks it ("" for the command line's shop).
    static func chosen(_ request: Request, among profiles: [String]) -> String {
        Cookies.value(request, named: cookieName).flatMap { profiles.contains($0) ? $0 : nil } ?? ""
    }

    /// Where credentials the shop refused are entered again: the chosen profile's form; or, for
    /// credentials the command gave, the words that say the page cannot change them (the way on
    /// is another profile).
    static func mend(_ request: Request, among profiles: [String], _ language: ConsoleWords.Language) -> (profile: String?, note: String?) {
        let profile = chosen(request, among: profiles)
        return profile.isEmpty ? (nil, WordTable.text("credentials_not_profile", language)) : (profile, nil)
    }
}

/// Sets the request's shop for the routes after the guard; a profile that cannot be opened
/// (a wrong secret, a server down) is said on a page that offers the others.
struct ConsoleShopChoice: RouterMiddleware {
    let shops: ConsoleShops

    func handle(_ request: Request, context: ConsoleContext, next: (Request, ConsoleContext) async throws -> Response) async throws -> Response {
        let root = ConsoleAddress.root(of: request)
        if request.uri.path == root + "/profile" { return try await credentials(request) }
        if request.uri.path == root + "/shop" {
            let name = request.uri.queryParameters.get("name") ?? ""
            let value = shops.profiles.contains(name) ? name : ""
            return Response(status: .seeOther, headers: [.location: "/", .setCookie: "\(ConsoleShops.cookieName)=\(value); SameSite=Strict; Path=/"])
        }
        let shop: ConsoleShop
        do { shop = try await shops.shop(for: request) } catch {
            let name = ConsoleShops.chosen(request, among: shops.profiles)
            let language = ConsoleWords.language(of: request)
            var model = ProfilePage(head: PageHead(WordTable.filled("profile_title", language, name),
                                                   message: WordTable.filled("profile_cannot_open", language, name, "\(error)")))
            if shops.save != nil { model.credentials = name }
            return ConsoleLayout(shop: shops.first).response(request, model, status: .badGateway)
        }
        var context = context
        context.shop = shop
        return try await next(request, context)
    }
}

extension ConsoleShopChoice {
    /// The chosen profile's identifier and secret entered again (a shop that refused them):
    /// GET the form, POST saves them into the config file and opens the shop again with them.
    /// The page never shows a secret.
    func credentials(_ request: Request) async throws -> Response {
        let name = ConsoleShops.chosen(request, among: shops.profiles)
        let language = ConsoleWords.language(of: request)
        var model = ProfilePage(head: PageHead(WordTable.filled("profile_title", language, name)))
        guard !name.isEmpty, shops.save != nil else {
            model.head.message = WordTable.text("credentials_not_profile", language)
            return ConsoleLayout(shop: shops.first).response(request, model, status: .badRequest)
        }
        if request.method == .post {
            let form = try await ConsoleForm.read(request)
            let identifier = form["identifier"]?.trimmingCharacters(in: .whitespaces) ?? ""
            let secret = form["secret"] ?? ""
            do {
                try shops.saveCredentials(profile: name, identifier: identifier, secret: secret)
                return Response(status: .seeOther, headers: [.location: ConsoleAddress.root(of: request) + "/"])
            } catch {
                model.head.message = WordTable.filled("credentials_not_saved", language, "\(error)")
            }
        }
        model.credentials = name
        return ConsoleLayout(shop: shops.first).response(request, model, status: request.method == .post ? .badRequest : .ok)
    }
}
