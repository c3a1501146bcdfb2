import Foundation
import Testing

@testable import ZeaderKit

/// One folder sync at a time per store: a second run waits for the first (the reader and a
/// cron refresh on one store).
@Suite("Folder sync: one run at a time per store")
struct FolderSyncLockTests {
    @Test func aHeldLockKeepsAnotherOutUntilReleased() throws {
        let state = try temporaryDirectory().appendingPathComponent("z.sqlite.folder-sync")
        let first = try FolderSyncLock.acquire(beside: state)
        #expect(try FolderSyncLock.attempt(beside: state) == nil, "held by the first")
        first.release()
        let second = try #require(try FolderSyncLock.attempt(beside: state))
        #expect(try FolderSyncLock.attempt(beside: state) == nil, "held by the second")
        second.release()
        #expect(try FolderSyncLock.attempt(beside: state) != nil)
    }

    @Test func aRunTakesTheLock() async throws {
        let home = try temporaryDirectory()
        let folder = home.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let storeURL = home.appendingPathComponent("z.sqlite")
        let store = try ZeaderStore.open(at: storeURL)
        let engine = FolderSyncEngine(store: store)
        try engine.add(folder: folder.path)
        let stateURL = FolderSyncStateFile(storeURL: storeURL).url
        let held = try FolderSyncLock.acquire(beside: stateURL)
        // A run started now waits; it ends once the lock is let go.
        let finished = Task.detached { try engine.run() }
        #expect(try FolderSyncLock.attempt(beside: stateURL) == nil)
        held.release()
        _ = try await finished.value
        #expect(FileManager.default.fileExists(atPath: FolderSyncLock.url(beside: stateURL).path))
    }
}
