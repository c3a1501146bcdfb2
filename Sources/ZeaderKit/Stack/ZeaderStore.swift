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

    init(container: PersistentContainer, url: URL?) {
        self.container = container
        self.url = url
    }

    /// Opens (creating the directory and file if needed) the store at `url`. A store written
    /// by an older model version is migrated first (``ZeaderModel/migrationPlan``; the old
    /// file is kept as `<store>.v<N>.bak`); a newer one is refused, untouched.
    ///
    /// ```swift
    /// let store = try ZeaderStore.open(at: URL(fileURLWithPath: "/tmp/zeader.sqlite"))
    /// ```
    public static func open(at url: URL) throws(ObjectGraphError) -> ZeaderStore {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .incompatibleStore(path: url.path, reason: "cannot create directory \(directory.path): \(error.localizedDescription)")
        }
        let container = try PersistentContainer(model: ZeaderModel.current, store: .file(url), migrator: ZeaderModel.migrationPlan)
        return ZeaderStore(container: container, url: url)
    }

    /// A store in memory (demo, tests).
    public static func inMemory() throws(ObjectGraphError) -> ZeaderStore {
        ZeaderStore(container: try PersistentContainer(model: ZeaderModel.current, store: .inMemory), url: nil)
    }
}
