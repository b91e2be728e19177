import Foundation
import Manifest
import Mustache
import Support
import Words

/// report.html: the run's facts and counts, the failures with their values, then the products
/// by section with their thumbnails.
extension RunReport {
    /// The report's sections, changes first.
    static let sectionOrder: [RowOutcome.Status] = [.wouldUpdate, .updated, .wouldRestore, .restored, .wouldCreate, .created,
                                                    .replaced, .wouldDelete, .deleted, .linked, .skipped, .notSent, .unchanged]

    /// Counts in the header: failures, then changes, then the rest.
    static func countOrder(_ status: String) -> Int {
        if status == RowOutcome.Status.failed.rawValue { return -1 }
        return sectionOrder.firstIndex { $0.rawValue == status } ?? sectionOrder.count
    }

    static func sectionTitle(_ status: RowOutcome.Status, _ language: Language = .en) -> String {
        WordTable.text("section_\(status.rawValue)", language)
    }

    static func htmlRow(_ row: RowOutcome, server: String, recordPath: String = "/api/products/", language: Language = .en) -> [String: Any] {
        let images = zip(row.imagesBefore, row.imagesAfter).map { before, after in
            before == after ? kilobytes(after) : "\(kilobytes(before)) → \(kilobytes(after))"
        }.joined(separator: ", ")
        var item: [String: Any] = ["row": row.row > 0 ? String(row.row) : "—", "key": row.key, "name": row.name,
                                   "images": images, "changes": row.changesSaid?.text(language) ?? "", "note": row.noteText(language)]
        if let id = row.productID {
            item["product_id"] = id
            // The server's own record of the product (the sandbox's catalog page links from there too).
            item["product_url"] = (server.hasSuffix("/") ? String(server.dropLast()) : server) + recordPath + String(id)
        }
        if let thumbnail = row.localThumbnail { item["thumbnail"] = thumbnail }
        return item
    }

    func html(_ summary: SyncSummary) throws -> String {
        let url = Bundle.module.url(forResource: "report.html", withExtension: "mustache")
        guard let url, let text = try? String(contentsOf: url, encoding: .utf8) else {
            throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: "report.html.mustache"])
        }
        let template = try MustacheTemplate(string: text)
        let failed = failures.sorted { $0.row < $1.row }.map { row -> [String: Any] in
            ["row": row.row > 0 ? String(row.row) : "—", "key": row.key, "name": row.name, "error": row.errorText(language),
             "values": row.values.sorted { $0.key < $1.key }
                .map { "\(RowProblem.columnName($0.key, language)): \($0.value.count > 200 ? String($0.value.prefix(200)) + "…" : $0.value)" }
                .joined(separator: " · ")]
        }
        var sections: [[String: Any]] = []
        for status in Self.sectionOrder {
            guard let rows = groups[status], !rows.isEmpty else { continue }
            let count = groupCounts[status] ?? rows.count
            let sorted = rows.sorted(by: RowOutcome.inSheetOrder)
            func section(_ title: String, _ rows: [RowOutcome], count: Int) -> [String: Any] {
                ["title": title, "status": status.rawValue, "count": count, "collapsed": status == .unchanged || status == .skipped,
                 "more": count > rows.count ? WordTable.filled("report_more", language, String(count - rows.count)) : false,
                 "rows": rows.map { Self.htmlRow($0, server: productPages?.base ?? summary.server,
                                                 recordPath: productPages?.path ?? summary.recordPath ?? "/api/products/", language: language) }]
            }
            if summary.undoes != nil, status == .wouldDelete || status == .deleted {
                // An undo deletes what the run it takes back made: no key left a sheet.
                sections.append(section(WordTable.filled("report_undo_made", language, Self.sectionTitle(status, language)), sorted, count: count))
            } else if status == .wouldDelete || status == .deleted {
                // Products whose key left the sheet, apart from products no key ever named.
                let keyed = sorted.filter { !$0.key.isEmpty }
                let unkeyed = sorted.filter { $0.key.isEmpty }
                let title = Self.sectionTitle(status, language)
                if !keyed.isEmpty { sections.append(section(WordTable.filled("report_keys_gone", language, title), keyed, count: keyed.count)) }
                if !unkeyed.isEmpty { sections.append(section(WordTable.filled("report_no_key", language, title), unkeyed, count: count - keyed.count)) }
            } else {
                sections.append(section(Self.sectionTitle(status, language), sorted, count: count))
            }
        }
        let words = language
        func filled(_ key: String, _ value: String) -> String { WordTable.filled(key, words, value) }
        var facts = [summary.server, filled("report_mode", WordTable.text("mode_\(summary.mode.rawValue)", language)), filled("report_rows", String(summary.rows)),
                     filled("report_seconds", String(format: "%.1f", summary.seconds))]
        if summary.written > 0 {
            facts.append(filled("report_rate", String(format: "%.1f", summary.productsPerSecond))
                         + (summary.inFlight.map { ", " + ($0.text(language)) } ?? ""))
        }
        if let stopped = summary.stopText(language) { facts.append(filled("report_stopped", stopped)) }
        let plainSource = source.replacingOccurrences(of: "undo of ", with: "")
        let context: [String: Any] = [
            "lang": language.rawValue, "facts": facts.joined(separator: " · "),
            "report_title": WordTable.text("report_title", language),
            "plan_said": WordTable.text("report_plan", language),
            "counts": summary.counts.sorted { (Self.countOrder($0.key), $0.key) < (Self.countOrder($1.key), $1.key) }
                .map { ["status": $0.key, "count": $0.value, "label": StatusWords.label($0.key, language)] },
            "deletes_refused": (summary.deletesRefusedPhrase?.text(language) ?? summary.deletesRefused).map { filled("report_deletes_refused", $0) } ?? false,
            "shop_copies": summary.shopCopies.map { copies in
                WordTable.filled("report_shop_copies", language, String(copies.flatMap(\.copies).count),
                                 copies.flatMap { copy in copy.copies.map { "#\($0) ≈ #\(copy.productID) (\(copy.key))" } }.joined(separator: ", "))
            } ?? false,
            "has_failures": !failed.isEmpty, "failures": failed,
            "failed_title": filled(onPage ? "report_failed_rows_page" : "report_failed_rows", String(failureCount)),
            "has_products": !sections.isEmpty, "sections": sections,
            "title": summary.undoes != nil ? filled("report_undo_of", plainSource) : filled("report_import_of", source),
            "plan": summary.dryRun,
            "w": WordTable.words(language),
        ]
        return template.render(context)
    }
}
