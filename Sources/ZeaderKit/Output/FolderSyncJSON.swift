import Foundation

/// `zeader sync status --json` for folder sync: one object `{"folder", "device", "devices"
/// (the other devices), "lastSync", "ownBytes", "refused" (lines), "needsLogin" (feed URLs),
/// "damagedLines" ([{"file", "line"}]), "incompleteFiles", "conflictCopies", "clocksAhead"
/// ({device: seconds}), "goneDevices"}`.
///
/// ```swift
/// CommandOutput.write(FolderSyncJSON.status(status))
/// ```
public enum FolderSyncJSON {
    /// The status as one line of JSON, with its newline.
    public static func status(_ status: FolderSyncStatus) -> String {
        var out = "{\"folder\":"
        JSONText.appendString(status.folder, to: &out)
        out += ",\"device\":"
        JSONText.appendString(status.device, to: &out)
        out += ",\"devices\":"
        JSONText.appendStrings(status.otherDevices, to: &out)
        out += ",\"lastSync\":"
        JSONText.appendDate(status.lastSync, to: &out)
        out += ",\"ownBytes\":\(status.ownSize),\"refused\":"
        JSONText.appendStrings(status.refusals.map(\.description), to: &out)
        out += ",\"needsLogin\":"
        JSONText.appendStrings(status.needsLogin, to: &out)
        out += ",\"damagedLines\":["
        for (index, damaged) in status.report.damagedLines.enumerated() {
            out += index == 0 ? "{\"file\":" : ",{\"file\":"
            JSONText.appendString(damaged.file, to: &out)
            out += ",\"line\":\(damaged.line)}"
        }
        out += "],\"incompleteFiles\":"
        JSONText.appendStrings(status.report.incompleteFiles, to: &out)
        out += ",\"conflictCopies\":"
        JSONText.appendStrings(status.report.conflictCopies, to: &out)
        out += ",\"clocksAhead\":{"
        for (index, (device, ahead)) in status.report.clocksAhead.sorted(by: { $0.key < $1.key }).enumerated() {
            if index > 0 { out += "," }
            JSONText.appendString(device, to: &out)
            out += ":\(Int(ahead.rounded(.up)))"
        }
        out += "},\"goneDevices\":"
        JSONText.appendStrings(status.report.goneDevices, to: &out)
        return out + "}\n"
    }
}
