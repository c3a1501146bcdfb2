import Foundation

/// An item's enclosure as listings show it: plain values, safe to pass between queues.
///
/// ```swift
/// let enclosure = EnclosureSummary(url: "https://x.example/a.mp3", type: "audio/mpeg", length: 12_345_678)
/// enclosure.headerLine   // "Enclosure: https://x.example/a.mp3 (audio/mpeg, 12.3 MB)"
/// ```
public struct EnclosureSummary: Sendable, Equatable {
    /// The media file's URL.
    public var url: String
    /// Its MIME type, as the feed gave it.
    public var type: String?
    /// Its size in bytes, as the feed announced it.
    public var length: Int64?
    /// In the podcast download queue.
    public var queued: Bool
    /// The downloaded file's path, once downloaded.
    public var file: String?

    /// An enclosure summary; `EnclosureSummary(url: "https://x.example/a.mp3")`.
    public init(url: String, type: String? = nil, length: Int64? = nil, queued: Bool = false, file: String? = nil) {
        self.url = url
        self.type = type
        self.length = length
        self.queued = queued
        self.file = file
    }

    /// The item's enclosure, or nil when it has none (read on the item's context's queue).
    ///
    /// ```swift
    /// if let enclosure = EnclosureSummary(item) { lines.append(enclosure.headerLine) }
    /// ```
    public init?(_ item: FeedItem) {
        guard let url = item.enclosureURL else { return nil }
        self.init(
            url: url, type: item.enclosureType, length: item.enclosureLength, queued: item.enclosureQueued,
            file: item.enclosureFile)
    }

    /// The article header's line: `Enclosure: URL (type, size)`, the parenthesis left out
    /// when the feed gave neither. Feed text: the caller strips control characters as for
    /// any other header line.
    ///
    /// ```swift
    /// EnclosureSummary(url: "https://x.example/a.mp3", type: "audio/mpeg").headerLine   // "Enclosure: https://x.example/a.mp3 (audio/mpeg)"
    /// ```
    public var headerLine: String {
        var details: [String] = []
        if let type, !type.isEmpty { details.append(type) }
        if let length, length > 0 { details.append(ByteCount.text(length)) }
        var line = "Enclosure: \(url)"
        if !details.isEmpty { line += " (\(details.joined(separator: ", ")))" }
        return line
    }

    /// Appends `{"url","type","length","queued","file"}` (or `null` for no enclosure) to `out`.
    ///
    /// ```swift
    /// EnclosureSummary.appendJSON(item.enclosure, to: &out)
    /// ```
    public static func appendJSON(_ enclosure: EnclosureSummary?, to out: inout String) {
        guard let enclosure else {
            out += "null"
            return
        }
        out += "{\"url\":"
        JSONText.appendString(enclosure.url, to: &out)
        out += ",\"type\":"
        JSONText.appendString(enclosure.type, to: &out)
        out += ",\"length\":" + (enclosure.length.map { String($0) } ?? "null")
        out += ",\"queued\":\(enclosure.queued),\"file\":"
        JSONText.appendString(enclosure.file, to: &out)
        out += "}"
    }
}
