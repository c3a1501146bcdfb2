import Foundation

/// A folder that devices keep in step with a sync tool (Syncthing, Dropbox, Nextcloud, git):
/// each device writes its changes to files of its own, `zeader-sync/DEVICE/log-N.jsonl`, one
/// ``FolderSyncEntry`` per line, and reads everyone's. Never a store: a copied SQLite file
/// can be torn by a sync tool, a line of text cannot hurt more than itself.
///
/// What sync tools do to folders is expected: files in transit (`.syncthing.*.tmp`, `~*`,
/// `*.part`) are skipped; a line still being written waits for its newline; a damaged line
/// is counted and skipped; conflict copies (`log-3.sync-conflict-….jsonl`, `log-3
/// (conflicted copy).jsonl`) are read like the file they copy and folded back by their
/// device; a file rewritten (by git, say) is read again whole. Reading is idempotent, so
/// reading a file twice, or two copies of it, changes nothing.
///
/// ```swift
/// let folder = try SyncFolder(root: URL(fileURLWithPath: "/home/me/Sync"), device: "k3v9x2ma7q")
/// try folder.publish(state)                              // writes what this device changed
/// let result = try folder.read(after: marks)             // what the others changed
/// state.apply(result.entries)
/// marks = result.marks
/// ```
public struct SyncFolder: Sendable {
    /// The folder inside the shared folder that holds every device's files.
    public static let directoryName = "zeader-sync"
    /// A device starts a new log file once its newest reaches this size.
    public static let logSizeLimit = 1 << 20
    /// A device compacts its files into one snapshot once they take more than this.
    public static let compactionSize = 4 * logSizeLimit
    /// A file larger than this is not read (no device writes one).
    public static let fileSizeLimit = 64 << 20
    /// Entries further than this ahead of this device's clock are named in the report.
    public static let clockSkewAllowance: TimeInterval = 300

    /// The shared folder the user named.
    public let root: URL
    /// This device's id.
    public let device: String

    public init(root: URL, device: String) throws(FolderSyncError) {
        guard FolderSyncDevice.isValidID(device) else { throw .invalidDevice(device) }
        self.root = root
        self.device = device
    }

    /// The folder of every device's files.
    public var devicesDirectory: URL { root.appendingPathComponent(Self.directoryName, isDirectory: true) }

    /// This device's own folder.
    public var ownDirectory: URL { devicesDirectory.appendingPathComponent(device, isDirectory: true) }
}

/// Why a sync folder could not be used.
public enum FolderSyncError: Error, Equatable, Sendable {
    /// A device id that is not letters, digits and `-`.
    case invalidDevice(String)
    /// The shared folder is missing or not a folder.
    case missingFolder(path: String)
    /// A file could not be read or written.
    case file(path: String, reason: String)
    /// The store has no folder sync (`zeader sync add folder:PATH` sets one up).
    case notSetUp
    /// The store syncs through another folder already (remove it first).
    case alreadySetUp(folder: String)
    /// An in-memory store (the demo) has no file to keep the state beside.
    case inMemoryStore
}

/// What a reading of the folder has seen of each file, so the next reading reads only the
/// files that changed since (by size, modification time and file number).
public struct FolderReadMarks: Codable, Equatable, Sendable {
    struct FileMark: Codable, Equatable, Sendable {
        var size: Int
        var modified: Double
        var fileNumber: UInt64
    }

    var files: [String: FileMark] = [:]
    /// The devices whose folders were there.
    var devices: Set<String> = []

    public init() {}
}

/// What a reading of the folder found, beside the entries: what the user may need to know.
public struct FolderSyncReport: Equatable, Sendable {
    /// A line that is not a valid entry, by file (relative to the shared folder) and line number.
    public struct DamagedLine: Equatable, Sendable {
        public var file: String
        public var line: Int
    }

    /// The devices whose folders are there.
    public var devices: [String] = []
    /// Devices whose folders were there before and are gone (their changes are kept).
    public var goneDevices: [String] = []
    public var damagedLines: [DamagedLine] = []
    /// Files whose last line is still being written (it is read once whole).
    public var incompleteFiles: [String] = []
    /// Conflict copies a sync tool made; their entries are read.
    public var conflictCopies: [String] = []
    /// Files skipped: in transit, not Zeader's, links, or larger than ``SyncFolder/fileSizeLimit``.
    public var skippedFiles: [String] = []
    /// Devices with entries stamped ahead of this device's clock, and by how much at most.
    public var clocksAhead: [String: TimeInterval] = [:]

    public init() {}
}

/// The entries of a reading, the marks for the next one, and the report.
public struct FolderReadResult: Sendable {
    public var entries: [FolderSyncEntry]
    public var marks: FolderReadMarks
    public var report: FolderSyncReport
}

extension SyncFolder {
    /// What kind of file a name in a device's folder is.
    enum FileKind: Equatable {
        /// `log-N.jsonl`, with its number.
        case log(Int)
        /// `snapshot-STAMP.jsonl`.
        case snapshot(HybridTimestamp)
        /// A copy a sync tool made of a log or snapshot when two versions met.
        case conflictCopy
        /// In transit, hidden, or not Zeader's.
        case skipped
    }

    static func kind(ofFileNamed name: String) -> FileKind {
        let transit = [".tmp", ".part", ".partial", ".crdownload", ".download", ".swp"]
        if name.hasPrefix(".") || name.hasPrefix("~") || transit.contains(where: { name.hasSuffix($0) }) {
            return .skipped
        }
        guard name.hasSuffix(".jsonl") else { return .skipped }
        let stem = name.dropLast(".jsonl".count)
        if stem.hasPrefix("log-"), let number = Int(stem.dropFirst(4)), number >= 0, String(number) == stem.dropFirst(4) {
            return .log(number)
        }
        if stem.hasPrefix("snapshot-"), let stamp = HybridTimestamp(text: String(stem.dropFirst(9))) {
            return .snapshot(stamp)
        }
        if stem.hasPrefix("log-") || stem.hasPrefix("snapshot-") { return .conflictCopy }
        return .skipped
    }

    /// The entries of one file's text, the numbers of its damaged lines, and whether its last
    /// line has no newline yet (left for a later reading).
    static func entries(inText data: Data) -> (entries: [FolderSyncEntry], damaged: [Int], incomplete: Bool) {
        var entries: [FolderSyncEntry] = []
        var damaged: [Int] = []
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let incomplete = !(lines.last?.isEmpty ?? true)
        for (index, bytes) in lines.dropLast().enumerated() {
            var line = Substring(decoding: bytes, as: UTF8.self)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.allSatisfy(\.isWhitespace) { continue }
            if let entry = FolderSyncEntry(line: line) {
                entries.append(entry)
            } else {
                damaged.append(index + 1)
            }
        }
        return (entries, damaged, incomplete)
    }
}
