import Foundation

extension SyncFolder {
    /// Makes this device's files hold every entry of `state` it made: appends the ones they
    /// lack — changes not written yet, and ones a sync tool or a git checkout took out of a
    /// file. Returns how many it appended. While the files are as `marks` left them, only
    /// the entries made since are looked at; otherwise the files are read to see.
    ///
    /// ```swift
    /// state.apply(FolderSyncEntry(stamp: clock.stamp(), change: .read(key, true)))
    /// try folder.publish(state, marks: &publishMarks)   // 1
    /// ```
    @discardableResult
    public func publish(_ state: FolderSyncState, marks: inout FolderPublishMarks) throws(FolderSyncError) -> Int {
        let own = state.entries(madeBy: [device])
        let missing: [FolderSyncEntry]
        if let written = marks.written, marks.files == ownMarks() {
            missing = own.filter { $0.stamp > written }
        } else {
            let inFiles = Set(try ownFiles().flatMap(\.entries))
            missing = own.filter { !inFiles.contains($0) }
        }
        if !missing.isEmpty { try append(missing) }
        marks = FolderPublishMarks(files: ownMarks(), written: own.last?.stamp)
        return missing.count
    }

    /// ``publish(_:marks:)`` reading this device's files to see what they lack.
    @discardableResult
    public func publish(_ state: FolderSyncState) throws(FolderSyncError) -> Int {
        var marks = FolderPublishMarks()
        return try publish(state, marks: &marks)
    }

    /// The marks of this device's own files, by name.
    func ownMarks() -> [String: FolderReadMarks.FileMark] {
        var marks: [String: FolderReadMarks.FileMark] = [:]
        for name in Self.names(in: ownDirectory) { marks[name] = Self.mark(of: ownDirectory.appendingPathComponent(name)) }
        return marks
    }

    /// Replaces this device's files by one snapshot of what they add up to in `state` (with
    /// the entries of `carrying`, devices whose folders are gone, so their changes outlive
    /// them), and folds in conflict copies of its files. Other devices lose nothing: every
    /// entry left out had been beaten by one kept.
    ///
    /// ```swift
    /// if folder.ownSize() > SyncFolder.compactionSize { try folder.compact(state, carrying: report.goneDevices) }
    /// ```
    public func compact(_ state: FolderSyncState, carrying goneDevices: [String] = []) throws(FolderSyncError) {
        let entries = state.entries(madeBy: Set([device] + goneDevices))
        let stamp = entries.last?.stamp ?? HybridTimestamp(millis: 0, counter: 0, device: device)
        let old = Self.names(in: ownDirectory).filter { Self.kind(ofFileNamed: $0) != .skipped }
        let name = "snapshot-\(stamp.text).jsonl"
        try write(entries, toNewFile: ownDirectory.appendingPathComponent(name))
        for file in old where file != name {
            try? FileManager.default.removeItem(at: ownDirectory.appendingPathComponent(file))
        }
    }

    /// The bytes this device's files take.
    public func ownSize() -> Int {
        Self.names(in: ownDirectory).compactMap { Self.mark(of: ownDirectory.appendingPathComponent($0))?.size }.reduce(0, +)
    }

    /// This device's readable files with their entries.
    func ownFiles() throws(FolderSyncError) -> [(name: String, entries: [FolderSyncEntry])] {
        var files: [(name: String, entries: [FolderSyncEntry])] = []
        for name in Self.names(in: ownDirectory) where Self.kind(ofFileNamed: name) != .skipped {
            let url = ownDirectory.appendingPathComponent(name)
            guard let mark = Self.mark(of: url), mark.size <= Self.fileSizeLimit else { continue }
            do {
                files.append((name, Self.entries(inText: try Data(contentsOf: url)).entries))
            } catch {
                throw .file(path: url.path, reason: error.localizedDescription)
            }
        }
        return files
    }

    /// Appends whole lines to this device's newest log, or starts a new one when it is full
    /// or its last line was cut off.
    func append(_ entries: [FolderSyncEntry]) throws(FolderSyncError) {
        try createOwnDirectory()
        let logs = Self.names(in: ownDirectory).compactMap { name -> (Int, String)? in
            if case .log(let number) = Self.kind(ofFileNamed: name) { (number, name) } else { nil }
        }.sorted { $0.0 < $1.0 }
        var name = "log-1.jsonl"
        if let (number, last) = logs.last {
            let url = ownDirectory.appendingPathComponent(last)
            let endsWhole: Bool
            do {
                let lastByte = try Self.lastByte(of: url)
                endsWhole = lastByte == nil || lastByte == UInt8(ascii: "\n")
            } catch {
                endsWhole = false
            }
            name = (Self.mark(of: url)?.size ?? 0) < Self.logSizeLimit && endsWhole ? last : "log-\(number + 1).jsonl"
        }
        let url = ownDirectory.appendingPathComponent(name)
        let text = entries.map { $0.line + "\n" }.joined()
        guard FileManager.default.fileExists(atPath: url.path) else {
            try write(text, toNewFile: url)
            return
        }
        do {
            let handle = try FileHandle(forWritingTo: url)
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(text.utf8))
            try handle.synchronize()
        } catch {
            throw .file(path: url.path, reason: error.localizedDescription)
        }
    }

    /// Writes a new file whole: to a hidden name first, which sync tools skip, then renamed.
    func write(_ entries: [FolderSyncEntry], toNewFile url: URL) throws(FolderSyncError) {
        try write(entries.map { $0.line + "\n" }.joined(), toNewFile: url)
    }

    private func write(_ text: String, toNewFile url: URL) throws(FolderSyncError) {
        try createOwnDirectory()
        do {
            try Data(text.utf8).write(to: url, options: .atomic)
        } catch {
            throw .file(path: url.path, reason: error.localizedDescription)
        }
    }

    private func createOwnDirectory() throws(FolderSyncError) {
        guard Self.isDirectory(root) else { throw .missingFolder(path: root.path) }
        do {
            try FileManager.default.createDirectory(at: ownDirectory, withIntermediateDirectories: true)
        } catch {
            throw .file(path: ownDirectory.path, reason: error.localizedDescription)
        }
    }

    /// The last byte of a file; nil for an empty one.
    private static func lastByte(of url: URL) throws -> UInt8? {
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let end = try handle.seekToEnd()
        guard end > 0 else { return nil }
        try handle.seek(toOffset: end - 1)
        return try handle.read(upToCount: 1)?.first
    }
}

/// What ``SyncFolder/publish(_:marks:)`` last left in this device's files: their marks and
/// the latest entry written, so the next publish need not read them back.
public struct FolderPublishMarks: Codable, Equatable, Sendable {
    var files: [String: FolderReadMarks.FileMark] = [:]
    var written: HybridTimestamp?

    public init() {}

    init(files: [String: FolderReadMarks.FileMark], written: HybridTimestamp?) {
        self.files = files
        self.written = written
    }
}
