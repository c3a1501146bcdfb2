import Foundation
import ObjectGraph
import Synchronization
import Testing
import ZeaderKit

@testable import ZeaderTUI

/// The reader's refresh with sync: a refresher that syncs is run once when the reader
/// starts; a store without an account refreshes its feeds as before.
@Suite("The reader and sync")
struct SyncingRefresherTests {
    /// Counts refreshes; asks for one at start.
    final class StartingRefresher: ReaderRefresher {
        let count = Mutex(0)
        var refreshesOnStart: Bool { true }

        func refresh(servers: [ObjectID], progress: (@Sendable (RefreshEvent) -> Void)?) async throws(ZeaderError)
            -> RefreshSummary
        {
            count.withLock { $0 += 1 }
            var totals = RefreshProgress(total: 1)
            totals.completed = 1
            return RefreshSummary(progress: totals, results: [], duration: 0)
        }
    }

    @Test func aRefresherThatSyncsRunsWhenTheReaderStarts() async throws {
        let refresher = StartingRefresher()
        let h = try Harness(refresher: refresher)
        for _ in 0..<250 where !h.settle().contains("Refreshed 1 feed") {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(refresher.count.withLock { $0 } == 1)
    }

    @Test func aPlainRefresherDoesNotRunAtStart() throws {
        let refresher = FakeRefresher()
        let h = try Harness(refresher: refresher)
        _ = h.settle()
        #expect(refresher.requested.withLock { $0 }.isEmpty)
    }

    @Test func withoutAnAccountTheSyncingRefresherIsAPlainOne() throws {
        let store = try ZeaderStore.inMemory()
        #expect(SyncingRefresher(store: store).refreshesOnStart == false)
    }
}
