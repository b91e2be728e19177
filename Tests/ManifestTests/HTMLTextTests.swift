import Foundation
@testable import Manifest
import Testing
import TestSupport

/// `HTMLText.plain` reads bytes (issue 80); what it says of any markup is what the reading a
/// Character at a time said (`plainByCharacters`), on random descriptions made of the pieces
/// platforms write: tags with and without attributes, broken ones, entities known and not,
/// scripts and styles, Korean text, spaces of other scripts (typed and as entities), line breaks as Windows writes them.
@Suite("HTML descriptions read from bytes, as a Character at a time")
struct HTMLTextTests {
    static let pieces = ["<p>", "</p>", "<br>", "<br/>", "<BR />", "<div class=\"x\">", "</div>", "<li>", "</li>", "<ul>", "</ul>",
                         "<td>", "</td>", "<th>", "<h2>", "</h2>", "<span style='a'>", "</span>", "<script>var a = '<p>';</script>",
                         "<style>p{color:red}</style>", "<!-- note -->", "<!DOCTYPE html>", "<a href=x>", "<", ">", "< p>", "<p", "a < b",
                         "&amp;", "&lt;", "&gt;", "&nbsp;", "&#39;", "&#x27;", "&#160;", "&#x3000;", "&#13;", "&#10;", "&#0;", "&#xD800;", "&bogus;", "&", "&amp", "&#12345678901;",
                         "&녹차;", " ", "  ", "\t", "\n", "\r\n", "\u{3000}", "\u{00A0}", "\u{2028}", "녹차", "라떼", "Tea", "100%", "é",
                         "e\u{301}", "🍵", "x", ";", "1", "\u{0323}", "\u{200D}", "👍🏽", "\u{0600}", "\u{1100}\u{1161}", "\u{3000}\u{0301}", "<p>면 100%</p>", "<table><tr><td>가</td><td>나</td></tr></table>"]

    @Test("5,000 random descriptions: the same text both ways, and the same answer to whether a tag is in them (the fuzz target html-text reads many more)")
    func sameText() {
        var generator = SplitMix(seed: 80)
        for round in 0..<5_000 {
            let count = 1 + Int(generator.next() % 14)
            let html = (0..<count).map { _ in Self.pieces[Int(generator.next() % UInt64(Self.pieces.count))] }.joined()
            let bytes = HTMLText.plain(html), characters = HTMLText.plainByCharacters(html)
            if HTMLText.hasTagByBytes(html) != HTMLText.hasTag(html) {
                Issue.record("round \(round): \(html.debugDescription) has a tag by bytes: \(HTMLText.hasTagByBytes(html)), a Character at a time: \(HTMLText.hasTag(html))")
                return
            }
            if bytes != characters {
                Issue.record("round \(round): \(html.debugDescription) → \(bytes.debugDescription), a Character at a time \(characters.debugDescription)")
                return
            }
        }
    }
}

