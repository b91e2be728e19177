import Foundation
import Testing
import TestSupport

/// `deploy/kubernetes/`: the manifests pass `kubernetes-validate --strict` (the API's schemas),
/// and our own checks of what it does not look at: the enum values, the schedule and time zone,
/// and that every option a container passes is one `openmarket` has.
@Suite("The Kubernetes manifests")
struct DeployManifestTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("deploy/kubernetes")

    static var files: [URL] {
        ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.pathExtension == "yaml" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// Every document of every manifest, as JSON objects (PyYAML, which kubernetes-validate brings).
    static func documents() throws -> [[String: Any]] {
        let script = "import json, sys, yaml\nprint(json.dumps([d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f)) if d]))"
        let result = try runToolOutput("/usr/bin/env", ["python3", "-c", script] + files.map(\.path))
        guard result.status == 0, let parsed = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]] else {
            throw TestFailure("the manifests do not read as YAML: \(result.output)")
        }
        return parsed
    }

    @Test("kubernetes-validate --strict passes every manifest")
    func validates() throws {
        #expect(Self.files.count >= 4)
        for file in Self.files {
            let result = try runToolOutput("/usr/bin/env", ["kubernetes-validate", "--strict", "--quiet", file.path])
            #expect(result.status == 0, "\(file.lastPathComponent): \(result.output) (kubernetes-validate comes from scripts/install-deps --tests)")
        }
    }

    @Test("what the schema check misses: enum values, the schedule and its time zone, the shard count, and every option is openmarket's")
    func ownChecks() async throws {
        let documents = try Self.documents()
        let jobs = documents.filter { ["Job", "CronJob"].contains($0["kind"] as? String) }
        #expect(jobs.count == 2)
        for document in jobs {
            let name = (document["metadata"] as? [String: Any])?["name"] as? String ?? "?"
            var job = document["spec"] as? [String: Any] ?? [:]
            if document["kind"] as? String == "CronJob" {
                let schedule = job["schedule"] as? String ?? ""
                #expect(schedule.split(separator: " ").count == 5, "\(name): schedule \(schedule)")
                #expect(["Allow", "Forbid", "Replace"].contains(job["concurrencyPolicy"] as? String ?? ""), "\(name)")
                let zone = job["timeZone"] as? String ?? ""
                #expect(TimeZone(identifier: zone) != nil, "\(name): time zone \(zone)")
                job = ((job["jobTemplate"] as? [String: Any])?["spec"] as? [String: Any]) ?? [:]
            }
            if let mode = job["completionMode"] as? String { #expect(["Indexed", "NonIndexed"].contains(mode), "\(name)") }
            for rule in ((job["podFailurePolicy"] as? [String: Any])?["rules"] as? [[String: Any]]) ?? [] {
                #expect(["FailJob", "FailIndex", "Ignore", "Count"].contains(rule["action"] as? String ?? ""), "\(name): \(rule)")
                if let codes = rule["onExitCodes"] as? [String: Any] {
                    #expect(["In", "NotIn"].contains(codes["operator"] as? String ?? ""), "\(name): \(codes)")
                    // Codes openmarket gives (2 bad input, 4 held, 5 busy): documented, not invented.
                    #expect((codes["values"] as? [Int] ?? []).allSatisfy { [1, 2, 3, 4, 5, 6].contains($0) }, "\(name): \(codes)")
                }
            }
            let pod = ((job["template"] as? [String: Any])?["spec"] as? [String: Any]) ?? [:]
            #expect(["Never", "OnFailure"].contains(pod["restartPolicy"] as? String ?? ""), "\(name)")
            for container in pod["containers"] as? [[String: Any]] ?? [] {
                let args = container["args"] as? [String] ?? []
                let command = Array(args.prefix { !$0.hasPrefix("-") && !$0.hasPrefix("/") })
                let help = try await CLIProcess.run(command + ["--help"])
                #expect(help.status == 0, "\(name): openmarket \(command.joined(separator: " ")) is not a command")
                for option in args where option.hasPrefix("--") {
                    #expect(help.stdout.contains(option), "\(name): openmarket \(command.joined(separator: " ")) has no \(option)")
                }
                if let shard = args.firstIndex(of: "--shard").map({ args[$0 + 1] }) {
                    #expect(shard == "$(JOB_COMPLETION_INDEX)/\(job["completions"] as? Int ?? 0)", "\(name): --shard \(shard) against completions")
                    #expect(job["completionMode"] as? String == "Indexed", "\(name): JOB_COMPLETION_INDEX needs an Indexed Job")
                }
            }
        }
    }

    @Test("the manifests run the image the project builds: openmarket:<version>, and its runtime packages are one list the Containerfile and --root both read")
    func image() throws {
        let package = Self.folder.deletingLastPathComponent().deletingLastPathComponent()
        let version = try String(contentsOf: package.appendingPathComponent("Sources/OpenMarketAPI/Version.swift"), encoding: .utf8)
            .firstMatch(of: /static let tool = "([^"]+)"/).map { String($0.1) }
        let images = try Self.documents().flatMap { document -> [String] in
            var spec = document["spec"] as? [String: Any] ?? [:]
            if let template = spec["jobTemplate"] as? [String: Any] { spec = template["spec"] as? [String: Any] ?? [:] }
            let pod = ((spec["template"] as? [String: Any])?["spec"] as? [String: Any]) ?? [:]
            return (pod["containers"] as? [[String: Any]] ?? []).compactMap { $0["image"] as? String }
        }
        #expect(images.count == 2 && images.allSatisfy { $0 == "openmarket:\(version ?? "?")" }, "\(images)")
        let containerfile = try String(contentsOf: package.appendingPathComponent("deploy/Containerfile"), encoding: .utf8)
        let script = try String(contentsOf: package.appendingPathComponent("scripts/build-image"), encoding: .utf8)
        #expect(containerfile.contains("deploy/runtime-packages.txt") && script.contains("deploy/runtime-packages.txt"))
        #expect(!containerfile.contains("apt-get install -y --no-install-recommends lib"), "no package named outside the list")
        let listed = try runToolOutput(package.appendingPathComponent("scripts/build-image").path, ["--list"])
        #expect(listed.status == 0 && listed.output.contains("libturbojpeg0") && listed.output.contains("libpq5"), "\(listed.output)")
    }
}
