import Foundation

extension SyncFolder {
    /// Reads the files of every device (this one's too: a sync tool or git may have changed
    /// them) that changed since `marks`. Entries of files read before are returned again
    /// when such a file changed; applying them again changes nothing.
    ///
    /// ```swift
    /// let result = try folder.read(after: marks)
    /// state.apply(result.entries)
    /// for damaged in result.report.damagedLines { print("\(damaged.file):\(damaged.line)") }
    /// ```
    public func read(after marks: FolderReadMarks, now: Date = Date()) throws(FolderSyncError) -> FolderReadResult {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .missingFolder(path: root.path)
        }
        var report = FolderSyncReport()
        var newMarks = FolderReadMarks()
        var entries: [FolderSyncEntry] = []
        let nowMillis = now.timeIntervalSince1970 * 1000
        for deviceName in Self.names(in: devicesDirectory) {
            let relativeDevice = "\(Self.directoryName)/\(deviceName)"
            guard FolderSyncDevice.isValidID(deviceName), Self.isDirectory(devicesDirectory.appendingPathComponent(deviceName))
            else {
                report.skippedFiles.append(relativeDevice)
                continue
            }
            report.devices.append(deviceName)
            newMarks.devices.insert(deviceName)
            let directory = devicesDirectory.appendingPathComponent(deviceName, isDirectory: true)
            for name in Self.names(in: directory) {
                let relative = "\(relativeDevice)/\(name)"
                let kind = Self.kind(ofFileNamed: name)
                if kind == .skipped {
                    report.skippedFiles.append(relative)
                    continue
                }
                if kind == .conflictCopy { report.conflictCopies.append(relative) }
                let url = directory.appendingPathComponent(name)
                guard let mark = Self.mark(of: url), mark.size <= Self.fileSizeLimit else {
                    report.skippedFiles.append(relative)
                    continue
                }
                if marks.files[relative] == mark {
                    newMarks.files[relative] = mark
                    continue
                }
                let data: Data
                do { data = try Data(contentsOf: url) } catch {
                    throw .file(path: url.path, reason: error.localizedDescription)
                }
                let found = Self.entries(inText: data)
                entries += found.entries
                report.damagedLines += found.damaged.map { .init(file: relative, line: $0) }
                if found.incomplete {
                    report.incompleteFiles.append(relative)
                } else {
                    newMarks.files[relative] = mark
                }
                for entry in found.entries where Double(entry.stamp.millis) - nowMillis > Self.clockSkewAllowance * 1000 {
                    let ahead = (Double(entry.stamp.millis) - nowMillis) / 1000
                    report.clocksAhead[entry.stamp.device] = max(report.clocksAhead[entry.stamp.device] ?? 0, ahead)
                }
            }
        }
        report.goneDevices = marks.devices.subtracting(newMarks.devices).sorted()
        return FolderReadResult(entries: entries, marks: newMarks, report: report)
    }

    /// The names in `directory`, sorted; none when it is missing.
    static func names(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
    }

    static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Size, modification time and file number of a regular file (not a link); nil otherwise.
    static func mark(of url: URL) -> FolderReadMarks.FileMark? {
        var info = stat()
        guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
        return .init(size: Int(info.st_size), modified: modified, fileNumber: UInt64(info.st_ino))
    }
}
