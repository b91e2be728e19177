import Foundation
import OpenMarketContract

/// validate's rules said in Korean, on the console's pages and in the reports (the rule's name
/// stays beside it, as the CLI prints it). A rule not here is said in English.
public enum RuleWords {
    /// The rule's text in `language`; its blanks `{1}`, `{2}`… filled with `terms` (the English,
    /// which names them itself, when they are not given).
    public static func message(_ rule: String, english: String, _ language: Language, terms: [String]? = nil) -> String {
        guard language == .ko, var korean = korean[rule] else { return english }
        for (index, term) in (terms ?? []).enumerated() { korean = korean.replacingOccurrences(of: "{\(index + 1)}", with: term) }
        return korean.contains("{1}") ? english : korean
    }

    /// Each rule's Korean (`rule:NAME` in the catalogue), the product rules' limits filled in.
    public static let korean: [String: String] = {
        let limits = [
            "{names}": "\(ProductRules.nameLength.lowerBound)~\(ProductRules.nameLength.upperBound)자",
            "{photos}": "\(ProductRules.imageCount.lowerBound)~\(ProductRules.imageCount.upperBound)장",
            "{currencies}": ProductRules.sandboxCurrencies.joined(separator: ", "),
            "{description_max}": String(ProductRules.descriptionMaxLength),
        ]
        return Catalogue.shipped.section("rule:", "ko").mapValues { text in
            limits.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        }
    }()
}
