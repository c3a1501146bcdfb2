import Foundation
import ObjectGraph

/// Opens Zeader's store: the ObjectGraph stack over the SQLite file (or memory for `--demo`).
///
/// ```swift
/// let store = try ZeaderStore.open(at: ZeaderPaths.databaseURL(explicit: nil))
/// let servers = try store.container.viewContext.performAndWait { try Server.findAll(sortedBy: "displayOrder", in: store.container.viewContext) }
/// ```
public final class ZeaderStore: Sendable {
    public let container: PersistentContainer
    /// The file, or nil for an in-memory store.
    public let url: URL?
    /// Whether the store was opened for reading only (see ``open(at:readOnly:)``).
    public var isReadOnly: Bool { container.store.isReadOnly }

    init(container: PersistentContainer, url: URL?) {
        self.container = container
        self.url = url
    }

    /// Opens (creating the folder and file if needed) the store at `url`. A store written
    /// by an older model version is migrated first (``ZeaderModel/migrationPlan``; the old
    /// file is kept as `<store>.v<N>.bak`); a newer one is refused, untouched. A folder that
    /// cannot be created is ``ZeaderError/cannotCreateFolder(path:reason:)``; the store's
    /// own refusals are ``ZeaderError/store(_:)``.
    ///
    /// ```swift
    /// let store = try ZeaderStore.open(at: URL(fileURLWithPath: "/tmp/zeader.sqlite"))
    /// ```
    ///
    /// An existing store that this process may not write (the file, or its folder, where
    /// SQLite keeps the `-wal` and `-shm` files) — or any store when `readOnly` is given —
    /// is opened for reading: ``isReadOnly``, and every save throws
    /// ``ZeaderError/store(_:)`` with ``ObjectGraph/ObjectGraphError/readOnlyStore(path:)``.
    public static func open(at url: URL, readOnly: Bool = false) throws(ZeaderError) -> ZeaderStore {
        let directory = url.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
        guard !isFolder.boolValue else { throw .storeIsAFolder(path: url.path) }
        let readOnly = readOnly || (exists && (access(url.path, W_OK) != 0 || access(directory.path, W_OK) != 0))
        if !exists {
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw .cannotCreateFolder(path: directory.path, reason: Self.reason(error))
            }
        }
        let container: PersistentContainer
        do {
            container = try PersistentContainer(
                model: ZeaderModel.current, store: .file(url), migrator: readOnly ? nil : ZeaderModel.migrationPlan,
                readOnly: readOnly)
        } catch {
            throw .store(error)
        }
        if !readOnly {
            do { try SyncAccounts.nameUnnamedAccount(in: container, storeURL: url) } catch { throw .wrapping(error) }
        }
        return ZeaderStore(container: container, url: url)
    }

    /// The system's words for a file error, without Foundation's "The file … couldn't be saved" preamble.
    static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if let underlying = nsError.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain,
            let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
        return nsError.localizedDescription
    }

    /// SQLite's `integrity_check` over the store: the problems it finds, none when the
    /// store is sound (see `zeader check`).
    ///
    /// ```swift
    /// if try store.integrityProblems().isEmpty { print("ok") }
    /// ```
    public func integrityProblems() throws(ZeaderError) -> [String] {
        do {
            return try container.store.integrityCheck()
        } catch {
            throw .store(error)
        }
    }

    /// `integrity_check` of the store at `url`, opened read-only; when the store is too
    /// damaged for ObjectGraph to open, SQLite is asked directly, so that the damage is
    /// still listed. An empty list: the store is sound.
    ///
    /// ```swift
    /// let problems = try ZeaderStore.integrityProblems(at: url)
    /// ```
    public static func integrityProblems(at url: URL) throws(ZeaderError) -> [String] {
        do {
            return try openForReading(at: url).integrityProblems()
        } catch .store(.damaged(_, let detail)) {
            let lines = (try? PersistentStore.integrityCheck(ofFileAt: url)) ?? []
            return lines.isEmpty ? [detail] : lines
        }
    }

    /// Opens the store for reading only, as ``open(at:readOnly:)`` does; a store of an older
    /// model version (which reading only cannot migrate) is opened with the version it was
    /// written with, so that `zeader check` reads a store no other command has migrated yet,
    /// changing nothing.
    ///
    /// ```swift
    /// let feeds = try FeedLibrary(store: ZeaderStore.openForReading(at: url)).unvouchedFeeds()
    /// ```
    public static func openForReading(at url: URL) throws(ZeaderError) -> ZeaderStore {
        do {
            return try open(at: url, readOnly: true)
        } catch .store(.migrationFailed(let path, let reason)) {
            for model in ZeaderModel.migrationPlan.versions.reversed().dropFirst() {
                if let container = try? PersistentContainer(model: model, store: .file(url), migrator: nil, readOnly: true) {
                    return ZeaderStore(container: container, url: url)
                }
            }
            throw .store(.migrationFailed(path: path, reason: reason))
        }
    }

    /// Folds the store's `-wal` file back into the database and truncates it (see
    /// ``ObjectGraph/PersistentStore/checkpoint(truncate:)``); the use cases call it after
    /// bulk writes, and the reader when it closes. Best-effort: `false` when another
    /// process's read kept it from completing, or the store is read-only.
    ///
    /// ```swift
    /// try library.markRead(feed: nil)
    /// store.checkpoint()
    /// ```
    @discardableResult
    public func checkpoint() -> Bool {
        container.store.checkpoint(truncate: true)
    }

    /// ``checkpoint()`` when the `-wal` file has grown past `journal_size_limit`
    /// (``ObjectGraph/PersistentStore/journalSizeLimit``): for a program that stays open
    /// (the reader) after an edit that may have written many rows (mark all read, its undo),
    /// so that the `-wal` does not keep a bulk write's size until the program ends. A stat
    /// of the file otherwise. Returns whether it checkpointed.
    ///
    /// ```swift
    /// _ = try model.markRead(nil)
    /// store.checkpointIfLarge()
    /// ```
    @discardableResult
    public func checkpointIfLarge() -> Bool {
        guard let url,
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal"))?[.size] as? Int,
            size > PersistentStore.journalSizeLimit
        else { return false }
        return checkpoint()
    }

    /// A store in memory (demo, tests).
    public static func inMemory() throws(ObjectGraphError) -> ZeaderStore {
        ZeaderStore(container: try PersistentContainer(model: ZeaderModel.current, store: .inMemory), url: nil)
    }
}
