import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One folder sync at a time per store, across processes (the reader and a cron `zeader
/// refresh`): both would read the same history and append to the same own file. An advisory
/// `flock` on `<store>.folder-sync.lock`, released when the holder closes it or exits, so a
/// killed run never leaves the store locked.
///
/// ```swift
/// let lock = try FolderSyncLock.acquire(beside: stateFile.url)
/// defer { lock.release() }
/// ```
final class FolderSyncLock {
    private var descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// The lock file of the state file at `stateURL`.
    static func url(beside stateURL: URL) -> URL {
        stateURL.deletingLastPathComponent().appendingPathComponent(stateURL.lastPathComponent + ".lock")
    }

    /// The lock beside `stateURL`, once no other process holds it.
    static func acquire(beside stateURL: URL) throws(FolderSyncError) -> FolderSyncLock {
        // Never nil: a waiting lock only ends held or failed.
        try take(beside: stateURL, wait: true)!
    }

    /// The lock beside `stateURL`, or nil when another process holds it now.
    static func attempt(beside stateURL: URL) throws(FolderSyncError) -> FolderSyncLock? {
        try take(beside: stateURL, wait: false)
    }

    private static func take(beside stateURL: URL, wait: Bool) throws(FolderSyncError) -> FolderSyncLock? {
        let path = url(beside: stateURL).path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .file(path: path, reason: String(cString: strerror(errno))) }
        while flock(descriptor, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            close(descriptor)
            if failure == EWOULDBLOCK { return nil }
            throw .file(path: path, reason: String(cString: strerror(failure)))
        }
        return FolderSyncLock(descriptor: descriptor)
    }

    /// Lets the next run go (also when the lock is released by being forgotten).
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}
