import Foundation
import ZeaderConfig

/// One row of the podcast queue as `podlist-format` shows it: podboat's fields, from the
/// episode's state in the store and its download in this reader.
///
/// ```swift
/// let row = PodcastRow(status: .queued, received: 0, total: 12_582_912, bytesPerSecond: 0,
///                      url: "https://a.example/1.mp3", file: "")
/// PodcastRows.line(row, index: 0, format: nil, width: 80)
/// ```
struct PodcastRow: Equatable {
    /// podboat's words for an episode's state.
    enum Status: String, Equatable {
        case queued, downloading, ready, canceled, failed, played, finished
    }

    var status: Status
    /// Bytes on disk.
    var received: Int64
    /// The file's size when known (the feed's or the server's word), else 0.
    var total: Int64
    var bytesPerSecond: Double
    var url: String
    /// The file the episode is (or was last) downloaded to; empty before its download.
    var file: String
}

enum PodcastRows {
    /// podboat's default `podlist-format`.
    static let defaultFormat = FormatString("%4i [%6dMB/%6tMB] [%5p %%] [%12K] %-20S %u -> %F")

    /// The row of the `index`th episode (0-based; `%i` counts from 1), `width` columns wide.
    static func line(_ row: PodcastRow, index: Int, format: FormatString?, width: Int) -> String {
        let megabyte = 1024.0 * 1024.0
        let percent = row.total > 0 ? min(100, Double(row.received) / Double(row.total) * 100) : 0
        return (format ?? defaultFormat).render(width: width) { field in
            switch field {
            case "i": return String(index + 1)
            case "d": return String(format: "%.1f", Double(row.received) / megabyte)
            case "t": return String(format: "%.1f", Double(row.total) / megabyte)
            case "p": return String(format: "%.1f", percent)
            case "k": return String(format: "%.2f", row.bytesPerSecond / 1024)
            case "K": return speed(row.bytesPerSecond)
            case "S": return row.status.rawValue
            case "u": return ReaderView.clean(row.url)
            case "F": return ReaderView.clean(row.file)
            case "b": return ReaderView.clean((row.file as NSString).lastPathComponent)
            default: return ""
            }
        }
    }

    /// podboat's `%K`: the speed in KB/s, MB/s or GB/s.
    static func speed(_ bytesPerSecond: Double) -> String {
        var value = bytesPerSecond / 1024
        for unit in ["KB/s", "MB/s"] {
            if value < 1024 { return String(format: "%.2f", value) + " " + unit }
            value /= 1024
        }
        return String(format: "%.2f", value) + " GB/s"
    }
}
