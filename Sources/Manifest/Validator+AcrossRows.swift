import Foundation

/// The rules across rows: a key used twice is an error, a name used twice a warning (an error
/// where the name says which product a row is). Applied on the one thread that takes the rows
/// in file order.
extension ManifestValidator {
    /// The slots of a piece's keys and names read ahead, before `acrossRows` takes its rows
    /// one by one (on the same thread): at a million rows each look-up waited for memory.
    func warm(_ hashes: [UInt64]) {
        var sum: UInt32 = 0
        var index = 0
        while index + 1 < hashes.count {
            sum &+= keys.warm(hashes[index]) &+ names.warm(hashes[index + 1])
            index += 2
        }
        warmed &+= sum
    }

    /// The rules across rows (a key used twice is an error, a name used twice a
    /// warning), applied in row order. Not thread-safe: one caller, in order.
    func acrossRows(_ check: consuming RowCheck, row: Int) -> (draft: ProductDraft?, issues: [RowIssue]) {
        // Moved out, not copied (a copy retained each of the draft's texts and released them again).
        var issues: [RowIssue] = []
        var draft: ProductDraft?
        swap(&issues, &check.issues)
        swap(&draft, &check.draft)
        var inserted = 0
        if check.key != nil {
            // Keys that differ only in letter case or leading zeros (`00120`, `120` once Excel
            // read it as a number) would be one product on the next run: they collide here.
            let hash = check.keyHash
            if let first = keys.first(hash, else: Int32(clamping: row)) {
                issues.insert(RowIssue(file: file, row: row, column: Column.key.rawValue, value: check.key, severity: .error, rule: "key-duplicate",
                                       message: "the same key as row \(first) (keys are compared without letter case and leading zeros); each row needs its own key"), at: 0)
                inserted = 1
                draft = nil
            }
        }
        if check.name != nil {
            // A name twice is a warning (two products may share one), but between two rows
            // without a key or id it is an error: there the name says which product a row is,
            // so the second would make a second product of it. A negative row: the first row
            // of the name that had neither.
            let hash = check.nameHash
            let here = Int32(clamping: row)
            if let seen = names.first(hash, else: check.nameIsIdentity ? -here : here) {
                let collides = check.nameIsIdentity && seen < 0
                let message = collides
                    ? "the same name as row \(-seen), and the row has no key: the name is what says which product it is, so two rows cannot have it; add a key column (sku) to tell them apart, or remove one"
                    : "the same name as row \(abs(seen)); the server allows it, but check it is not a mistake"
                issues.insert(RowIssue(file: file, row: row, column: Column.name.rawValue, value: check.name,
                                       severity: collides ? .error : .warning, rule: "name-duplicate", message: message),
                              at: min(issues.count, check.nameIssueIndex + inserted))
                if collides { draft = nil }
                if check.nameIsIdentity && seen > 0 { names.replace(hash, with: -here) }
            }
        }
        return (draft, issues)
    }
}
