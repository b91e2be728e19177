import Foundation
import Support

extension Journal.Entry {
    /// A line as `Journal.record` writes it (one flat JSON object), read without `JSONDecoder`:
    /// a re-run opens the journal of every row the sheet ever sent (40,000 lines after a first
    /// import of 20,000), and decoding them was a tenth of an unchanged re-run's CPU. Nil for
    /// anything else — an unknown field, a nested value, a number that is not one — which the
    /// decoder then reads as before.
    init?(line: Data) {
        var event: Event?, key: String?, hash: String?, row: Int?, time: Double?, id: Int?, error: String?
        let read = line.withUnsafeBytes { raw -> Bool in
            var text = FlatJSON(raw)
            guard text.take(UInt8(ascii: "{")) else { return false }
            if text.take(UInt8(ascii: "}")) { return text.atEnd }
            repeat {
                guard let name = text.string(), text.take(UInt8(ascii: ":")) else { return false }
                switch name {
                case "event":
                    guard let value = text.string(), let known = Event(rawValue: value) else { return false }
                    event = known
                case "key": guard let value = text.string() else { return false }; key = value
                case "hash": guard let value = text.string() else { return false }; hash = value
                case "row": guard let value = text.integer() else { return false }; row = value
                case "time": guard let value = text.number() else { return false }; time = value
                case "id":
                    if text.null() { id = nil } else { guard let value = text.integer() else { return false }; id = value }
                case "error":
                    if text.null() { error = nil } else { guard let value = text.string() else { return false }; error = value }
                default: return false
                }
            } while text.take(UInt8(ascii: ","))
            return text.take(UInt8(ascii: "}")) && text.atEnd
        }
        guard read, let event, let key, let hash, let row, let time else { return nil }
        self.init(event: event, key: key, hash: hash, row: row, time: time, id: id, error: error)
    }
}
