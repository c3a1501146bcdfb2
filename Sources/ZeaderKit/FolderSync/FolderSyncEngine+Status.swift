import Foundation
import ObjectGraph

/// What `zeader sync status` says of folder sync: the folder, this device and the others,
/// the last sync, and every problem the folder has (damaged lines, files still being
/// written, conflict copies, clocks ahead, devices gone) and every entry refused here.
///
/// ```swift
/// if let status = try FolderSyncEngine(store: store).status() { print(status.text) }
/// ```
public struct FolderSyncStatus: Sendable {
    /// The shared folder, as an absolute path.
    public var folder: String
    /// This device's id (its folder's name in the shared one).
    public var device: String
    /// The devices whose folders are in the shared folder, this one left out.
    public var otherDevices: [String]
    /// When the last run ended; nil before the first.
    public var lastSync: Date?
    /// The bytes this device's files take.
    public var ownSize: Int
    /// Other devices' entries in force that this store refuses.
    public var refusals: [FolderSyncRun.Refusal]
    /// Feeds another device reads with a login that this store has without one.
    public var needsLogin: [String] = []
    /// A reading of every file of the folder.
    public var report: FolderSyncReport
}

extension FolderSyncEngine {
    /// The status, reading every file of the folder; nil without folder sync.
    ///
    /// ```swift
    /// let status = try FolderSyncEngine(store: store).status()
    /// status?.report.damagedLines.count
    /// ```
    public func status(now: Date = Date()) throws(ZeaderError) -> FolderSyncStatus? {
        guard let settings = try settings() else { return nil }
        return try wrap { () throws(FolderSyncError) in
            let folder = try SyncFolder(root: URL(fileURLWithPath: settings.folder), device: settings.device)
            var marks = FolderReadMarks()
            marks.devices = settings.readMarks.devices
            let reading = try folder.read(after: marks, now: now)
            let state = try stateFile().load()
            return FolderSyncStatus(
                folder: settings.folder, device: settings.device,
                otherDevices: reading.report.devices.filter { $0 != settings.device }, lastSync: settings.lastSync,
                ownSize: folder.ownSize(), refusals: state.refusedSubscriptions() + Self.refusedEntries(in: reading),
                needsLogin: feedsNeedingLogin(in: state),
                report: reading.report)
        }
    }

    /// The feeds the state says need a login that this store reads without one.
    func feedsNeedingLogin(in state: FolderSyncState) -> [String] {
        let context = store.container.newBackgroundContext()
        let urls = context.performAndWait { (try? Server.findAll(in: context).map(\.url)) ?? [] }
        var withLogin = Set<String>()
        var without = Set<String>()
        for url in urls {
            guard let shared = FolderSyncFeedURL.shared(url) else { continue }
            if FolderSyncFeedURL.hasLogin(url) { withLogin.insert(shared) } else { without.insert(shared) }
        }
        return without.subtracting(withLogin).sorted().filter { url in
            guard let view = state.feed(url) else { return false }
            return view.needsLogin && view.subscribed == true
        }
    }

    /// Smart feeds and ignore rules of the folder that could never be applied here.
    static func refusedEntries(in reading: FolderReadResult) -> [FolderSyncRun.Refusal] {
        var refusals: [FolderSyncRun.Refusal] = []
        var seen = Set<String>()
        for entry in reading.entries {
            switch entry.change {
            case .smartFeed(let name, let query?):
                do throws(ZeaderError) { try SmartFeeds.validate(query) } catch {
                    if seen.insert("smart\t" + name).inserted {
                        refusals.append(.smartFeed(name: name, device: entry.stamp.device, reason: error.description))
                    }
                }
            case .ignoreRule(let text, true):
                guard let parts = FolderSyncRules.parts(of: text) else {
                    if seen.insert("rule\t" + text).inserted {
                        refusals.append(
                            .ignoreRule(rule: text, device: entry.stamp.device, reason: "not a scope and a predicate"))
                    }
                    continue
                }
                do throws(ZeaderError) {
                    _ = try Killfile.compile(
                        Killfile.Rule(scope: FeedScope(parsing: parts.scope), predicateFormat: parts.predicate))
                } catch {
                    if seen.insert("rule\t" + text).inserted {
                        refusals.append(.ignoreRule(rule: text, device: entry.stamp.device, reason: error.description))
                    }
                }
            default: continue
            }
        }
        return refusals
    }
}
