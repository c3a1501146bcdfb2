import Foundation
import GRDB
import GRDBSQLite
import Synchronization

/// Checkpoints a file store's `-wal` during a bulk write (``PersistentStore/withBulkWrites(_:)``)
/// on a thread and a connection of its own, so that the writer goes on committing meanwhile.
///
/// Why: SQLite's automatic checkpoint runs inside the commit that crosses its threshold, on
/// the writer, and first syncs the `-wal` to disk, then copies it into the store and syncs
/// that: every save waits for that commit, and the parsers for room to hand their feeds over
/// (docs/PERFORMANCE.md, "Tuning in the code"). SQLite's documentation suggests this split:
/// no automatic checkpoint on the writer, checkpoints from another thread.
///
/// The policy, looked at after each of the writer's commits (SQLite's `wal_hook`, which
/// stands in for the automatic checkpoint while installed):
/// - once ``passFrames`` frames are in the `-wal` beyond what was copied, a PASSIVE checkpoint
///   (which never blocks the writer nor waits for readers) runs on the checkpointer's queue;
/// - when a pass copied everything it found, the writer copies what was committed during the
///   pass itself, at its next commit, if that is at most ``catchUpFrames`` frames (else another
///   pass runs): SQLite can only start the `-wal` over at a write transaction that finds every
///   frame copied, which a pass chasing the writer never does on its own. The writer then
///   waits for a few megabytes, not for the whole `-wal`;
/// - a `-wal` of ``boundFrames`` frames is checkpointed by the writer whatever runs in the
///   background (as SQLite's automatic checkpoint would): the bound on the `-wal`'s size,
///   should readers keep the `-wal` from starting over.
///
/// Nothing is lost whichever way it goes: a checkpoint only copies committed pages into the
/// store file; a pass that cannot open its connection or is busy leaves the work to the next
/// pass or to the writer at the bound. The span's owner still checkpoints when it ends.
///
/// Its user, ``PersistentStore``'s bulk write: ``install(on:)`` on the writer connection when
/// the span begins (after setting `wal_autocheckpoint`, which would replace it); when it ends,
/// `PRAGMA wal_autocheckpoint` puts SQLite's own checkpoint back, then ``finish()`` waits for
/// a running pass before the checkpointer is let go.
final class BulkCheckpointer: Sendable {
    /// The store file.
    let path: String
    /// Frames not yet copied that start a background pass (64 MiB of 16 KiB pages).
    let passFrames: Int
    /// At most this many frames left after a complete pass are copied by the writer itself.
    let catchUpFrames: Int
    /// Frames in the `-wal` from which the writer checkpoints itself (256 MiB of 16 KiB pages,
    /// the threshold the writer had before).
    let boundFrames: Int
    private let queue = DispatchQueue(label: "objectgraph.bulk-checkpoint", qos: .utility)
    private let state = Mutex(State())

    /// What the checkpointer has done so far (for tests and benchmarks).
    struct Counts: Equatable {
        /// Background passes started, and how many copied every frame they found.
        var passes = 0
        var completePasses = 0
        /// Checkpoints the writer ran to copy what a complete pass left.
        var catchUps = 0
        /// Checkpoints the writer ran at ``boundFrames``.
        var atBound = 0
        /// The most frames the `-wal` held at a commit.
        var largestLog = 0
    }

    private struct State {
        /// A background pass is running.
        var running = false
        /// Frames of the `-wal` known to be copied into the store (0 once it starts over).
        var copied = 0
        /// The `-wal`'s size at the writer's last commit.
        var lastFrames = 0
        /// A pass copied all it found: the writer may copy the rest at its next commit.
        var catchUpDue = false
        var counts = Counts()
    }

    init(path: String, passFrames: Int = 4_096, catchUpFrames: Int = 1_024, boundFrames: Int = 16_384) {
        self.path = path
        self.passFrames = max(1, passFrames)
        self.catchUpFrames = max(1, catchUpFrames)
        self.boundFrames = max(1, boundFrames)
    }

    /// Replaces the automatic checkpoint of the writer connection `db` with this policy. Keep
    /// this object alive until `PRAGMA wal_autocheckpoint` (which installs SQLite's own hook
    /// again) has run on that connection.
    func install(on db: Database) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        sqlite3_wal_hook(
            db.sqliteConnection,
            { context, connection, name, frames in
                guard let context else { return SQLITE_OK }
                let checkpointer = Unmanaged<BulkCheckpointer>.fromOpaque(context).takeUnretainedValue()
                checkpointer.committed(frames: Int(frames), connection: connection, name: name)
                return SQLITE_OK
            }, context)
    }

    /// Waits for a running background pass to end.
    func finish() { queue.sync {} }

    var counts: Counts { state.withLock { $0.counts } }

    // MARK: - Non public

    private enum Step { case none, background, writer }

    /// After a commit of the writer, on its thread: `frames` is the `-wal`'s size in frames.
    private func committed(frames: Int, connection: OpaquePointer?, name: UnsafePointer<CChar>?) {
        let step = state.withLock { state -> Step in
            if frames < state.lastFrames { state.copied = 0 }  // SQLite started the `-wal` over
            state.lastFrames = frames
            state.counts.largestLog = max(state.counts.largestLog, frames)
            if frames >= boundFrames {
                state.counts.atBound += 1
                state.catchUpDue = false
                return .writer
            }
            guard !state.running else { return .none }
            let left = frames - state.copied
            if state.catchUpDue && left <= catchUpFrames {
                state.catchUpDue = false
                state.counts.catchUps += 1
                return .writer
            }
            guard left >= passFrames || (state.catchUpDue && left > catchUpFrames) else { return .none }
            state.catchUpDue = false
            state.running = true
            state.counts.passes += 1
            return .background
        }
        switch step {
        case .none:
            break
        case .writer:
            // As SQLite's automatic checkpoint does, on the connection that committed. Busy (a
            // pass holds the checkpoint lock), or stopped by a reader: a later commit tries again.
            var logFrames: Int32 = 0
            var copiedFrames: Int32 = 0
            let code = sqlite3_wal_checkpoint_v2(connection, name, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copiedFrames)
            if code == SQLITE_OK { state.withLock { $0.copied = max($0.copied, Int(copiedFrames)) } }
        case .background:
            queue.async { [self] in
                let (logFrames, copiedFrames) = checkpointOnOwnConnection()
                state.withLock { state in
                    state.running = false
                    state.copied = max(state.copied, copiedFrames)
                    if logFrames > 0 && copiedFrames == logFrames {
                        state.counts.completePasses += 1
                        state.catchUpDue = true
                    }
                }
            }
        }
    }

    /// One PASSIVE checkpoint through a connection opened for it: the frames the `-wal` held
    /// when it began and the frames copied (0, 0 when it could not run).
    private func checkpointOnOwnConnection() -> (Int, Int) {
        var connection: OpaquePointer?
        defer { sqlite3_close_v2(connection) }
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
            // A connection opens the `-wal` at its first read; a checkpoint before that does nothing.
            sqlite3_exec(connection, "SELECT 1 FROM sqlite_schema LIMIT 1", nil, nil, nil) == SQLITE_OK
        else { return (0, 0) }
        var logFrames: Int32 = 0
        var copiedFrames: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copiedFrames)
        guard code == SQLITE_OK else { return (0, 0) }
        syncStoreFile()
        return (Int(logFrames), Int(copiedFrames))
    }

    /// Puts the pages a pass copied on disk. SQLite syncs the store file only at the end of a
    /// checkpoint that copied the whole `-wal`, which a pass chasing the writer never does: the
    /// writer's catch-up would sync everything the pass had copied. Syncing here, off the writer,
    /// leaves the catch-up its own few pages.
    private func syncStoreFile() {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fdatasync(descriptor)
        close(descriptor)
    }
}
