import Foundation
import OpenMarketContract

/// validate's rules said in Korean, on the console's pages and in the reports (the rule's name
/// stays beside it, as the CLI prints it). A rule not here is said in English.
public enum RuleWords {
    /// The rule's text in `language`; its blanks `{1}`, `{2}`… filled with `terms` (the English,
    /// which names them itself, when they are not given).
    public static func message(_ rule: String, english: String, _ language: Language, terms: [String]? = nil) -> String {
        guard let words = Catalogue.shipped.translation("rule:\(rule)", language) else { return english }
        let said = WordTable.fill(withLimits(words), terms ?? [])
        return said.contains("{1}") ? english : said
    }

    /// Each rule's Korean (`rule:NAME` in the catalogue), the product rules' limits filled in.
    public static let korean: [String: String] = Catalogue.shipped.section("rule:", "ko").mapValues(withLimits)

    /// A rule's words with the product rules' limits in their blanks (`{names}`: `3~100`; the
    /// translation says its unit, `{names}자`).
    static func withLimits(_ text: String) -> String {
        let limits = [
            "{names}": "\(ProductRules.nameLength.lowerBound)~\(ProductRules.nameLength.upperBound)",
            "{photos}": "\(ProductRules.imageCount.lowerBound)~\(ProductRules.imageCount.upperBound)",
            "{currencies}": ProductRules.sandboxCurrencies.joined(separator: ", "),
            "{description_max}": String(ProductRules.descriptionMaxLength),
        ]
        return limits.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
    }
}
