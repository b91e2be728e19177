import Foundation

/// Output of the commands. Writes go straight to the file descriptor, so a
/// script or a log file sees each line as soon as it is printed (Swift's
/// `print` is block-buffered when standard output is not a terminal).
enum Console {
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
