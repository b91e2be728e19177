import Foundation
import Support

/// S3 on 127.0.0.1: moto's server (PyPI `moto[server]`: scripts/install-deps) with its
/// authentication on, so a request signed wrongly is refused as AWS refuses it
/// (SignatureDoesNotMatch). The first calls, unauthenticated, make a user with a key and a
/// policy allowing S3; every later request must carry that key's signature.
public final class TestS3: @unchecked Sendable {
    public let port: Int
    public let accessKey: String
    public let secretKey: String
    private let process: ChildProcess

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The environment a command needs to reach it (AWS_* as every S3 tool reads them).
    public var environment: [String: String] {
        ["AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey, "AWS_REGION": "us-east-1"]
    }

    private init(port: Int, accessKey: String, secretKey: String, process: ChildProcess) {
        self.port = port
        self.accessKey = accessKey
        self.secretKey = secretKey
        self.process = process
    }

    /// Started off the cooperative threads; `buckets` made with the user's key.
    public static func start(buckets: [String]) async throws -> TestS3 { try await blocking { try startBlocking(buckets: buckets) } }

    public func stop() async { _ = try? await blocking { [self] in stopBlocking() } }

    static func startBlocking(buckets: [String]) throws -> TestS3 {
        guard let server = ["/usr/local/bin/moto_server", "/root/.pyenv/shims/moto_server", "/usr/bin/moto_server"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) ?? findInPath("moto_server") else {
            throw TestFailure("no moto_server: run scripts/install-deps --tests (moto[server] from PyPI)")
        }
        let port = try LocalPorts.free()
        var environment = ProcessInfo.processInfo.environment
        // The four setup calls below go unauthenticated; everything after is checked.
        environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "4"
        let process = try ChildProcess(server, ["-H", "127.0.0.1", "-p", String(port)], environment: environment)
        // Python starting boto under a full test run on 2 cores: seconds; 30 at most.
        let deadline = Date().addingTimeInterval(30)
        while !LocalPorts.canConnect(port) && Date() < deadline { Thread.sleep(forTimeInterval: 0.025) }
        guard LocalPorts.canConnect(port) else {
            process.terminate()
            throw TestFailure("moto_server did not listen on \(port)")
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/lib/s3-setup.py")
        let result = try runToolOutput("/usr/bin/env", ["python3", script.path, "http://127.0.0.1:\(port)"] + buckets)
        let words = result.output.split(whereSeparator: \.isWhitespace).map(String.init)
        guard result.status == 0, words.count >= 2 else {
            process.terminate()
            throw TestFailure("moto setup failed (\(result.status)): \(result.output)")
        }
        return TestS3(port: port, accessKey: words[words.count - 2], secretKey: words[words.count - 1], process: process)
    }

    /// Object keys under `prefix` in `bucket` (boto3, signed).
    /// Off the cooperative threads: waiting on a child there has hung the suite.
    public func keys(_ bucket: String, prefix: String = "") async throws -> [String] {
        try await blocking { [self] in try keysBlocking(bucket, prefix: prefix) }
    }

    func keysBlocking(_ bucket: String, prefix: String) throws -> [String] {
        let list = """
            import boto3, sys
            s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])
            # moto refuses the signature of a listing whose prefix has a slash: filtered here.
            for page in s3.get_paginator("list_objects_v2").paginate(Bucket=sys.argv[4]):
                for item in page.get("Contents", []):
                    if item["Key"].startswith(sys.argv[5]): print(item["Key"])
            """
        let result = try runToolOutput("/usr/bin/env", ["python3", "-c", list, endpoint, accessKey, secretKey, bucket, prefix])
        guard result.status == 0 else { throw TestFailure("listing \(bucket) failed: \(result.output)") }
        return result.output.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Uploads every file of `folder` (not its subfolders) as `prefix/NAME` in `bucket` (boto3, signed).
    public func upload(_ folder: URL, to bucket: String, prefix: String) async throws {
        try await blocking { [self] in try uploadBlocking(folder, to: bucket, prefix: prefix) }
    }

    func uploadBlocking(_ folder: URL, to bucket: String, prefix: String) throws {
        let script = """
            import boto3, os, sys
            s3 = boto3.client("s3", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id=sys.argv[2], aws_secret_access_key=sys.argv[3])
            for name in sorted(os.listdir(sys.argv[5])):
                path = os.path.join(sys.argv[5], name)
                if os.path.isfile(path): s3.upload_file(path, sys.argv[4], sys.argv[6] + "/" + name)
            """
        let result = try runToolOutput("/usr/bin/env", ["python3", "-c", script, endpoint, accessKey, secretKey, bucket, folder.path, prefix])
        guard result.status == 0 else { throw TestFailure("uploading to \(bucket) failed: \(result.output)") }
    }

    public func stopBlocking() {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<200 where process.isRunning { Thread.sleep(forTimeInterval: 0.025) }
        if process.isRunning { process.signal(SIGKILL) }
    }

    private static func findInPath(_ tool: String) -> String? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { "\($0)/\(tool)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
