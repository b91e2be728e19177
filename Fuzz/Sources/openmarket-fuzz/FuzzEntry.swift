import Foundation
import FuzzChecks

/// The target this process fuzzes, named by OPENMARKET_FUZZ_TARGET (`scripts/fuzz` sets it).
let target: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["OPENMARKET_FUZZ_TARGET"] ?? ""
    guard let found = FuzzTarget.named(name) else {
        let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("openmarket-fuzz: OPENMARKET_FUZZ_TARGET names no target ('\(name)'); the targets: \(names)\n".utf8))
        exit(2)
    }
    return found
}()

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    _ = target.name
    return 0
}

/// One input: the target's check, and an invariant that did not hold is a crash, so that
/// libFuzzer keeps the input that showed it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    do {
        try target.check(data)
    } catch {
        fatalError("\(target.name): \(error.description)")
    }
    return 0
}
