// Drives OpenMarketClient for the client throughput benchmark:
//   openmarket-bench-client URL IDS_FILE WORKERS REQUESTS
// GETs /api/products/{id} for ids taken in turn from IDS_FILE, with WORKERS
// threads sharing one client, and prints "requests seconds connections".
import Foundation
import OpenMarketAPI

let arguments = CommandLine.arguments
guard arguments.count == 5, let server = URL(string: arguments[1]), let workers = Int(arguments[3]),
      let total = Int(arguments[4]) else {
    FileHandle.standardError.write(Data("usage: openmarket-bench-client URL IDS_FILE WORKERS REQUESTS\n".utf8))
    exit(2)
}
let ids = try String(contentsOfFile: arguments[2], encoding: .utf8).split(separator: "\n").compactMap { Int($0) }
let client = try OpenMarketClient(ClientConfiguration(server: server))
let next = NSLock()
nonisolated(unsafe) var issued = 0
nonisolated(unsafe) var failures = 0
let done = DispatchGroup()
let start = Date()
for _ in 0..<workers {
    done.enter()
    let thread = Thread {
        while true {
            next.lock()
            let index = issued
            issued += 1
            next.unlock()
            guard index < total else { break }
            do { _ = try client.product(id: ids[index % ids.count]) } catch {
                next.lock(); failures += 1; next.unlock()
            }
        }
        done.leave()
    }
    thread.start()
}
done.wait()
let seconds = Date().timeIntervalSince(start)
print("\(total - failures) \(seconds) \(client.statistics.connections)")
if failures > 0 { exit(1) }
