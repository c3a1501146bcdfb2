import Feeds
import Foundation
import ObjectGraph

// v3 (podcasts): an item's enclosure — the media file a podcast episode is — as five
// attributes of FeedItem rather than an entity of its own.
//
// Why attributes: a reader plays one file per episode (newsboat keeps one per item too:
// `enclosure_url`, `enclosure_type`), so one enclosure per item covers the use; attributes
// cost no join when the item list marks items with media, and they read plainly in
// predicates (`zeader items --where 'enclosureURL != nil'`, a smart feed of the podcast
// queue: `enclosureQueued == YES`). All five are optional or defaulted, so the step from
// version 2 is inferred. When a feed gives several enclosures, ``EnclosureChoice`` picks the
// one stored (the first audio or video file, else the first).

extension ZeaderModel {
    /// The attributes version 3 adds to FeedItem for podcasts.
    ///
    /// ```swift
    /// entities[1].attributes += ZeaderModel.enclosureAttributes()
    /// ```
    static func enclosureAttributes() -> [AttributeDescription] {
        [
            .string("enclosureURL"), .string("enclosureType"), .integer("enclosureLength", optional: true),
            .bool("enclosureQueued", defaultValue: false, indexed: true), .string("enclosureFile"),
        ]
    }
}

extension FeedItem {
    /// The enclosure's absolute URL (http or https), nil when the item has none (model version 3).
    public var enclosureURL: String? {
        get { String(fromValue: self["enclosureURL"]) }
        set { self["enclosureURL"] = newValue.valueRepresentation }
    }

    /// The enclosure's MIME type as the feed gave it (`audio/mpeg`).
    public var enclosureType: String? {
        get { String(fromValue: self["enclosureType"]) }
        set { self["enclosureType"] = newValue.valueRepresentation }
    }

    /// The enclosure's size in bytes as the feed announced it (often wrong or 0).
    public var enclosureLength: Int64? {
        get { Int64(fromValue: self["enclosureLength"]) }
        set { self["enclosureLength"] = newValue.valueRepresentation }
    }

    /// In the podcast download queue (newsboat's `e`).
    public var enclosureQueued: Bool {
        get { Bool(fromValue: self["enclosureQueued"]) ?? false }
        set { self["enclosureQueued"] = .bool(newValue) }
    }

    /// Where the downloaded file is, once `zeader podcasts download` has finished it.
    public var enclosureFile: String? {
        get { String(fromValue: self["enclosureFile"]) }
        set { self["enclosureFile"] = newValue.valueRepresentation }
    }
}

/// Which of an item's enclosures is stored: the first audio or video file (podcast media, as
/// newsboat and podboat count it); images, documents and enclosures with other schemes
/// (`data:`, `javascript:`, files) are never kept, so a feed's pictures are no podcast.
///
/// ```swift
/// EnclosureChoice.primary(of: parsed.enclosures)?.url
/// ```
public enum EnclosureChoice {
    /// The enclosure to store, or nil when none is audio or video.
    public static func primary(of enclosures: [Enclosure]) -> Enclosure? {
        enclosures.first { isFetchable($0.url) && isMedia($0) }
    }

    /// Audio or video by its type (`audio/*`, `video/*`, `application/ogg`); without a type,
    /// or with a generic one, by the file name's extension.
    static func isMedia(_ enclosure: Enclosure) -> Bool {
        let type = enclosure.type?.lowercased().split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
        if type.hasPrefix("audio/") || type.hasPrefix("video/") || type == "application/ogg" { return true }
        guard type.isEmpty || genericTypes.contains(type) else { return false }
        let name = URL(string: enclosure.url)?.pathExtension.lowercased() ?? ""
        return mediaExtensions.contains(name)
    }

    /// Types that say nothing of the content: the file name decides.
    static let genericTypes: Set<String> = ["application/octet-stream", "binary/octet-stream", "application/binary"]

    /// Audio and video file name extensions.
    static let mediaExtensions: Set<String> = [
        "mp3", "m4a", "m4b", "aac", "ogg", "oga", "opus", "flac", "wav", "mp4", "m4v", "webm", "mkv", "mov", "ogv",
    ]

    static func isFetchable(_ url: String) -> Bool {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(), let host = parsed.host else {
            return false
        }
        return (scheme == "http" || scheme == "https") && !host.isEmpty
    }
}

extension ItemImport {
    /// Stores `enclosure` on a new item.
    static func storeEnclosure(_ enclosure: Enclosure, in item: FeedItem) {
        item.enclosureURL = enclosure.url
        if let type = enclosure.type { item.enclosureType = type }
        if let length = enclosure.length, length >= 0 { item.enclosureLength = length }
    }

    /// Brings a known item's enclosure up to date; the queue flag and the downloaded file
    /// stay unless the enclosure's URL changed (a new file: the old download is not it).
    /// Returns whether anything changed.
    static func updateEnclosure(of item: FeedItem, from parsed: ParsedItem) -> Bool {
        let enclosure = EnclosureChoice.primary(of: parsed.enclosures)
        let length = enclosure?.length.flatMap { $0 >= 0 ? $0 : nil }
        guard item.enclosureURL != enclosure?.url || item.enclosureType != enclosure?.type || item.enclosureLength != length
        else { return false }
        if item.enclosureURL != enclosure?.url {
            item.enclosureURL = enclosure?.url
            if item.enclosureFile != nil { item.enclosureFile = nil }
        }
        if item.enclosureType != enclosure?.type { item.enclosureType = enclosure?.type }
        if item.enclosureLength != length { item.enclosureLength = length }
        return true
    }
}
