import Support
import Testing

/// The map a run keeps per product or key: it must answer as a dictionary does, whatever
/// mix of sets, changes and removals came before or after a merge.
@Suite("A map held as sorted arrays")
struct CompactMapTests {
    /// A small deterministic generator, so that a failure can be replayed.
    struct Steps: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state >> 11
        }
    }

    @Test("40,000 random sets, changes and removals answer as a dictionary does, before and after each merge; iteration is in key order")
    func likeADictionary() {
        var steps = Steps(state: 68)
        var map = CompactMap<Int, Int>()
        var model: [Int: Int] = [:]
        for step in 0..<40_000 {
            let key = Int.random(in: 0..<6_000, using: &steps)
            switch Int.random(in: 0..<10, using: &steps) {
            case 0..<6:
                map[key] = step
                model[key] = step
            case 6..<8:
                map[key] = nil
                model[key] = nil
            default:
                #expect(map[key] == model[key], "step \(step), key \(key)")
            }
            if step % 9_000 == 0 { map.compact() }
            if step % 5_000 == 0 {
                #expect(map.count == model.count, "step \(step)")
                #expect(map.map(\.key) == model.keys.sorted(), "step \(step)")
                #expect(map.map(\.value) == model.keys.sorted().map { model[$0]! }, "step \(step)")
            }
        }
        for key in 0..<6_000 { #expect(map[key] == model[key], "key \(key)") }
        map.compact()
        #expect(map.count == model.count)
        #expect(Array(map.map(\.key)) == model.keys.sorted())
        for key in 0..<6_000 { #expect(map[key] == model[key] && map.contains(key) == (model[key] != nil), "key \(key)") }
    }

    @Test("A key removed after a merge stays removed, set again comes back; removing what is not there changes nothing")
    func removals() {
        var map = CompactMap<String, Int>()
        for i in 0..<1_000 { map["K\(i)"] = i }
        map.compact()
        map["K5"] = nil
        map["K5"] = nil
        map["nothing"] = nil
        #expect(map["K5"] == nil && map.count == 999)
        #expect(!map.allKeys.contains("K5") && !map.allKeys.contains("nothing"))
        map.compact()
        #expect(map["K5"] == nil && map.count == 999 && map.allKeys.count == 999)
        map["K5"] = 55
        #expect(map["K5"] == 55 && map.count == 1_000)
        map["K6"] = 66
        #expect(map["K6"] == 66 && map.count == 1_000)
        map.compact()
        #expect(map["K5"] == 55 && map["K6"] == 66 && map.count == 1_000)
    }

    @Test("A key is one key however its letters are composed, as in a dictionary; Korean and emoji keys sort and find")
    func canonicalKeys() {
        var map = CompactMap<String, Int>()
        map["Caf\u{E9}"] = 1
        map.compact()
        map["Cafe\u{301}"] = 2
        #expect(map.count == 1 && map["Caf\u{E9}"] == 2)
        for (i, key) in ["녹차", "🍵 tea", "홍차-001", "A", "a", ""].enumerated() { map[key] = 10 + i }
        map.compact()
        #expect(map["녹차"] == 10 && map["🍵 tea"] == 11 && map["홍차-001"] == 12 && map[""] == 15 && map["Cafe\u{301}"] == 2)
        #expect(map.allKeys == map.allKeys.sorted() && map.count == 7)
    }
}
