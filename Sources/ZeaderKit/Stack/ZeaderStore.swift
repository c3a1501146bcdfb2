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

    /// Opens (creating the folder and file if needed) the store at `url`. A store written
    /// by an older model version is migrated first (``ZeaderModel/migrationPlan``; the old
    /// file is kept as `<store>.v<N>.bak`); a newer one is refused, untouched. A folder that
    /// cannot be created is ``ZeaderError/cannotCreateFolder(path:reason:)``; the store's
    /// own refusals are ``ZeaderError/store(_:)``.
    ///
    /// ```swift
    /// let store = try ZeaderStore.open(at: URL(fileURLWithPath: "/tmp/zeader.sqlite"))
    /// ```
    public static func open(at url: URL) throws(ZeaderError) -> ZeaderStore {
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .cannotCreateFolder(path: directory.path, reason: Self.reason(error))
        }
        do {
            let container = try PersistentContainer(
                model: ZeaderModel.current, store: .file(url), migrator: ZeaderModel.migrationPlan)
            return ZeaderStore(container: container, url: url)
        } catch {
            throw .store(error)
        }
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

    /// A store in memory (demo, tests).
    public static func inMemory() throws(ObjectGraphError) -> ZeaderStore {
        ZeaderStore(container: try PersistentContainer(model: ZeaderModel.current, store: .inMemory), url: nil)
    }
}
