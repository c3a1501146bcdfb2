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
        private let feedBase: URL?
        private let siteBase: URL?
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
            feedBase = URL(string: feedURL)
            siteBase = siteLink.flatMap { URL(string: $0) }
            titles = stored.map { comparableTitle($0.title) }
            exactLinks = stored.map { nonEmpty($0.link).flatMap(normalizedLink) }
            let feedDirectory = normalizedLink(feedURL).map(directory)
            // Each stored item under all its keys: its guid, its link as stored and rebased
            // to the site link, the link's tails, and its title.
            for (index, item) in stored.enumerated() {
                if let guid = nonEmpty(item.guid) { byGuid[guid, default: []].append(index) }
                if let title = titles[index], item.published != nil { byAnyTitle[title, default: []].append(index) }
                if let link = nonEmpty(item.link) {
                    for key in linkKeys(link, from: feedBase, to: siteBase) { byLink[key, default: []].append(index) }
                    for tail in exactLinks[index].map({ tails($0, under: feedDirectory) }) ?? [] {
                        byTail[tail, default: []].append(index)
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
            if let link = nonEmpty(item.link) {
                let exact = normalizedLink(link)
                for key in linkKeys(link, from: siteBase, to: feedBase) {
                    for candidate in byLink[key] ?? [] {
                        let titleEqual = title != nil && title == titles[candidate]
                        guard titleEqual || datesAgree(item.published, stored[candidate].published) else { continue }
                        let linkScore = exact != nil && exactLinks[candidate] == exact ? 8 : 4
                        let dateScore = datesEqual(item.published, stored[candidate].published) ? 1 : 0
                        consider(candidate, linkScore + (titleEqual ? 2 : 0) + dateScore)
                    }
                }
                // A relative link the server resolved against another base (an Atom feed's
                // `self` link, a host of its own): the same path after any of its `/`, with
                // the same title or date.
                for suffix in exact.map(suffixes) ?? [] {
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
        let text = percentEncodedOutsideASCII(link.trimmingCharacters(in: .whitespacesAndNewlines))
        guard !text.isEmpty else { return nil }
        guard let colon = text.firstIndex(of: ":") else { return text }
        let scheme = text[..<colon].lowercased()
        var rest = Substring(text[text.index(after: colon)...])
        guard scheme == "http" || scheme == "https", rest.hasPrefix("//") else { return scheme + ":" + rest }
        rest = rest.dropFirst(2)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        var host = rest[..<authorityEnd].lowercased()
        rest = rest[authorityEnd...]
        if host.hasSuffix(":80") && scheme == "http" || host.hasSuffix(":443") && scheme == "https" {
            host = String(host[..<host.lastIndex(of: ":")!])
        }
        if host.hasSuffix(":") { host.removeLast() }
        if host.hasSuffix(".") { host.removeLast() }
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        var query = ""
        if let mark = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: mark)...])
            rest = rest[..<mark]
        }
        var path = removingDotSegments(percentNormalized(String(rest)))
        if path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if path.isEmpty { path = "/" }
        var result = "//" + host + path
        if !query.isEmpty { result += "?" + percentNormalized(query) }
        if !fragment.isEmpty { result += "#" + percentNormalized(fragment) }
        return result
    }

    /// `//host/a/b/` of a normalized link `//host/a/b/feed.xml?x`: its host and directory.
    private static func directory(_ normalized: String) -> Substring {
        let document = normalized.prefix { $0 != "?" && $0 != "#" }
        guard let slash = document.lastIndex(of: "/") else { return document }
        return document[...slash]
    }

    /// What a relative reference may have been that made the normalized link `link` here:
    /// its part under the feed's `directory`, and its path without the leading `/`.
    private static func tails(_ link: String, under directory: Substring?) -> [Substring] {
        var tails: [Substring] = []
        if let directory, directory.count > 2, link.hasPrefix(directory), link.count > directory.count {
            tails.append(link.dropFirst(directory.count))
        }
        if let pathStart = link.dropFirst(2).firstIndex(of: "/") {
            let path = link[link.index(after: pathStart)...]
            if !path.isEmpty, !tails.contains(path) { tails.append(path) }
        }
        return tails
    }

    /// The normalized link `link` after each `/` of its path: `a/b?x` and `b?x` of `//host/a/b?x`.
    private static func suffixes(_ link: String) -> [Substring] {
        guard let pathStart = link.dropFirst(2).firstIndex(of: "/") else { return [] }
        let pathEnd = link[pathStart...].firstIndex { $0 == "?" || $0 == "#" } ?? link.endIndex
        var suffixes: [Substring] = []
        var index = pathStart
        while index < pathEnd {
            if link[index] == "/" {
                let suffix = link[link.index(after: index)...]
                if !suffix.isEmpty { suffixes.append(suffix) }
            }
            index = link.index(after: index)
        }
        return suffixes
    }

    /// The keys of `link` on one side: itself normalized, and rebased from `from` to `to`
    /// (a link under the directory of `from`, or on its host, moved to the same place under
    /// `to`): the link the other side would have made of the same relative reference.
    static func linkKeys(_ link: String, from: URL?, to: URL?) -> [String] {
        var keys: [String] = []
        if let key = normalizedLink(link) { keys.append(key) }
        if let rebased = rebased(link, from: from, to: to), let key = normalizedLink(rebased), !keys.contains(key) {
            keys.append(key)
        }
        return keys
    }

    /// `link` as resolved against `to` rather than `from`: nil when it is neither under
    /// `from`'s directory nor on its host.
    static func rebased(_ link: String, from: URL?, to: URL?) -> String? {
        guard let from, let to, let fromOrigin = origin(of: from), let toOrigin = origin(of: to),
            let url = URL(string: link.trimmingCharacters(in: .whitespacesAndNewlines)), origin(of: url) == fromOrigin
        else { return nil }
        let linkText = url.absoluteString
        let fromText = from.absoluteString
        // The same document with another query or fragment (`?p=1` resolved against the feed).
        let fromDocument = String(fromText.prefix { $0 != "?" && $0 != "#" })
        if linkText.hasPrefix(fromDocument), let next = linkText.dropFirst(fromDocument.count).first, next == "?" || next == "#" {
            let toDocument = String(to.absoluteString.prefix { $0 != "?" && $0 != "#" })
            return toDocument + linkText.dropFirst(fromDocument.count)
        }
        // A relative path: under the directory of `from`, the same under the directory of `to`.
        let fromDirectory = fromDocument.lastIndex(of: "/").map { String(fromDocument[...$0]) } ?? fromDocument
        if fromDirectory.count > fromOrigin.count, linkText.hasPrefix(fromDirectory) {
            let toDocument = String(to.absoluteString.prefix { $0 != "?" && $0 != "#" })
            let toDirectory =
                toDocument.count > toOrigin.count ? toDocument.lastIndex(of: "/").map { String(toDocument[...$0]) } : nil
            return (toDirectory ?? toOrigin + "/") + linkText.dropFirst(fromDirectory.count)
        }
        // A path from the root, or a relative path from the root directory: the same on `to`'s host.
        let path = linkText.dropFirst(fromOrigin.count)
        guard path.first == "/" else { return nil }
        return toOrigin + path
    }

    /// `scheme://host[:port]` of `url`, lowercased; nil without a host.
    private static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let text = url.absoluteString
        // The authority as the text has it (its port included): its length is the prefix cut off.
        guard let hostRange = text.range(of: "//") else { return nil }
        let afterSlashes = text[hostRange.upperBound...]
        let authority = afterSlashes.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard authority.lowercased().contains(host) else { return nil }
        return scheme + "://" + authority.lowercased()
    }

    /// Bytes outside printable ASCII (`é`, a space) as `%XX`, as a parser or a server that
    /// encodes them writes them.
    private static func percentEncodedOutsideASCII(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 <= 0x20 || $0 >= 0x7F }) else { return text }
        var encoded = ""
        for byte in text.utf8 {
            if byte <= 0x20 || byte >= 0x7F {
                encoded += "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            } else {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return encoded
    }

    /// `%2f` → `%2F`, `%7E` → `~`: escapes of unreserved characters decoded, others uppercase.
    private static func percentNormalized(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes = Array(text.utf8)
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
                    output.append(UInt8(ascii: "%"))
                    output.append(uppercaseHex(bytes[index + 1]))
                    output.append(uppercaseHex(bytes[index + 2]))
                }
                index += 3
            } else {
                output.append(bytes[index])
                index += 1
            }
        }
        bytes = output
        return String(decoding: bytes, as: UTF8.self)
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
        guard path.contains(".") else { return path }
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
