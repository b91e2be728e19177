import Foundation

/// The rows that had each key's or name's hash first (`ManifestValidator.acrossRows`): an open
/// table of 64-bit hashes and 32-bit rows, probed linearly.
///
/// The hashes are FNV-1a of the text already: a `[UInt64: Int32]` hashed each of them again
/// with SipHash, on the one thread that takes every row in order, and kept hashes and rows in
/// two places. Here a slot is the hash and its row side by side in 12 bytes, and a row is
/// looked up and remembered in one probe (`first(_:else:)`): at a million rows, each probe is
/// a wait for memory, and that thread's time went mostly to them.
///
/// Owned by one validator and used on one thread: a class, so that the table is never copied.
final class RowHashes {
    /// Three words a slot: the hash's low and high halves, the row. A hash of 0 marks an empty slot.
    private var words: TableWords
    private var mask: Int
    /// The row of the hash 0, which cannot be stored in a slot.
    private var zeroRow: Int32?
    private(set) var count = 0

    init(capacity: Int = 0) {
        let slots = Self.slots(for: capacity)
        words = TableWords(count: slots * 3)
        mask = slots - 1
    }

    private var slotCount: Int { mask + 1 }

    /// A power of two at least 4/3 of `capacity` (at most 3/4 full).
    private static func slots(for capacity: Int) -> Int {
        var slots = 16
        while slots * 3 < capacity * 4 { slots <<= 1 }
        return slots
    }

    /// Room for `capacity` hashes without growing.
    func reserve(_ capacity: Int) {
        let slots = Self.slots(for: capacity)
        if slots > slotCount { grow(to: slots) }
    }

    /// The row remembered for `hash`; nil (and `row` remembered for it) when it is new.
    func first(_ hash: UInt64, else row: Int32) -> Int32? {
        if hash == 0 {
            if let zeroRow { return zeroRow }
            zeroRow = row
            count += 1
            return nil
        }
        let low = UInt32(truncatingIfNeeded: hash), high = UInt32(truncatingIfNeeded: hash >> 32)
        let words = self.words.pointer
        var slot = Self.start(hash, mask)
        let found: Int32?
        while true {
            let at = slot * 3
            if words[at] == low && words[at + 1] == high { found = Int32(bitPattern: words[at + 2]); break }
            if words[at] == 0 && words[at + 1] == 0 {
                words[at] = low
                words[at + 1] = high
                words[at + 2] = UInt32(bitPattern: row)
                found = nil
                break
            }
            slot = (slot + 1) & mask
        }
        if found == nil {
            count += 1
            if count * 4 > slotCount * 3 { grow(to: slotCount * 2) }
        }
        return found
    }

    /// Reads the slot `hash` is looked for from, so that it is in the memory caches when
    /// `first` asks for it: a piece's rows are warmed together before they are taken one by one,
    /// their waits for memory overlapping instead of coming one after another.
    func warm(_ hash: UInt64) -> UInt32 {
        words.pointer[Self.start(hash, mask) * 3]
    }

    /// Changes the row remembered for a hash already in.
    func replace(_ hash: UInt64, with row: Int32) {
        if hash == 0 {
            if zeroRow != nil { zeroRow = row }
            return
        }
        let low = UInt32(truncatingIfNeeded: hash), high = UInt32(truncatingIfNeeded: hash >> 32)
        let words = self.words.pointer
        var slot = Self.start(hash, mask)
        while true {
            let at = slot * 3
            if words[at] == low && words[at + 1] == high { words[at + 2] = UInt32(bitPattern: row); return }
            if words[at] == 0 && words[at + 1] == 0 { return }
            slot = (slot + 1) & mask
        }
    }

    /// The slot a hash is looked for from: its bits mixed, the high ones taken (FNV's low
    /// bits vary least for texts that differ in their last letter only).
    private static func start(_ hash: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: (hash &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private func grow(to slots: Int) {
        let old = words.pointer, oldCount = words.count
        let larger = TableWords(count: slots * 3)
        let words = larger.pointer
        mask = slots - 1
        for at in stride(from: 0, to: oldCount, by: 3) where old[at] != 0 || old[at + 1] != 0 {
            let hash = UInt64(old[at]) | UInt64(old[at + 1]) << 32
            var slot = Self.start(hash, mask)
            while words[slot * 3] != 0 || words[slot * 3 + 1] != 0 { slot = (slot + 1) & mask }
            words[slot * 3] = old[at]
            words[slot * 3 + 1] = old[at + 1]
            words[slot * 3 + 2] = old[at + 2]
        }
        self.words = larger
    }
}

/// Zeroed words for a `RowHashes` table, from the kernel on 2 MB pages once the table is that
/// large: at a million rows the two tables are 50 MB read at random, and on 4 KB pages nearly
/// every look-up missed the address cache (TLB) as well as the memory caches.
final class TableWords {
    let pointer: UnsafeMutablePointer<UInt32>
    let count: Int
    /// The mapping to give back (nil: allocated by the allocator).
    private let mapping: (start: UnsafeMutableRawPointer, bytes: Int)?

    init(count: Int) {
        self.count = count
        let bytes = count * MemoryLayout<UInt32>.stride
        let page = 2 << 20
        if bytes >= page {
            // A page more than needed, to start on a 2 MB boundary (where a huge page can be).
            let mapped = (bytes + page - 1) / page * page + page
            if let start = mmap(nil, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), start != MAP_FAILED {
                let aligned = (Int(bitPattern: start) + page - 1) / page * page
                let base = UnsafeMutableRawPointer(bitPattern: aligned)!
                _ = madvise(base, mapped - (aligned - Int(bitPattern: start)), MADV_HUGEPAGE)
                pointer = base.bindMemory(to: UInt32.self, capacity: count)
                mapping = (start, mapped)
                return
            }
        }
        pointer = .allocate(capacity: max(count, 1))
        pointer.initialize(repeating: 0, count: count)
        mapping = nil
    }

    deinit {
        if let mapping { munmap(mapping.start, mapping.bytes) } else { pointer.deallocate() }
    }
}
