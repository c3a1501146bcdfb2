import Foundation
import ObjectGraph

/// A store's folder sync: the shared folder, this device's id, and how far each side got —
/// the folder's files read (``FolderReadMarks``) and written (``FolderPublishMarks``), the
/// clock, and the store's history read (``HistoryToken``). Kept in store metadata as JSON
/// (``FolderSyncSettings/metadataKey``), so it moves with the store and no other device sees it.
///
/// ```swift
/// let settings = try FolderSyncSettings.load(from: store.container.store)
/// print(settings?.folder ?? "no folder sync", settings?.device ?? "")
/// ```
public struct FolderSyncSettings: Codable, Equatable, Sendable {
    /// The store metadata key that holds the settings.
    public static let metadataKey = "zeader.folderSync"

    /// The shared folder, as an absolute path.
    public var folder: String
    /// This device's id (``FolderSyncDevice``): the name of its folder in the shared one.
    public var device: String
    /// When the last sync ended; nil before the first.
    public var lastSync: Date?
    var readMarks = FolderReadMarks()
    var publishMarks = FolderPublishMarks()
    /// The latest timestamp this device made or saw (``HybridClock/latest``).
    var clock: HybridTimestamp?
    /// The last transaction of the store's history turned into entries.
    var historyToken: HistoryToken?
    /// Each feed's URL as the folder names it (``FolderSyncFeedURL``) at the last run, by
    /// the feed's primary key: the history says a feed's URL changed, this says from what.
    var feedURLs: [String: String]?

    init(folder: String, device: String) {
        self.folder = folder
        self.device = device
    }

    /// The settings kept in `store`; nil when it has no folder sync (or they are unreadable,
    /// which `sync add folder:PATH` mends).
    public static func load(from store: PersistentStore) throws(ObjectGraphError) -> FolderSyncSettings? {
        guard let text = try store.metadata(forKey: metadataKey) else { return nil }
        return try? JSONDecoder().decode(FolderSyncSettings.self, from: Data(text.utf8))
    }

    /// Keeps the settings in `store`.
    func save(to store: PersistentStore) throws(ObjectGraphError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, numbers, dates and dictionaries of them always encode.
        let text = (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        try store.setMetadata(text, forKey: Self.metadataKey)
    }
}

/// What every device's changes add up to, as this store last merged them: kept beside the
/// store (`<store>.folder-sync`), one ``FolderSyncEntry`` per line — the fewest that rebuild
/// the state (``FolderSyncState/entries(madeBy:)``) — written whole to a new file and renamed
/// over the old, so a crash leaves the old state or the new one.
///
/// ```swift
/// let file = FolderSyncStateFile(storeURL: storeURL)
/// var state = try file.load()
/// try file.save(state)
/// ```
public struct FolderSyncStateFile: Sendable {
    /// The file.
    public let url: URL

    /// The state file of the store at `storeURL`.
    public init(storeURL: URL) {
        url = storeURL.deletingLastPathComponent().appendingPathComponent(storeURL.lastPathComponent + ".folder-sync")
    }

    /// The state the file holds; empty when there is no file. Damaged lines are skipped: what
    /// they held comes back from the folder, whose files are read again from the start.
    public func load() throws(FolderSyncError) -> FolderSyncState {
        var state = FolderSyncState()
        guard FileManager.default.fileExists(atPath: url.path) else { return state }
        do {
            state.apply(SyncFolder.entries(inText: try Data(contentsOf: url)).entries)
        } catch {
            throw .file(path: url.path, reason: error.localizedDescription)
        }
        return state
    }

    /// Whether the file is there and reads back whole (every line an entry, the last one ended).
    func isWhole() -> Bool {
        guard let data = try? Data(contentsOf: url) else { return false }
        let found = SyncFolder.entries(inText: data)
        return found.damaged.isEmpty && !found.incomplete
    }

    /// Writes `state` whole, replacing the file at once.
    public func save(_ state: FolderSyncState) throws(FolderSyncError) {
        let text = state.entries(madeBy: nil).map { $0.line + "\n" }.joined()
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw .file(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Removes the file (folder sync turned off).
    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}
