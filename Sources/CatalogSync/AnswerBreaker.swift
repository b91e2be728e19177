import Foundation
import OpenMarketAPI
import Support
import Words

/// Stops a run whose server stopped answering: after `limit` writes in a row ended with no
/// answer (their retries spent, or a register's answer lost and the product not listed), no
/// other write is sent; the rows after them are reported not sent, the rows in doubt unknown
/// (the next run looks for them first). Any answer, a refusal included, starts the count again.
/// Without it, a dead server cost every row its retries (about 36 s × 3 each).
final class AnswerBreaker: @unchecked Sendable {
    /// Writes in a row with no answer that stop the run: the first wave of workers, about.
    static let limit = 3

    private let lock = NSLock()
    private var silentInARow = 0
    private let stopping: StopSignal

    init(stopping: StopSignal) { self.stopping = stopping }

    /// A write the server answered (done, or refused in words).
    func answered() { lock.withLock { silentInARow = 0 } }

    /// How a write ended: a failure with no answer counts, any other starts again.
    func ended(_ error: OpenMarketError) {
        if error.isNoAnswer { silent(error.description) } else { answered() }
    }

    /// A write that ended with no answer (`why`: the last error).
    func silent(_ why: String) {
        let tripped = lock.withLock { () -> Int? in
            silentInARow += 1
            return silentInARow >= Self.limit ? silentInARow : nil
        }
        guard let count = tripped else { return }
        let reason = Phrase("stop:silent", String(count), why)
        stopping.stop(reason.text(.en), cause: .unreachable, said: (reason.key, reason.values))
    }
}
