import Foundation

/// The command line this process was started with. `CommandLine.arguments` is found by the
/// Swift runtime from a static initializer that walks up from `environ`; in a binary with the
/// Swift library linked in (`--static-swift-stdlib`, the image's), another library's
/// initializer can move `environ` first and the runtime finds nothing (swiftlang/swift#76080).
/// Then the kernel's copy, `/proc/self/cmdline`, says it.
public enum ProgramArguments {
    public static let all: [String] = {
        if !CommandLine.arguments.isEmpty { return CommandLine.arguments }
        guard let data = FileManager.default.contents(atPath: "/proc/self/cmdline") else { return [] }
        var parts = data.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        if parts.last == "" { parts.removeLast() }
        return parts
    }()

    /// The arguments after the program's name.
    public static var given: [String] { Array(all.dropFirst()) }
}
