import Foundation
import Support
import Testing

@Suite("a child process")
struct ChildProcessTests {
    /// A child's exit status and what it wrote to its standard output.
    static func output(_ executable: String, _ arguments: [String], directory: String? = nil) throws -> (code: Int32, text: String) {
        let pipe = Pipe()
        let child = try ChildProcess(executable, arguments, directory: directory, output: pipe.fileHandleForWriting.fileDescriptor)
        try pipe.fileHandleForWriting.close()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (child.wait(), text)
    }

    @Test("its status, its output, its folder and environment; a missing program is an error that names it")
    func basics() throws {
        let said = try Self.output("/bin/sh", ["-c", "echo \"in $(pwd)\"; exit 3"], directory: "/tmp")
        #expect(said.code == 3 && said.text == "in /tmp\n", "\(said)")
        let pipe = Pipe()
        let child = try ChildProcess("/bin/sh", ["-c", "echo $GREETING"], environment: ["GREETING": "안녕"], output: pipe.fileHandleForWriting.fileDescriptor)
        try pipe.fileHandleForWriting.close()
        #expect(String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self) == "안녕\n")
        #expect(child.wait() == 0 && child.endedBySignal == false && !child.isRunning)
        #expect(throws: ChildProcess.Failure.self) { try ChildProcess("/no/such/program", []) }
    }

    @Test("it inherits no descriptor but its three: a file this process holds open is not the child's")
    func descriptorsClosed() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("held-\(UUID().uuidString)")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let fd = open(file.path, O_RDONLY)   // no O_CLOEXEC: Foundation's Process had to close such ones itself
        defer { close(fd) }
        #expect(fd > 2)
        let listed = try Self.output("/bin/sh", ["-c", "ls /proc/$$/fd"])
        let open = listed.text.split(separator: "\n").compactMap { Int($0) }
        #expect(!open.contains(Int(fd)) && open.allSatisfy { $0 <= 10 }, "the child's descriptors: \(open)")
    }

    @Test("a signal ends it: the signal's number, awaited without a thread")
    func signalled() async throws {
        let child = try ChildProcess("/bin/sleep", ["30"])
        #expect(child.isRunning && child.wait(seconds: 0.2) == nil)
        child.signal(SIGKILL)
        let code = await child.ended()
        #expect(code == SIGKILL && child.endedBySignal == true)
    }
}
