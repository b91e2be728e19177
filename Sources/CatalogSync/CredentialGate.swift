import Foundation
import OpenMarketAPI
import Support

/// The first write of a run whose credentials could not be checked before it (a server
/// that answers a wrong secret as a right one until something is written) goes alone: the
/// other workers wait for its answer, so that a refused secret costs one upload, not one per
/// worker. A 401 or 403 to any write stops the run (exit 3): every row after it is not sent.
final class CredentialGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var open: Bool
    private var writing = false
    let stopping: StopSignal

    init(checked: Bool, stopping: StopSignal) {
        open = checked
        self.stopping = stopping
    }

    /// Runs `write`: alone while no write has been answered yet, else at once.
    func pass<T>(_ write: () throws(OpenMarketError) -> T) throws(OpenMarketError) -> T {
        condition.lock()
        while !open && writing { condition.wait() }
        let first = !open
        if first { writing = true }
        condition.unlock()
        if !first, let reason = stopping.reason {
            throw .invalidRequest("not sent: \(reason)")
        }
        defer {
            if first {
                condition.lock()
                open = true
                writing = false
                condition.broadcast()
                condition.unlock()
            }
        }
        do {
            return try write()
        } catch {
            refused(error)
            throw error
        }
    }

    /// A write refused for its credentials stops the run: no other request is sent.
    private func refused(_ error: OpenMarketError) {
        guard let status = error.status else { return }
        if (300..<400).contains(status) {
            stopping.stop(AccountState.redirected(status, nil).description, cause: .unreachable)
            return
        }
        guard status == 401 || status == 403 else { return }
        stopping.stop("the server refused the credentials at the first write (HTTP \(status): \(error)); nothing more was sent. Check the identifier and the secret, then run again",
                      cause: .unreachable)
    }
}
