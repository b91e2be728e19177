import Foundation
import Words
import ImagePrep
import Manifest
import OpenMarketAPI
import ShopState
import Support

/// One rule a failed row broke: the column (as the sheet names it, with ours), the value, the
/// rule's name and its English message.
public struct RowProblem: Sendable, Codable, Equatable {
    public var column: String?
    public var value: String?
    public var rule: String
    public var message: String

    public init(column: String?, value: String?, rule: String, message: String) {
        self.column = column
        self.value = value
        self.rule = rule
        self.message = message
    }

    /// `price: must be a number (12,000원) [price-format]`, the message in `language`.
    public func text(_ language: Language) -> String {
        let place = column.map { RowProblem.columnName($0, language) } ?? WordTable.text("report_file", language)
        // A value as validate shows it: its first characters (a description can be long).
        let shown = value.map { $0.count > 60 ? String($0.prefix(57)) + "…" : $0 }
        return "\(place): \(RuleWords.message(rule, english: message, language))\(shown.map { " (\($0))" } ?? "") [\(rule)]"
    }
}

extension RowProblem {
    /// One of our columns as a merchant reading `language` calls it, the column's own name
    /// beside (`가격 (price)` in Korean, from the catalogue's `column:` words); other names as
    /// they are.
    public static func columnName(_ column: String, _ language: Language) -> String {
        guard Column(rawValue: column) != nil, let said = Catalogue.shipped.translation("column:\(column)", language), said != column
        else { return column }
        return "\(said) (\(column))"
    }

    /// One of our columns as a sheet's header in `language`: the catalogue's word when import
    /// reads it back as that column (`가격`), else the column's own name.
    public static func header(_ column: String, _ language: Language) -> String {
        guard let said = Catalogue.shipped.translation("column:\(column)", language),
              let read = Column(header: said), read.rawValue == column else { return column }
        return said
    }
}

/// What became of one row.
public struct RowOutcome: Sendable, Codable, Equatable {
    /// The sheet's order: by row, rows that are no sheet's (row 0: a delete) last, by product id.
    public static func inSheetOrder(_ a: RowOutcome, _ b: RowOutcome) -> Bool {
        (a.row == 0 ? Int.max : a.row, a.productID ?? 0) < (b.row == 0 ? Int.max : b.row, b.productID ?? 0)
    }

    public enum Status: String, Sendable, Codable {
        case created, updated, unchanged, skipped, failed
        /// Made again with new photos: a new product, the old one deleted.
        case replaced
        /// An existing product adopted for the row's key (same name), equal to the row.
        case linked
        /// Deleted: not in the manifest (`--delete-missing`), or taken back by `undo`.
        case deleted
        /// `undo`: the fields the run changed are back as they were.
        case restored
        case wouldCreate = "would-create"
        case wouldUpdate = "would-update"
        case wouldDelete = "would-delete"
        case wouldRestore = "would-restore"
        /// The run stopped (Ctrl-C, the console's Stop, --max-errors, a lost database) before
        /// this row was sent: nothing wrong with the row; the same command again sends it.
        case notSent = "not-sent"

        /// Whether the row changed the shop (what `undo` can take back, and what the
        /// products-per-second rate counts).
        public var isWrite: Bool {
            switch self {
            case .created, .updated, .replaced, .deleted, .restored: true
            default: false
            }
        }

        /// The order the summary line counts them in: what was done (or would be), then what was not.
        public static let summaryOrder: [Status] = [.created, .wouldCreate, .updated, .wouldUpdate, .restored, .wouldRestore,
                                                   .deleted, .wouldDelete, .replaced, .unchanged, .linked, .skipped, .failed, .notSent]
    }

    public var row: Int
    public var key: String
    public var name: String
    public var status: Status
    public var productID: Int?
    public var error: String?
    /// What the run says of the row beside its status, each note a phrase made where it
    /// happened (said in the reader's language by the report, the page and the terminal).
    public var notes: [Phrase] = []
    /// The notes in English (report.csv, report.json: what scripts read); set: one note said
    /// as it is in every language (a server's words, a feed map's reason).
    public var note: String? {
        get { notes.isEmpty ? nil : notes.text(.en) }
        set { notes = newValue.map { [.verbatim($0)] } ?? [] }
    }
    /// What the row changed (or would change), each field named in the reader's language.
    public var changesSaid: Phrase?
    /// The same in English: `price 32000 → 31000; stock 8 → 0` (report.csv, report.json); set:
    /// said as it is in every language.
    public var changes: String? {
        get { changesSaid?.text(.en) }
        set { changesSaid = newValue.map { .verbatim($0) } }
    }
    /// Image sizes before and after preparation, in bytes.
    public var imagesBefore: [Int]
    public var imagesAfter: [Int]
    public var attempts: Int
    public var seconds: Double
    /// The server's thumbnail of a created or updated product.
    public var thumbnail: String?
    /// The row's values, for the report of a failed row.
    public var values: [String: String]
    /// Fields changed, by name (for the summary's counts).
    public var changedFields: [String] = []
    public var stockToZero = false
    public var photosDiffer = false
    /// Held by `--max-price-change` (the row failed; `--force` sends it).
    public var priceGuarded = false
    /// The row's first prepared photo (JPEG), from which the report makes the thumbnail
    /// it keeps (not in report.json).
    public var photo: Data?
    /// Where the report saved `preview`, relative to its folder.
    public var localThumbnail: String?
    /// What failed, rule by rule, when the row broke rules (`error` says them in English):
    /// the report says them in the reader's language.
    public var problems: [RowProblem]?

    enum CodingKeys: String, CodingKey {
        case row, key, name, status
        case productID = "product_id"
        case error, note, notes, changes, problems
        case changesSaid = "changes_said"
        case imagesBefore = "images_before"
        case imagesAfter = "images_after"
        case attempts, seconds, thumbnail, values
    }

    /// report.json's row: `note` in English as scripts read it, `notes` as phrases (the
    /// workbook says them in the reader's language).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(row, forKey: .row)
        try container.encode(key, forKey: .key)
        try container.encode(name, forKey: .name)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(productID, forKey: .productID)
        try container.encodeIfPresent(error, forKey: .error)
        try container.encodeIfPresent(note, forKey: .note)
        if !notes.isEmpty { try container.encode(notes, forKey: .notes) }
        try container.encodeIfPresent(changes, forKey: .changes)
        // The phrase only when it is one (a change set as text is its English alone).
        if let changesSaid, changesSaid.key != Phrase.verbatimKey { try container.encode(changesSaid, forKey: .changesSaid) }
        try container.encodeIfPresent(problems, forKey: .problems)
        try container.encode(imagesBefore, forKey: .imagesBefore)
        try container.encode(imagesAfter, forKey: .imagesAfter)
        try container.encode(attempts, forKey: .attempts)
        try container.encode(seconds, forKey: .seconds)
        try container.encodeIfPresent(thumbnail, forKey: .thumbnail)
        try container.encode(values, forKey: .values)
    }

    /// A row of report.json read back: its notes as phrases when kept so, else as they are.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(row: try container.decode(Int.self, forKey: .row), key: try container.decode(String.self, forKey: .key),
                  name: try container.decode(String.self, forKey: .name), status: try container.decode(Status.self, forKey: .status),
                  productID: try container.decodeIfPresent(Int.self, forKey: .productID), error: try container.decodeIfPresent(String.self, forKey: .error),
                  note: try container.decodeIfPresent(String.self, forKey: .note),
                  imagesBefore: try container.decodeIfPresent([Int].self, forKey: .imagesBefore) ?? [],
                  imagesAfter: try container.decodeIfPresent([Int].self, forKey: .imagesAfter) ?? [],
                  attempts: try container.decodeIfPresent(Int.self, forKey: .attempts) ?? 0,
                  seconds: try container.decodeIfPresent(Double.self, forKey: .seconds) ?? 0,
                  thumbnail: try container.decodeIfPresent(String.self, forKey: .thumbnail),
                  values: try container.decodeIfPresent([String: String].self, forKey: .values) ?? [:])
        if let phrases = try container.decodeIfPresent([Phrase].self, forKey: .notes) { notes = phrases }
        changes = try container.decodeIfPresent(String.self, forKey: .changes)
        if let said = try container.decodeIfPresent(Phrase.self, forKey: .changesSaid) { changesSaid = said }
        problems = try container.decodeIfPresent([RowProblem].self, forKey: .problems)
    }

    /// The notes in `language`.
    public func noteText(_ language: Language) -> String { notes.text(language) }

    public init(row: Int, key: String, name: String, status: Status, productID: Int? = nil, error: String? = nil,
                note: String? = nil, imagesBefore: [Int] = [], imagesAfter: [Int] = [], attempts: Int = 0, seconds: Double = 0,
                thumbnail: String? = nil, values: [String: String] = [:]) {
        self.row = row
        self.key = key
        self.name = name
        self.status = status
        self.productID = productID
        self.error = error
        self.notes = note.map { [.verbatim($0)] } ?? []
        self.imagesBefore = imagesBefore
        self.imagesAfter = imagesAfter
        self.attempts = attempts
        self.seconds = seconds
        self.thumbnail = thumbnail
        self.values = values
    }

    public var isFailure: Bool { status == .failed }

    /// What went wrong, in `language`: each broken rule's message, else the error as it is.
    public func errorText(_ language: Language) -> String {
        guard let problems, !problems.isEmpty, language != .en else { return error ?? "" }
        return problems.map { $0.text(language) }.joined(separator: "; ")
    }

    /// A row with nothing to do (`migrate`: gone from the source).
    public static func skipped(row: Int, key: String, note: String) -> RowOutcome {
        RowOutcome(row: row, key: key, name: "", status: .skipped, note: note)
    }

    public static func skipped(row: Int, key: String, notes: [Phrase]) -> RowOutcome {
        var outcome = RowOutcome(row: row, key: key, name: "", status: .skipped)
        outcome.notes = notes
        return outcome
    }

    /// A row the run stopped before sending (nothing wrong with it).
    public static func notSent(row: Int, key: String, name: String) -> RowOutcome {
        var outcome = RowOutcome(row: row, key: key, name: name, status: .notSent)
        outcome.notes = [notSentNote]
        return outcome
    }

    public static let notSentNote = Phrase("n_not_sent")

    /// A row that failed before it reached the pipeline.
    public static func failed(row: Int, key: String, name: String, error: String) -> RowOutcome {
        RowOutcome(row: row, key: key, name: name, status: .failed, error: error)
    }
}
