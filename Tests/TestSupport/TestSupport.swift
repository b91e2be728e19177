import Foundation
import ImagePrep
import OpenMarketAPI
import Sandbox
import Support

/// A sandbox started in-process on 127.0.0.1, port 0, in its own temporary folder.
public struct TestSandbox: Sendable {
    public let server: SandboxServer
    public let directory: URL
    /// nginx terminating TLS in front of it, when started with `tls` (a certificate and key).
    public let front: TLSFront?

    /// Where a client reaches it: the TLS front's https URL, else the sandbox's own.
    public var url: String { front.map { "https://127.0.0.1:\($0.port)" } ?? server.url.absoluteString }
    public var demo: SandboxVendor { server.vendors[0] }
    /// The options that name the demo vendor's account on this sandbox, for a command line.
    public var demoAccount: [String] { ["--server", url, "--identifier", demo.identifier, "--secret", demo.secret] }
    public var other: SandboxVendor { server.vendors[1] }

    /// With `tls` set, the sandbox serves plain HTTP on loopback and nginx serves HTTPS in front
    /// of it (`TLSFront`), with the sandbox's idle timeout.
    public static func start(directory: URL? = nil, _ configure: (inout SandboxConfiguration) -> Void = { _ in }) async throws -> TestSandbox {
        let dir = directory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("openmarket-sandbox-test-\(UUID().uuidString)")
        var configuration = SandboxConfiguration(dataDirectory: dir)
        configuration.port = 0
        configure(&configuration)
        let tls = configuration.tls
        configuration.tls = nil
        let server = try await SandboxServer.start(configuration)
        guard let (certificate, key) = tls else { return TestSandbox(server: server, directory: dir, front: nil) }
        let port = server.port, idle = configuration.idleTimeout
        do {
            let front = try await TLSFront.start(upstream: port, certificate: certificate, key: key, idleTimeout: idle)
            return TestSandbox(server: server, directory: dir, front: front)
        } catch {
            await server.stop()
            throw error
        }
    }

    public func stop(removeData: Bool = true) async {
        await front?.stop()
        await server.stop()
        if removeData { try? FileManager.default.removeItem(at: directory) }
    }
}

/// What curl got back.
public struct CurlResult: Sendable {
    public var exitCode: Int32
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public var text: String { String(decoding: body, as: UTF8.self) }

    public func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: body)
        guard let dictionary = object as? [String: Any] else {
            throw TestFailure("expected a JSON object, got \(text)")
        }
        return dictionary
    }

    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: body)
    }

    /// The `message` of a JSON error body, whose `code` must match the status.
    public func errorMessage() throws -> String {
        let error = try decode(APIErrorBody.self)
        guard error.code == status else { throw TestFailure("error body code \(error.code) differs from status \(status)") }
        return error.message
    }
}

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Runs the real curl, the way merchants' scripts and other clients talk to servers.
/// Nothing blocks while curl runs: on Linux, Swift's cooperative pool and
/// Dispatch's global queues share threads, and the in-process sandbox needs
/// them to answer.
/// The environment as the test process started with it, read once. A child started without
/// an environment of its own has Foundation copy `environ` while other threads run; a test run
/// crashed there once (a bad pointer in Process.run's copy): children get this copy instead.
public let startEnvironment: [String: String] = ProcessInfo.processInfo.environment

public func curl(_ arguments: [String]) async throws -> CurlResult {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let bodyFile = scratch.appendingPathComponent("body")
    let headerFile = scratch.appendingPathComponent("headers")
    let statusFile = scratch.appendingPathComponent("status")
    guard FileManager.default.createFile(atPath: statusFile.path, contents: nil) else {
        throw TestFailure("cannot create \(statusFile.path)")
    }
    let statusHandle = try FileHandle(forWritingTo: statusFile)
    defer { try? statusHandle.close() }
    // A generous limit: the in-process sandbox runs unoptimised in debug test
    // builds (MultipartKit reads about 0.6 MB/s there, 40× below release), and
    // CI runs the whole suite at once on 2 cores. A lost answer is never what
    // a test means to wait for.
    let child = try ChildProcess("/usr/bin/env", ["curl", "-sS", "--max-time", "120", "-o", bodyFile.path, "-D", headerFile.path,
                                                  "-w", "%{http_code}"] + arguments,
                                 environment: startEnvironment, output: statusHandle.fileDescriptor)
    let exitCode = await child.ended()
    var headers: [String: String] = [:]
    if let raw = try? String(contentsOf: headerFile, encoding: .utf8) {
        for line in raw.split(whereSeparator: \.isNewline) {
            let pair = line.split(separator: ":", maxSplits: 1)
            if pair.count == 2 {
                headers[pair[0].lowercased()] = pair[1].trimmingCharacters(in: .whitespaces)
            }
        }
    }
    let statusText = (try? String(contentsOf: statusFile, encoding: .utf8)) ?? ""
    return CurlResult(exitCode: exitCode, status: Int(statusText) ?? 0,
                      headers: headers, body: (try? Data(contentsOf: bodyFile)) ?? Data())
}

/// A folder of files made by a test, removed by `cleanup`.
public struct Scratch {
    public let directory: URL

    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-files-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    public func write(_ bytes: [UInt8], named name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    public func cleanup() { try? FileManager.default.removeItem(at: directory) }
}

public enum Fixtures {
    /// A supplier's feed file: the columns code, title, cost, qty, photo; `markup` % on cost;
    /// the source at `source`; then `extra` (more sections).
    public static func feedText(source: String, markup: Int = 30, _ extra: String = "") -> String {
        """
        [columns]
        key = "code"
        name = "title"
        cost = "cost"
        stock = "qty"
        images = "photo"
        [prices]
        markup_percent = \(markup)
        [source]
        url = "\(source)"
        \(extra)
        """
    }

    /// A real JPEG made with TurboJPEG: a gradient with noise, so it compresses like a photo.
    public static func jpeg(width: Int = 640, height: Int = 480, quality: Int = 85, seed: UInt64 = 1) throws -> [UInt8] {
        var generator = SplitMix(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                let noise = Int(generator.next() % 48)
                pixels[i] = UInt8((x * 255 / max(1, width - 1) + noise) % 256)
                pixels[i + 1] = UInt8((y * 255 / max(1, height - 1) + noise) % 256)
                pixels[i + 2] = UInt8((x + y + noise) % 256)
            }
        }
        return try JPEGCodec().encode(PixelImage(width: width, height: height, channels: 3, pixels: pixels), quality: quality)
    }

    /// A valid JPEG padded after its end marker to exactly `size` bytes.
    public static func jpeg(exactly size: Int) throws -> [UInt8] {
        var bytes = try jpeg(width: 320, height: 240)
        precondition(bytes.count <= size)
        bytes += [UInt8](repeating: 0, count: size - bytes.count)
        return bytes
    }

    /// A small valid RGB PNG (uncompressed deflate blocks), written by hand so
    /// that the tests need no PNG library.
    public static func png(width: Int = 4, height: Int = 3) -> [UInt8] {
        var raw: [UInt8] = []
        for y in 0..<height {
            raw.append(0)
            for x in 0..<width { raw += [UInt8(x * 40 % 256), UInt8(y * 60 % 256), 200] }
        }
        // zlib stream of stored (uncompressed) deflate blocks, at most 65,535 bytes each.
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let length = min(65_535, raw.count - offset)
            let last: UInt8 = offset + length == raw.count ? 1 : 0
            let l = UInt16(length)
            zlib += [last, UInt8(l & 0xFF), UInt8(l >> 8), UInt8(~l & 0xFF), UInt8(~l >> 8)]
            zlib += raw[offset..<(offset + length)]
            offset += length
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        zlib += bigEndian((b << 16) | a)
        var ihdr = bigEndian(UInt32(width)) + bigEndian(UInt32(height))
        ihdr += [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", ihdr) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    private static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed))
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (0xEDB8_8320 & (0 &- (crc & 1))) }
        }
        return ~crc
    }
}

public struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Builds register requests with curl's `-F` form, as real clients send them.
public struct Register {
    public var sandbox: TestSandbox
    public var vendor: SandboxVendor
    public var params: [String: Any]
    public var images: [String]
    public var paramsType = "application/json"

    public init(_ sandbox: TestSandbox, vendor: SandboxVendor? = nil, name: String = "Test product",
         price: Double = 12000, images: [String]) {
        self.sandbox = sandbox
        self.vendor = vendor ?? sandbox.demo
        self.params = ["name": name, "description": "A product made by a test", "price": price,
                       "currency": "KRW", "discounted_price": 0, "stock": 1,
                       "secret": (vendor ?? sandbox.demo).secret]
        self.images = images
    }

    public func send(identifier: String? = nil, rawParams: String? = nil) async throws -> CurlResult {
        let json = try rawParams ?? jsonBody(params)
        var arguments = ["-H", "identifier: \(identifier ?? vendor.identifier)",
                         "-F", "params=\(json);type=\(paramsType)"]
        for image in images { arguments += ["-F", "images=@\(image)"] }
        return try await curl(arguments + ["\(sandbox.url)/api/products"])
    }
}

public func jsonBody(_ object: [String: Any]) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
}

/// Runs blocking work on a thread of its own (never on the cooperative pool,
/// which the in-process sandbox needs).
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs a tool with its output discarded and returns its exit status. Waits on the
/// termination handler, not `waitUntilExit` (which can spin on a cooperative-pool thread).
@discardableResult
public func runTool(_ path: String, _ arguments: [String], directory: URL? = nil) throws -> Int32 {
    try ChildProcess(path, arguments, environment: startEnvironment, directory: directory?.path).wait()
}

/// Runs a tool and returns its exit status and what it wrote (standard output and error together).
public func runToolOutput(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: file.path, contents: nil) else { throw TestFailure("cannot create \(file.path)") }
    defer { try? FileManager.default.removeItem(at: file) }
    let handle = try FileHandle(forWritingTo: file)
    defer { try? handle.close() }
    let status = try ChildProcess(path, arguments, environment: startEnvironment, output: handle.fileDescriptor, error: handle.fileDescriptor).wait()
    return (status, (try? String(contentsOf: file, encoding: .utf8)) ?? "")
}

public func client(_ sandbox: TestSandbox, _ vendor: SandboxVendor? = nil, transport: TransportSettings = TransportSettings()) throws -> OpenMarketClient {
    var configuration = ClientConfiguration(
        server: sandbox.server.url,
        credentials: vendor.map { VendorCredentials(identifier: $0.identifier, secret: $0.secret) })
    configuration.transport = transport
    configuration.generation = sandbox.server.configuration.api == .v2021 ? .v2021
        : sandbox.server.configuration.api == .v2022January ? .v2022January : .v2022October
    return try OpenMarketClient(configuration)
}

/// One product registered straight through the API as the demo vendor, with a small photo: a
/// product another tool made, which openmarket's links know nothing of.
public func registeredElsewhere(_ sandbox: TestSandbox, name: String, description: String = "", price: Money = 1000,
                                stock: Int = 1, seed: UInt64 = 1) async throws -> ProductDetail {
    let vendor = try client(sandbox, sandbox.demo)
    let photo = UploadImage(data: Data(try Fixtures.jpeg(width: 40, height: 30, seed: seed)), filename: "p.jpg", mimeType: "image/jpeg")
    return try await blocking {
        try vendor.register(Product(name: name, description: description, price: price, currency: "KRW", stock: stock), images: [photo])
    }
}

/// Registers `count` products for `vendor` on 4 threads; returns their ids.
public func seed(_ sandbox: TestSandbox, _ vendor: SandboxVendor, count: Int, prefix: String = "Seeded",
          images: Int = 1) async throws -> [Int] {
    let writer = try client(sandbox, vendor)
    let photos = try (0..<images).map { try Fixtures.jpeg(width: 24, height: 16, seed: UInt64($0 + 1)) }
    return try await blocking {
        final class Results: @unchecked Sendable {
            var ids: [Int] = []
            var failure: (any Error)?
        }
        let lock = NSLock()
        let results = Results()
        let group = DispatchGroup()
        for worker in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                for i in stride(from: worker, to: count, by: 4) {
                    do {
                        let product = try writer.register(
                            Product(name: "\(prefix) \(i)", description: "seeded \(i)", price: Money(1000 + i), currency: "KRW",
                                       discountedPrice: 0, stock: i % 5),
                            images: photos.map { UploadImage(data: Data($0), filename: "p.jpg", mimeType: "image/jpeg") })
                        lock.lock(); results.ids.append(product.id); lock.unlock()
                    } catch {
                        lock.lock(); results.failure = error; lock.unlock()
                        return
                    }
                }
            }.start()
        }
        group.wait()
        if let failure = results.failure { throw failure }
        return results.ids.sorted()
    }
}


/// ImageMagick's `convert` (from Debian), which writes HEIC and WebP as merchants' tools do.
public enum ImageMagick {
    public struct Failed: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `convert arguments…`; throws with its error output when it fails.
    public static func convert(_ arguments: [String]) throws {
        let errors = Pipe()
        let child = try ChildProcess("/usr/bin/env", ["convert"] + arguments, environment: startEnvironment,
                                     error: errors.fileHandleForWriting.fileDescriptor)
        try errors.fileHandleForWriting.close()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard let status = child.wait(seconds: 120) else {
            child.signal(SIGKILL)  // it inherits a test thread's blocked SIGTERM
            throw Failed(description: "convert \(arguments.joined(separator: " ")): still running after 120 s")
        }
        guard status == 0 else {
            throw Failed(description: "convert \(arguments.joined(separator: " ")): exit \(status): \(text)")
        }
    }
}

/// A sheet of `count` products (`K1`…, `Item number 1`…, KRW, every third discounted), each
/// with the same small photo `p.jpg` beside it, in `files`; returns its URL.
public func writeManifest(_ files: Scratch, rows count: Int, name: String = "products.csv", prefix: String = "Item") throws -> URL {
    _ = try files.write(Fixtures.jpeg(width: 48, height: 36), named: "p.jpg")
    var csv = "key,name,price,currency,discounted_price,stock,images\n"
    for i in 1...count {
        csv += "K\(i),\(prefix) number \(i),\(1000 + i),KRW,\(i % 3 == 0 ? 100 : 0),\(i % 7),p.jpg\n"
    }
    let url = files.directory.appendingPathComponent(name)
    try Data(csv.utf8).write(to: url)
    return url
}

/// An address on this machine where nothing answers, held so for as long as this lives: a TCP
/// socket bound to a port and never listening, so that a connection is refused and no server
/// another test starts meanwhile can take the port (a stopped sandbox's port was, once, and
/// a test that meant "the server is gone" read another test's shop).
public final class RefusingAddress: @unchecked Sendable {
    public let url: URL
    private let descriptor: Int32

    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else {
            close(descriptor)
            throw TestFailure("bind: \(errno)")
        }
        self.descriptor = descriptor
        url = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
    }

    deinit { close(descriptor) }
}
