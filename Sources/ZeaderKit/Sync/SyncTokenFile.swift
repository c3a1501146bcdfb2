import Foundation

/// The login token of one of a store's sync accounts, in a file beside the store
/// (`zeader.sqlite.sync.NAME`) that only its owner may read or write (mode 0600). The password
/// is never stored; the token is what ClientLogin returned.
///
/// ```swift
/// let file = SyncTokenFile(storeURL: url)
/// try file.write("alice/8f3…")
/// let token = file.read()
/// ```
public struct SyncTokenFile: Sendable {
    /// The file's path.
    public let url: URL

    /// The token file of the store at `storeURL`: of its account `account` (`zeader.sqlite.sync.work`),
    /// else the one of a store whose account had no name.
    ///
    /// ```swift
    /// let file = SyncTokenFile(storeURL: url, account: "work")
    /// ```
    public init(storeURL: URL, account: String? = nil) {
        url = URL(fileURLWithPath: storeURL.path + ".sync" + (account.map { "." + $0 } ?? ""))
    }

    /// The token, or nil when the file is missing, empty or unreadable.
    public func read() -> String? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Writes `token` through a new file created with mode 0600, renamed over the old one,
    /// so that the token is never readable by others, not even for a moment.
    public func write(_ token: String) throws(SyncError) {
        let temporary = url.path + ".tmp"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .cannotWriteToken(path: url.path, reason: String(cString: strerror(errno))) }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .cannotWriteToken(path: url.path, reason: reason)
        }
    }

    /// Deletes the file (nothing when it is missing).
    public func remove() {
        unlink(url.path)
    }
}
