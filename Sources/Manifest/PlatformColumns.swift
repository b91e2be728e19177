/// Another platform's own columns, told by a sheet's header even where its map does not read the
/// sheet (`--map none`, a layout the map's `[detect]` does not match): its own numbers are not
/// this shop's. WooCommerce's `ID` is WooCommerce's post id; SmartStore's and Cafe24's `상품번호`
/// are theirs; Cafe24's `상품코드` is Cafe24's code (`P000000A`), while `자체 상품코드` is the
/// merchant's. Read as ours, such a number named an unrelated product of the shop and
/// overwrote it. Each shipped map says its platform's columns (its `[detect]`'s `platform_headers`,
/// `platform_any`, `own_numbers`, `own_key`); the reader asks the maps it is given, in one place.
public struct PlatformColumns: Sendable {
    /// The platform as a note names it ("WooCommerce").
    public var name: String
    /// Every one of these is in the header…
    public var headers: [String]
    /// …and one of these, when it names some.
    public var any: [String]
    /// Columns not read: the platform's own numbers.
    public var ownNumbers: [String]
    /// The column that is the merchant's own key in this platform's layout.
    public var ownKey: String?

    public init(name: String, headers: [String], any: [String] = [], ownNumbers: [String], ownKey: String? = nil) {
        self.name = name
        self.headers = headers
        self.any = any
        self.ownNumbers = ownNumbers
        self.ownKey = ownKey
    }

    /// A header as these columns are compared: composed, then as `Column.normalise` has it.
    static func normalise(_ header: String) -> String { Column.normalise(header.precomposedStringWithCanonicalMapping) }

    /// Whether a header row (each header normalised by `normalise`) is surely this platform's.
    func matches(_ present: Set<String>) -> Bool {
        headers.allSatisfy { present.contains(Self.normalise($0)) }
            && (any.isEmpty || any.contains { present.contains(Self.normalise($0)) })
    }

    enum Reading: Equatable {
        /// Not read: the platform's own number.
        case ignored
        case column(Column)
    }

    /// How this platform's layout reads a header (normalised) differently from ours; nil: as ours.
    func reading(_ header: String) -> Reading? {
        if ownNumbers.contains(where: { Self.normalise($0) == header }) { return .ignored }
        if let ownKey, Self.normalise(ownKey) == header { return .column(.key) }
        return nil
    }

    /// The note for a column not read.
    func note(header: String, file: String) -> RowIssue {
        RowIssue(file: file, row: 1, column: nil, value: header, severity: .warning, rule: "column-other-platform",
                 message: "is \(name)'s own product number (the sheet is a \(name) export), not a product of this shop: not read; rows are matched by their key, else their name")
    }
}
