import Foundation
import Support

/// File names for downloaded images, safe whatever the server returned: no
/// path separators, no `..`, no control characters, no leading dot, at most
/// `maxBytes` bytes of UTF-8, and never empty.
public enum SafeName {
    public static let maxBytes = 100

    /// The name for image `index` (0-based) of a product, from its URL. The
    /// position comes first (`1-…`) so that names are unique within the product
    /// and sort in the product's order.
    public static func forImage(url: String, index: Int) -> String {
        var last = ""
        if let parsed = URL(string: url) {
            last = parsed.lastPathComponent
        } else if let slash = url.lastIndex(of: "/") {
            last = String(url[url.index(after: slash)...])
        }
        if let decoded = last.removingPercentEncoding { last = decoded }
        return truncate("\(index + 1)-" + clean(last, fallback: "image"), toBytes: maxBytes)
    }

    /// `text` made safe as one path component.
    public static func clean(_ text: String, fallback: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "/", "\\", ":": scalars.append("_")
            case _ where scalar.properties.generalCategory == .control,
                 _ where scalar.properties.generalCategory == .format,
                 _ where scalar.properties.generalCategory == .lineSeparator,
                 _ where scalar.properties.generalCategory == .paragraphSeparator:
                continue
            default: scalars.append(scalar)
            }
        }
        var name = FileLookup.nfc(String(scalars))
        while name.contains("..") { name = name.replacingOccurrences(of: "..", with: "_") }
        name = name.trimmingCharacters(in: .whitespaces)
        while name.hasPrefix(".") { name.removeFirst() }
        name = truncate(name, toBytes: maxBytes)
        // Nothing left but what replaced the unsafe parts: no name worth keeping.
        return name.allSatisfy({ $0 == "_" || $0 == "." }) ? fallback : name
    }

    /// Cuts at a character boundary, keeping the extension when there is one.
    static func truncate(_ name: String, toBytes limit: Int) -> String {
        guard name.utf8.count > limit else { return name }
        let ext = (name as NSString).pathExtension
        let keepExt = !ext.isEmpty && ext.utf8.count <= 10
        let suffix = keepExt ? "." + ext : ""
        var stem = keepExt ? String(name.dropLast(suffix.count)) : name
        while stem.utf8.count + suffix.utf8.count > limit, !stem.isEmpty { stem.removeLast() }
        return stem + suffix
    }
}
