import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The process's malloc arenas, at most one per core (glibc allows eight per core): a
/// thread that allocates while another holds an arena gets one of its own, which keeps the
/// memory it freed, so a refresh's fetch, parse and save threads each held one. The
/// figures, both ways, are in docs/PERFORMANCE.md ("Tuning in the code").
enum MallocArenas {
    /// Caps the arenas at the number of cores (at least two), unless `MALLOC_ARENA_MAX` in
    /// the environment says otherwise (how a benchmark compares the two); returns the cap
    /// set, nil when none was. Call it before the program's own threads start.
    ///
    /// ```swift
    /// MallocArenas.capAtCoreCount()   // first thing in main
    /// ```
    @discardableResult
    static func capAtCoreCount(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int32? {
        #if canImport(Glibc)
            guard environment["MALLOC_ARENA_MAX"] == nil,
                // `<malloc.h>` is not part of the Glibc module, so `mallopt` is looked up by name.
                let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt")
            else { return nil }
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            let arenaMax: Int32 = -8  // M_ARENA_MAX in <malloc.h>
            let cap = Int32(max(2, ProcessInfo.processInfo.activeProcessorCount))
            return unsafeBitCast(symbol, to: MallOpt.self)(arenaMax, cap) == 1 ? cap : nil
        #else
            return nil
        #endif
    }
}
