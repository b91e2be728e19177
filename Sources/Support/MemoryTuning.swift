#if canImport(Glibc)
import Glibc
#endif

/// How the C allocator is asked to keep the process small, once, before any work: at most two
/// malloc arenas (one per thread by default, each keeping what its thread freed), and memory
/// freed at the top of the heap given back to the system beyond 128 KiB. Measured on an
/// unchanged re-run against shops of 5,000 and 50,000 products (Benchmarks/memory-flat.sh):
/// the peak went 70 → 64 MB and 97 → 84 MB, the time unchanged.
///
/// Blocks up to 32 MiB come from the heap, not each from a mapping of its own (glibc's
/// threshold is 128 KiB once the trim threshold is set): a photo's pixels, the coefficients
/// TurboJPEG buffers for an encode with optimised tables, the file read — each was a fresh
/// mapping whose every page the kernel faulted in and zeroed, then unmapped on free. 15
/// photographs shrunk: 265,000 page faults → 85,000, a quarter of the CPU time
/// (Benchmarks/shrink-floor.sh).
public enum MemoryTuning {
    /// glibc's `mallopt` parameters (`<malloc.h>`, which the Glibc module does not bring).
    static let trimThreshold: Int32 = -1, mmapThreshold: Int32 = -3, arenaMax: Int32 = -8

    public static func apply() {
        #if canImport(Glibc)
        // Looked up, not linked: an allocator without it (another libc) is left as it is.
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(arenaMax, 2)
        _ = mallopt(trimThreshold, 128 << 10)
        _ = mallopt(mmapThreshold, 32 << 20)
        #endif
    }
}
