import Foundation
import ObjectGraph

/// An item's `"enclosure"` in a backup (version 2): `null` (the item had none) or
/// `{"url", "type", "length", "queued", "file"}`, checked before anything is stored, then
/// applied to the restored item.
///
/// The URL must be http or https with a host, as a refresh stores them; the queue flag and the
/// downloaded file's path are restored as they were, so a podcast queue survives the round
/// trip. A backup of version 1 has no key: the item's enclosure is left as stored.
///
/// ```swift
/// let enclosure = try BackupEnclosure(record.removeValue(forKey: "enclosure"), what: "item 3", path: path)
/// enclosure.apply(to: item)
/// ```
struct BackupEnclosure {
    /// What the restore does to the item's enclosure.
    enum Change: Equatable {
        /// No `"enclosure"` key: the stored enclosure stays.
        case keep
        /// `"enclosure": null`: the item has none.
        case clear
        /// The backup's enclosure.
        case set(EnclosureSummary)
    }

    let change: Change

    /// Reads the value of an item's `"enclosure"` key (nil: the key is missing); errors name
    /// `what` and the file.
    init(_ value: ImportValue?, what: String, path: String) throws(ZeaderError) {
        func refuse(_ reason: String) -> ZeaderError {
            .unreadableFile(path: path, reason: "\(what): \"enclosure\" \(reason)")
        }
        switch value {
        case nil:
            change = .keep
        case .null?:
            change = .clear
        case .object(let fields)?:
            guard case .string(let url)? = fields["url"] else {
                throw refuse("has no \"url\" string")
            }
            guard EnclosureChoice.isFetchable(url) else {
                throw refuse("has the URL \"\(url.prefix(80))\", not an http or https URL with a host")
            }
            var enclosure = EnclosureSummary(url: url)
            switch fields["type"] {
            case nil, .null?: break
            case .string(let type)?: enclosure.type = type
            case let other?: throw refuse("has a \"type\" that is \(other), not a string")
            }
            switch fields["length"] {
            case nil, .null?: break
            case .integer(let length)? where length >= 0: enclosure.length = length
            case .double(let length)? where length >= 0 && length.rounded() == length && length < 9.0e15:
                enclosure.length = Int64(length)
            case let other?: throw refuse("has a \"length\" that is \(other), not a count of bytes")
            }
            switch fields["queued"] {
            case nil, .null?: break
            case .bool(let queued)?: enclosure.queued = queued
            case let other?: throw refuse("has a \"queued\" that is \(other), not true or false")
            }
            switch fields["file"] {
            case nil, .null?: break
            case .string(let file)? where !file.isEmpty: enclosure.file = file
            case let other?: throw refuse("has a \"file\" that is \(other), not a path")
            }
            change = .set(enclosure)
        case let other?:
            throw refuse("is \(other), not an object or null")
        }
    }

    /// Gives `item` the backup's enclosure (on the item's context's queue).
    func apply(to item: FeedItem) {
        let wanted: EnclosureSummary?
        switch change {
        case .keep: return
        case .clear: wanted = nil
        case .set(let enclosure): wanted = enclosure
        }
        if item.enclosureURL != wanted?.url { item.enclosureURL = wanted?.url }
        if item.enclosureType != wanted?.type { item.enclosureType = wanted?.type }
        if item.enclosureLength != wanted?.length { item.enclosureLength = wanted?.length }
        if item.enclosureQueued != (wanted?.queued ?? false) { item.enclosureQueued = wanted?.queued ?? false }
        if item.enclosureFile != wanted?.file { item.enclosureFile = wanted?.file }
    }
}
