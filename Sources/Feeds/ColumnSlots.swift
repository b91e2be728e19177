import Foundation
import Manifest

/// A feed's references to the supplier's columns compiled once for one file (`BoundFeed`):
/// every `HeaderRef` a row reads becomes `.slot(place, ref)`, so that each row reads its cells
/// by their place in the row. Before, every cell a value, a test or a price rule read was
/// looked up by its header's text in a dictionary, hashing the text (NFC-normalised: the
/// headers are Korean) for every cell of every row: a platform's file was read 5.9 times
/// slower than the same rows in our own columns (issue 80).
///
/// The specs keep their shape and their names (a message says the column as the map names
/// it), so what a row becomes is decided by the same code as before.
struct ColumnSlots {
    let resolved: [HeaderRef: Int]

    /// The column's place in the file's rows, or nil when the file does not have it.
    func index(_ ref: HeaderRef) -> Int? {
        if case .slot(let place, _) = ref { return place >= 0 ? place : nil }
        return resolved[ref]
    }

    func slot(_ ref: HeaderRef) -> HeaderRef {
        if case .slot = ref { return ref }
        return .slot(resolved[ref] ?? -1, ref)
    }

    func slot(_ spec: ValueSpec) -> ValueSpec {
        switch spec {
        case .column(let ref): return .column(slot(ref))
        case .text: return spec
        case .template(let parts):
            return .template(parts.map { part in
                if case .field(let ref) = part { return .field(slot(ref)) }
                return part
            })
        case .first(let list): return .first(list.map(slot))
        case .choice(var choice):
            choice.value = slot(choice.value)
            switch choice.test {
            case .above(let ref): choice.test = .above(slot(ref))
            case .below(let ref): choice.test = .below(slot(ref))
            case .set(let ref): choice.test = .set(slot(ref))
            }
            choice.otherwise = choice.otherwise.map(slot)
            return .choice(choice)
        case .mapped(let inner, let map): return .mapped(slot(inner), map)
        case .percent(var percent):
            percent.value = slot(percent.value)
            percent.unit = slot(percent.unit)
            percent.base = slot(percent.base)
            return .percent(percent)
        }
    }

    func slot(_ test: CellTest) -> CellTest {
        var test = test
        test.source = slot(test.source)
        return test
    }

    func slot(_ policy: PricePolicy) -> PricePolicy {
        var policy = policy
        for index in policy.rules.indices { policy.rules[index].when = policy.rules[index].when.map(slot) }
        return policy
    }

    /// A row's cell by a (slotted) reference, trimmed; "" when the file or the row has none.
    func cell(_ cells: [String], _ ref: HeaderRef) -> String {
        guard let index = index(ref), index < cells.count else { return "" }
        return ManifestValidator.trimmed(cells[index])
    }
}
