import Foundation

/// Group commit: callers that want their item made durable at about the same moment share
/// one commit. The first caller commits what is waiting; those who arrive meanwhile wait and
/// are committed together by the next one. Each caller returns once a commit that holds its
/// item is done (or throws that commit's error).
public final class GroupCommit<Item>: @unchecked Sendable {
    private let condition = NSCondition()
    private var waiting: [(item: Item, ticket: Int)] = []
    private var outcomes: [Int: (any Error)?] = [:]
    private var committing = false
    private var tickets = 0

    public init() {}

    public func submit(_ item: Item, commit: ([Item]) throws -> Void) throws {
        condition.lock()
        tickets += 1
        let mine = tickets
        waiting.append((item, mine))
        while true {
            if let outcome = outcomes.removeValue(forKey: mine) {
                condition.unlock()
                if let error = outcome { throw error }
                return
            }
            if !committing {
                committing = true
                let batch = waiting
                waiting = []
                condition.unlock()
                var failure: (any Error)?
                do { try commit(batch.map(\.item)) } catch { failure = error }
                condition.lock()
                for entry in batch { outcomes[entry.ticket] = failure }
                committing = false
                condition.broadcast()
                continue
            }
            condition.wait()
        }
    }
}
