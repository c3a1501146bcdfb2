import Foundation
import Testing

@testable import zeader

@Suite struct MallocArenasTests {
    @Test func theArenasAreCappedAtTheCoresAndAtLeastTwo() {
        #if canImport(Glibc)
            let cap = MallocArenas.capAtCoreCount(environment: [:])
            #expect(cap == Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
        #endif
    }

    @Test func anArenaCountInTheEnvironmentIsLeftAlone() {
        #expect(MallocArenas.capAtCoreCount(environment: ["MALLOC_ARENA_MAX": "1"]) == nil)
    }
}
