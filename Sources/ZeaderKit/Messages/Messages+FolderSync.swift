import Foundation

// The words of folder sync: its errors, a run's summary, and `sync status`.

extension FolderSyncError: CustomStringConvertible {
    /// One line naming what is wrong.
    ///
    /// ```swift
    /// FolderSyncError.missingFolder(path: "/media/sync").description   // "sync folder /media/sync is missing or not a folder"
    /// ```
    public var description: String {
        switch self {
        case .invalidDevice(let id): "invalid device id '\(id)' (letters, digits and - only)"
        case .missingFolder(let path): "sync folder \(path) is missing or not a folder"
        case .file(let path, let reason): "sync folder file \(path): \(reason)"
        case .notSetUp: "no folder sync (zeader sync add folder:PATH sets one up)"
        case .alreadySetUp(let folder): "this store syncs through \(folder) already (zeader sync remove folder first)"
        case .inMemoryStore: "folder sync needs a store file"
        }
    }

    /// Whether the user's input is at fault (exit status 2), not a file or the folder.
    ///
    /// ```swift
    /// FolderSyncError.notSetUp.isUsageError   // true
    /// ```
    public var isUsageError: Bool {
        switch self {
        case .invalidDevice, .missingFolder, .notSetUp, .alreadySetUp, .inMemoryStore: true
        case .file: false
        }
    }
}

extension FolderSyncRun.Refusal: CustomStringConvertible {
    /// One line naming what another device's entry asked for and why it was not done.
    ///
    /// ```swift
    /// FolderSyncRun.Refusal.notWebFeed(url: "exec:rm -rf ~", device: "k3v9").description
    /// // "refused a subscription from device k3v9: exec:rm -rf ~ is not an http(s) feed"
    /// ```
    public var description: String {
        switch self {
        case .notWebFeed(let url, let device):
            "refused a subscription from device \(device): \(url) is not an http(s) feed"
        case .smartFeed(let name, let device, let reason):
            "refused smart feed '\(name)' from device \(device): \(reason)"
        case .ignoreRule(let rule, let device, let reason):
            "refused ignore rule '\(rule)' from device \(device): \(reason)"
        }
    }
}

extension Messages {
    /// A smart feed folder sync keeps on this device: its query names a login.
    ///
    /// ```swift
    /// Messages.folderSyncHeldBackSmartFeed("Work")
    /// // "not sent to the sync folder: smart feed 'Work' (its query names a login)"
    /// ```
    public static func folderSyncHeldBackSmartFeed(_ name: String) -> String {
        "not sent to the sync folder: smart feed '\(name)' (its query names a login)"
    }

    /// An ignore rule folder sync keeps on this device, its login masked.
    ///
    /// ```swift
    /// Messages.folderSyncHeldBackRule("https://a:pw@example.org/x\tread == YES")
    /// // "not sent to the sync folder: ignore rule 'https://***@example.org/x read == YES' (it names a login)"
    /// ```
    public static func folderSyncHeldBackRule(_ rule: String) -> String {
        let shown = FolderSyncFeedURL.redacted(rule).replacingOccurrences(of: "\t", with: " ")
        return "not sent to the sync folder: ignore rule '\(shown)' (it names a login)"
    }

    /// A folder sync run that failed, as the reader names it beside its refresh.
    ///
    /// ```swift
    /// Messages.folderSyncFailed("sync folder /media/sync is missing or not a folder")
    /// // "folder sync failed: sync folder /media/sync is missing or not a folder"
    /// ```
    public static func folderSyncFailed(_ problem: String) -> String { "folder sync failed: \(problem)" }

    /// A feed another device reads with a login, subscribed here without one.
    ///
    /// ```swift
    /// Messages.folderSyncNeedsLogin("https://example.org/private.xml")
    /// // "needs a login here: https://example.org/private.xml (another device reads it with one, not shared)"
    /// ```
    public static func folderSyncNeedsLogin(_ url: String) -> String {
        "needs a login here: \(url) (another device reads it with one, not shared)"
    }
}

extension FolderSyncRun {
    /// The one line a sync through a folder ends with.
    ///
    /// ```swift
    /// run.line   // "folder sync: 3 changes sent, 12 received, 2 applied here"
    /// ```
    public var line: String {
        func count(_ n: Int, _ what: String) -> String { "\(n) \(what)\(n == 1 ? "" : "s")" }
        var line = "folder sync: \(count(sent, "change")) sent, \(received) received, \(applied) applied here"
        if !refusals.isEmpty { line += ", \(refusals.count) refused" }
        if compacted { line += ", files compacted" }
        return line
    }

    /// What the reading of the folder found that the user may need to know, one line each.
    ///
    /// ```swift
    /// for line in run.problems { print(line) }   // "damaged line skipped: zeader-sync/k3v9/log-1.jsonl:4"
    /// ```
    public var problems: [String] { FolderSyncStatus.lines(for: report) }

    /// What a person must hear of a run even when it ran in the background (the reader's
    /// refresh): entries refused, entries held back, damaged lines. Files still being written,
    /// conflict copies, clocks ahead and devices gone are how sync tools work: `sync status` names them.
    ///
    /// ```swift
    /// run.warnings.first   // "refused a subscription from device k3v9: exec:rm -rf ~ is not an http(s) feed"
    /// ```
    public var warnings: [String] {
        refusals.map(\.description) + heldBack
            + report.damagedLines.map { "damaged line skipped: \($0.file):\($0.line)" }
    }
}

extension FolderSyncStatus {
    /// The status as lines of text.
    ///
    /// ```swift
    /// print(status.text, terminator: "")
    /// ```
    public var text: String {
        var lines = [
            "folder: \(folder)", "device: \(device)",
            "other devices: \(otherDevices.isEmpty ? "none yet" : otherDevices.joined(separator: ", "))",
            "last sync: \(lastSync.map(JSONText.timestamp) ?? "never")",
            "this device's files: \(ByteCount.text(Int64(ownSize)))",
        ]
        lines += refusals.map(\.description)
        lines += needsLogin.map(Messages.folderSyncNeedsLogin)
        lines += Self.lines(for: report)
        return lines.map { $0 + "\n" }.joined()
    }

    /// The lines of a reading's report: damaged lines, files still being written, conflict
    /// copies, clocks ahead, devices gone.
    static func lines(for report: FolderSyncReport) -> [String] {
        var lines: [String] = []
        for damaged in report.damagedLines { lines.append("damaged line skipped: \(damaged.file):\(damaged.line)") }
        for file in report.incompleteFiles { lines.append("still being written (read once whole): \(file)") }
        for file in report.conflictCopies { lines.append("conflict copy read and folded back: \(file)") }
        for (device, ahead) in report.clocksAhead.sorted(by: { $0.key < $1.key }) {
            lines.append("clock ahead: device \(device) stamps changes up to \(Int(ahead.rounded(.up))) s in the future")
        }
        for device in report.goneDevices { lines.append("device gone (its changes are kept): \(device)") }
        return lines
    }
}
