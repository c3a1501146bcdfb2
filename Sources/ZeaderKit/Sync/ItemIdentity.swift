import Foundation

/// What tells that an item stored here and one a sync server lists are the same article,
/// when the stored one has no server id yet (a feed's history, refreshed here before the
/// feed was synced): used once, when the feed joins the account.
///
/// Both sides compute the same identities and the best pairs win, each item in at most one:
/// 1. the entry's guid, where the server sends one (``GReaderClient/Item/guid``);
/// 2. the link, the same after ``normalizedLink(_:)`` on both sides, also after rebasing it
///    from the feed's URL to its site link (and back): Zeader resolves an item's relative
///    link against the feed's URL, FreshRSS (SimplePie) against the `self` link, else the
///    site link; for another base, the link here's part under the feed's directory (or its
///    path) ending the server's link, with the same title or date;
/// 3. the title (case and spaces aside) and the published date, which tell apart items that
///    share one link, and match items that have none;
/// 4. last, the same title published at the same second, whatever the links (a site moved
///    to another host or to https, a link given a tracking query).
///
/// Two items sharing a link are one article only when their titles are equal or their
/// published dates agree (one missing counts as agreeing); two items without a link only
/// when their titles are equal and their dates agree.
///
/// ```swift
/// let pairs = ItemIdentity.pairs(pulled, history, feedURL: server.url, siteLink: server.siteLink)
/// // pairs[0] == 2: the first pulled item is the third stored one
/// ```
enum ItemIdentity {
    /// One item's identities, on either side.
    ///
    /// ```swift
    /// let stored = ItemIdentity.Candidate(guid: item.guid, link: item.link, title: item.title, published: item.published)
    /// ```
    struct Candidate: Sendable, Equatable {
        var guid: String?
        var link: String?
        var title: String?
        var published: Date?
    }

    /// For each pulled item (by index) matched, the index of the stored item it is.
    static func pairs(
        _ pulled: [Candidate], _ stored: [Candidate], feedURL: String, siteLink: String?
    ) -> [Int: Int] {
        var index = Index(stored, feedURL: feedURL, siteLink: siteLink)
        return index.match(pulled)
    }

    /// A feed's stored items under all their keys, built once and matched against the
    /// pulled items chunk after chunk; a stored item matched is not matched again.
    ///
    /// ```swift
    /// var index = ItemIdentity.Index(history, feedURL: server.url, siteLink: server.siteLink)
    /// let pairs = index.match(pulledChunk)   // [pulled index: stored index]
    /// ```
    struct Index {
        private let stored: [Candidate]
        private let titles: [String?]
        private let exactLinks: [String?]
        private let feedBase: Parts?
        private let siteBase: Parts?
        private var byGuid: [String: [Int]] = [:]
        private var byLink: [String: [Int]] = [:]
        private var byTitle: [String: [Int]] = [:]
        private var byAnyTitle: [String: [Int]] = [:]
        private var byTail: [Substring: [Int]] = [:]
        private var taken = Set<Int>()

        /// Whether every stored item is matched (or there is none).
        var isExhausted: Bool { taken.count == stored.count }

        init(_ stored: [Candidate], feedURL: String, siteLink: String?) {
            self.stored = stored
            feedBase = Parts(feedURL)
            siteBase = siteLink.flatMap(Parts.init)
            titles = stored.map { comparableTitle($0.title) }
            exactLinks = stored.map { nonEmpty($0.link).flatMap(normalizedLink) }
            // Each stored item under all its keys: its guid, its link as stored and rebased
            // to the site link, the link's tails, and its title.
            for (index, item) in stored.enumerated() {
                if let guid = nonEmpty(item.guid) { byGuid[guid, default: []].append(index) }
                if let title = titles[index], item.published != nil { byAnyTitle[title, default: []].append(index) }
                if let exact = exactLinks[index] {
                    byLink[exact, default: []].append(index)
                    if let parts = item.link.flatMap(Parts.init) {
                        for key in rebasedKeys(parts, from: feedBase, to: siteBase) where key != exact {
                            byLink[key, default: []].append(index)
                        }
                        for tail in tails(parts, under: feedBase) { byTail[tail, default: []].append(index) }
                    }
                } else if let title = titles[index] {
                    byTitle[title, default: []].append(index)
                }
            }
        }

        /// For each of `pulled` (by index) matched, the index of the stored item it is; those
        /// are taken.
        mutating func match(_ pulled: [Candidate]) -> [Int: Int] {
            guard !pulled.isEmpty, !isExhausted else { return [:] }
            struct Pair {
                var pulled: Int
                var stored: Int
                var score: Int
            }
            var scored: [Pair] = []
            for (index, item) in pulled.enumerated() {
                for (candidate, score) in scores(item) where !taken.contains(candidate) {
                    scored.append(Pair(pulled: index, stored: candidate, score: score))
                }
            }
            // The best pairs first; among equals, the earlier items (a stable, repeatable choice).
            scored.sort { ($0.score, -$0.pulled, -$0.stored) > ($1.score, -$1.pulled, -$1.stored) }
            var result: [Int: Int] = [:]
            for pair in scored where result[pair.pulled] == nil && !taken.contains(pair.stored) {
                result[pair.pulled] = pair.stored
                taken.insert(pair.stored)
            }
            return result
        }

        /// The stored items `item` may be, each with how strongly: a guid over an exact link
        /// over a rebased one over a tail; an equal title and an equal date add to each.
        private func scores(_ item: Candidate) -> [Int: Int] {
            var scores: [Int: Int] = [:]
            func consider(_ candidate: Int, _ score: Int) {
                scores[candidate] = max(scores[candidate] ?? 0, score)
            }
            if let guid = nonEmpty(item.guid) { for candidate in byGuid[guid] ?? [] { consider(candidate, 64) } }
            let title = comparableTitle(item.title)
            if let link = nonEmpty(item.link), let exact = normalizedLink(link) {
                let parts = Parts(link)
                var keys = [exact]
                if let parts { keys += rebasedKeys(parts, from: siteBase, to: feedBase).filter { $0 != exact } }
                for key in keys {
                    for candidate in byLink[key] ?? [] {
                        let titleEqual = title != nil && title == titles[candidate]
                        guard titleEqual || datesAgree(item.published, stored[candidate].published) else { continue }
                        let linkScore = exactLinks[candidate] == exact ? 8 : 4
                        let dateScore = datesEqual(item.published, stored[candidate].published) ? 1 : 0
                        consider(candidate, linkScore + (titleEqual ? 2 : 0) + dateScore)
                    }
                }
                // A relative link the server resolved against another base (an Atom feed's
                // `self` link, a host of its own): the same path after any of its `/`, with
                // the same title or date.
                for suffix in parts.map(suffixes) ?? [] {
                    for candidate in byTail[suffix] ?? [] {
                        let titleEqual = title != nil && title == titles[candidate]
                        let dateEqual = datesEqual(item.published, stored[candidate].published)
                        guard titleEqual || dateEqual else { continue }
                        consider(candidate, 3 + (titleEqual ? 2 : 0) + (dateEqual ? 1 : 0))
                    }
                }
            } else if let title {
                for candidate in byTitle[title] ?? [] where datesAgree(item.published, stored[candidate].published) {
                    consider(candidate, 2 + (datesEqual(item.published, stored[candidate].published) ? 1 : 0))
                }
            }
            // A link that changed for good (another host, https, a tracking query): the same
            // title at the same second is the same article.
            if let title, item.published != nil {
                for candidate in byAnyTitle[title] ?? [] where datesEqual(item.published, stored[candidate].published) {
                    consider(candidate, 1)
                }
            }
            return scores
        }
    }

    /// `link` made comparable: surrounding spaces trimmed; for http(s), the scheme dropped
    /// (a feed and its copy on a server may be fetched one over http, the other over https),
    /// the host lowercased without a trailing dot, the default port dropped, `.` and `..`
    /// segments removed, an empty path made `/`, one trailing `/` dropped, an empty query or
    /// fragment dropped, characters outside ASCII percent-encoded, and percent-escapes made
    /// uppercase (unreserved characters decoded).
    /// Other schemes only have their scheme lowercased. Nil for an empty link.
    ///
    /// ```swift
    /// ItemIdentity.normalizedLink("HTTPS://Example.ORG:443/a/./b/")   // "//example.org/a/b"
    /// ```
    static func normalizedLink(_ link: String) -> String? {
        if let parts = Parts(link) { return parts.key }
        let bytes = encodedOutsideASCII(trimmed(link))
        guard !bytes.isEmpty else { return nil }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return String(decoding: bytes, as: UTF8.self) }
        return String(decoding: bytes[..<colon], as: UTF8.self).lowercased() + String(decoding: bytes[colon...], as: UTF8.self)
    }

    /// An http(s) link normalized as ``normalizedLink(_:)`` makes it, its path's trailing `/`
    /// kept (a base's directory is read from it); nil for another scheme.
    ///
    /// ```swift
    /// ItemIdentity.Parts("HTTP://Example.org/blog/?p=1")?.key   // "//example.org/blog?p=1"
    /// ```
    struct Parts {
        /// `example.org:8080`.
        var authority: String
        /// `/a/b/`.
        var path: String
        /// `?x=1#top`, or empty.
        var suffix: String

        init?(_ link: String) {
            let bytes = encodedOutsideASCII(trimmed(link))
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
            var rest = bytes[(colon + 1)...]
            guard scheme == "http" || scheme == "https", rest.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) else {
                return nil
            }
            rest = rest.dropFirst(2)
            let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            var host = String(decoding: rest[..<(authorityEnd ?? rest.endIndex)], as: UTF8.self).lowercased()
            rest = rest[(authorityEnd ?? rest.endIndex)...]
            if host.hasSuffix(":80") && scheme == "http" || host.hasSuffix(":443") && scheme == "https" {
                host.removeLast(scheme == "http" ? 3 : 4)
            }
            if host.hasSuffix(":") { host.removeLast() }
            if host.hasSuffix(".") { host.removeLast() }
            var fragment: ArraySlice<UInt8> = []
            if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
                fragment = rest[(hash + 1)...]
                rest = rest[..<hash]
            }
            var query: ArraySlice<UInt8> = []
            if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
                query = rest[(mark + 1)...]
                rest = rest[..<mark]
            }
            authority = host
            path = removingDotSegments(percentNormalized(rest))
            if path.isEmpty { path = "/" }
            suffix = ""
            if !query.isEmpty { suffix += "?" + percentNormalized(query) }
            if !fragment.isEmpty { suffix += "#" + percentNormalized(fragment) }
        }

        init(authority: String, path: String, suffix: String) {
            self.authority = authority
            self.path = path
            self.suffix = suffix
        }

        /// The normalized link: `//authority/path?query#fragment`, one trailing `/` dropped.
        var key: String {
            let trimmed = path.utf8.count > 1 && path.hasSuffix("/") ? path.dropLast() : Substring(path)
            return "//" + authority + trimmed + suffix
        }

        /// `/a/b/` of `/a/b/feed.xml`.
        var directoryPath: Substring {
            path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[...$0] } ?? Substring(path)
        }
    }

    /// The keys of an http(s) link other than its own, rebased from the base `from` to `to`
    /// (a feed's URL, its site link): the link the other side made of the same relative
    /// reference. A link `from`'s document with another query (`?p=1`) is `to`'s with it; one
    /// under `from`'s directory is under `to`'s; on another host, the same path on `to`'s.
    static func rebasedKeys(_ link: Parts, from: Parts?, to: Parts?) -> [String] {
        guard let from, let to, link.authority == from.authority else { return [] }
        var keys: [String] = []
        let directory = from.directoryPath
        if link.path == from.path, !link.suffix.isEmpty {
            keys.append(Parts(authority: to.authority, path: to.path, suffix: link.suffix).key)
        } else if link.path.hasPrefix(directory) {
            let path = String(to.directoryPath) + link.path.dropFirst(directory.count)
            keys.append(Parts(authority: to.authority, path: path, suffix: link.suffix).key)
        }
        if to.authority != from.authority {
            keys.append(Parts(authority: to.authority, path: link.path, suffix: link.suffix).key)
        }
        return keys
    }

    /// What a relative reference may have been that made `link` here: its part under the
    /// feed's directory, and its path without the leading `/` (from its normalized key).
    static func tails(_ link: Parts, under feed: Parts?) -> [Substring] {
        let key = link.key
        let pathStart = key.utf8.index(key.startIndex, offsetBy: 2 + link.authority.utf8.count)
        var tails: [Substring] = []
        if let feed, feed.authority == link.authority {
            let directory = feed.directoryPath
            let path = key[pathStart...]
            if path.hasPrefix(directory), path.utf8.count > directory.utf8.count {
                tails.append(path.dropFirst(directory.count))
            }
        }
        let path = key[key.index(after: pathStart)...]
        if !path.isEmpty, !tails.contains(path) { tails.append(path) }
        return tails
    }

    /// `link`'s normalized key after each `/` of its path: `a/b?x` and `b?x` of `//host/a/b?x`.
    static func suffixes(_ link: Parts) -> [Substring] {
        let key = link.key
        let utf8 = key.utf8
        var index = utf8.index(utf8.startIndex, offsetBy: 2 + link.authority.utf8.count)
        let pathEnd = utf8[index...].firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? utf8.endIndex
        var suffixes: [Substring] = []
        while index < pathEnd {
            if utf8[index] == UInt8(ascii: "/") {
                let suffix = key[utf8.index(after: index)...]
                if !suffix.isEmpty { suffixes.append(suffix) }
            }
            index = utf8.index(after: index)
        }
        return suffixes
    }

    /// `text`'s bytes without surrounding ASCII whitespace.
    private static func trimmed(_ text: String) -> ArraySlice<UInt8> {
        let bytes = Array(text.utf8)
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || (0x09...0x0D).contains($0) }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }) else { return [] }
        let last = bytes.lastIndex(where: { !isSpace($0) })!
        return bytes[first...last]
    }

    /// Bytes outside printable ASCII (`é`, a space) as `%XX`, as a parser or a server that
    /// encodes them writes them.
    private static func encodedOutsideASCII(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard bytes.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return bytes }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count + 16)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in bytes {
            if byte <= 0x20 || byte >= 0x7F {
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            } else {
                encoded.append(byte)
            }
        }
        return encoded[...]
    }

    /// `%2f` → `%2F`, `%7E` → `~`: escapes of unreserved characters decoded, others uppercase.
    private static func percentNormalized(_ bytes: ArraySlice<UInt8>) -> String {
        guard bytes.contains(UInt8(ascii: "%")) else { return String(decoding: bytes, as: UTF8.self) }
        let bytes = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            {
                let value = high << 4 | low
                if isUnreserved(value) {
                    output.append(value)
                } else {
                    output += [UInt8(ascii: "%"), uppercaseHex(bytes[index + 1]), uppercaseHex(bytes[index + 2])]
                }
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func uppercaseHex(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte) ? byte - 32 : byte
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default: false
        }
    }

    /// RFC 3986's remove_dot_segments on a path.
    private static func removingDotSegments(_ path: String) -> String {
        guard path.contains("/.") || path.hasPrefix(".") else { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".":
                if last { output.append("") }
            case "..":
                if output.count > 1 { output.removeLast() }
                if last { output.append("") }
            default:
                output.append(segment)
            }
        }
        return output.joined(separator: "/")
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        return text
    }

    /// A title compared case and spaces aside; nil when empty.
    private static func comparableTitle(_ title: String?) -> String? {
        guard let title else { return nil }
        let words = title.lowercased().split(whereSeparator: \.isWhitespace)
        return words.isEmpty ? nil : words.joined(separator: " ")
    }

    /// Whether two published dates can be the same article's: equal to the second, or one missing.
    private static func datesAgree(_ a: Date?, _ b: Date?) -> Bool {
        guard let a, let b else { return true }
        return datesEqual(a, b)
    }

    private static func datesEqual(_ a: Date?, _ b: Date?) -> Bool {
        guard let a, let b else { return false }
        return abs(a.timeIntervalSince1970 - b.timeIntervalSince1970) < 1
    }
}
