import Foundation

/// Reads JSON Feed 1.0 and 1.1 (https://jsonfeed.org/version/1.1) into a ``ParsedFeed``.
///
/// Accepts what real feeds do beyond the letter of the spec: numeric ids, `tags` given
/// as one comma-separated string, HTML entities in titles, dates without seconds or
/// zone (read as UTC), and `home_page_url`/`url` values that are relative.
///
/// ```swift
/// let feed = try JSONFeedParser.parse(data: json, baseURL: URL(string: "https://example.org/feed.json"))
/// print(feed.format, feed.items.first?.title ?? "")  // jsonfeed …
/// ```
public enum JSONFeedParser {
    /// Parses a JSON Feed document.
    ///
    /// - The feed `link` is `home_page_url`; item links are `url`, else `external_url`;
    ///   relative ones are resolved against `home_page_url`, else `feed_url`, else `baseURL`.
    /// - `author` is the item's `author.name` (1.0) or first of `authors` (1.1); a
    ///   feed-level author is not copied onto items.
    /// - `content` is `content_html`, else `content_text` escaped as HTML; `summary` is
    ///   the plain text of `summary`.
    /// - `attachments` become enclosures and `tags` categories.
    /// - Items without `id` get `url`, else a stable id derived from their content.
    /// - Control characters and terminal escape sequences are removed from all text.
    ///
    /// Throws ``JSONFeedError`` when the bytes are not JSON or not a JSON Feed.
    ///
    /// ```swift
    /// let feed = try JSONFeedParser.parse(data: Data(#"{"version":"https://jsonfeed.org/version/1.1","items":[]}"#.utf8), baseURL: nil)
    /// feed.items.isEmpty  // true
    /// ```
    public static func parse(data: Data, baseURL: URL?) throws -> ParsedFeed {
        let root = try readJSON(data)
        guard let feed = root as? [String: Any] else {
            throw JSONFeedError.notAnObject(found: describe(root))
        }
        let version = feed["version"] as? String
        // Any object with an `items` array is read as JSON Feed, whatever its `version`
        // says ("1.1", "1", none), as lenient readers do; the version only explains why
        // an object without one is not a feed.
        if let version, !(feed["items"] is [Any]) {
            guard version.lowercased().contains("jsonfeed.org/version/") else {
                throw JSONFeedError.notAFeed(
                    reason: "version \"\(version)\" is not a JSON Feed version (https://jsonfeed.org/version/1.1)")
            }
        }
        guard let items = feed["items"] else {
            throw JSONFeedError.notAFeed(reason: version == nil ? "no \"version\" and no \"items\"" : "no \"items\" array")
        }
        guard let itemList = items as? [Any] else {
            throw JSONFeedError.notAFeed(reason: "\"items\" is \(describe(items)), not an array")
        }

        let feedURL = string(feed["feed_url"]).flatMap { RelativeLink.resolve($0, against: baseURL) }
        let homePage = string(feed["home_page_url"]).flatMap {
            RelativeLink.resolve($0, against: feedURL.flatMap(URL.init(string:)) ?? baseURL)
        }
        let itemBase = [homePage, feedURL].lazy.compactMap { $0.flatMap(absoluteURL) }.first ?? baseURL

        var parsed = ParsedFeed(format: .jsonfeed, title: title(feed["title"]), link: homePage.map(clean))
        parsed.items.reserveCapacity(itemList.count)
        for case let item as [String: Any] in itemList {
            parsed.items.append(parseItem(item, base: itemBase))
        }
        return parsed
    }

    private static func parseItem(_ item: [String: Any], base: URL?) -> ParsedItem {
        let url = string(item["url"]).flatMap { RelativeLink.resolve($0, against: base) }
        let externalURL = string(item["external_url"]).flatMap { RelativeLink.resolve($0, against: base) }
        let link = (url ?? externalURL).map(clean)
        let itemTitle = title(item["title"])
        let published = string(item["date_published"]).flatMap(parseDate)
        let updated = string(item["date_modified"]).flatMap(parseDate)
        let content = content(of: item)
        let id =
            identifier(item["id"]) ?? link
            ?? stableIdentifier(
                title: itemTitle, date: published ?? updated, content: content)
        return ParsedItem(
            id: id,
            title: itemTitle,
            link: link,
            author: author(of: item),
            published: published,
            updated: updated,
            summary: string(item["summary"]).map(HTMLText.plainText).flatMap(nonEmpty),
            content: content,
            enclosures: enclosures(item["attachments"], base: base),
            categories: categories(item["tags"]))
    }

    // MARK: - Fields

    private static func readJSON(_ data: Data) throws -> Any {
        var bytes = data
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let trimmed = bytes.drop(while: { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 })
        guard !trimmed.isEmpty else { throw JSONFeedError.notJSON(detail: "the input is empty") }
        do {
            return try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            // Raw control characters inside strings make the JSON invalid, and with it the
            // whole feed: read it again with them escaped (tab, line breaks) or dropped.
            if let repaired = escapingControlCharacters(bytes),
                let object = try? JSONSerialization.jsonObject(with: repaired, options: [.fragmentsAllowed])
            {
                return object
            }
            let nsError = error as NSError
            let detail = nsError.userInfo[NSDebugDescriptionErrorKey] as? String ?? nsError.localizedDescription
            throw JSONFeedError.notJSON(detail: detail)
        }
    }

    /// `json` with the raw control characters of its strings escaped (`\t`, `\n`, `\r`)
    /// or dropped (the others, ESC included); nil when it has none.
    static func escapingControlCharacters(_ json: Data) -> Data? {
        guard json.contains(where: { $0 < 0x20 }) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(json.count + 64)
        var inString = false
        var escaped = false
        var changed = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte < 0x20 {
                    changed = true
                    switch byte {
                    case 0x09: out += Array("\\t".utf8)
                    case 0x0A: out += Array("\\n".utf8)
                    case 0x0D: out += Array("\\r".utf8)
                    default: break
                    }
                    continue
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
                changed = true
                continue
            }
            out.append(byte)
        }
        return changed ? Data(out) : nil
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case is [Any]: "an array"
        case is String: "a string"
        case is NSNull: "null"
        case is NSNumber: "a number"
        case is [String: Any]: "an object"
        default: "a \(type(of: value))"
        }
    }

    /// A string value; numbers are accepted (ids and sizes are sometimes numbers).
    private static func string(_ value: Any?) -> String? {
        switch value {
        case let text as String: return text
        default: return nil
        }
    }

    private static func identifier(_ value: Any?) -> String? {
        let text: String?
        switch value {
        case let string as String: text = string
        case let number as NSNumber:
            // Whole numbers print without a fraction ("42", not "42.0").
            let double = number.doubleValue
            text = double.rounded() == double && abs(double) < 1e15 ? String(Int64(double)) : number.stringValue
        default: text = nil
        }
        return text.map(clean).flatMap(nonEmpty)
    }

    /// JSON Feed titles are plain text, yet many feeds write entities (`&amp;`) in them:
    /// decode those, but keep angle brackets as the text they are.
    private static func title(_ value: Any?) -> String? {
        string(value).map { clean(HTMLEntities.decode($0)) }.flatMap(nonEmpty)
    }

    private static func author(of item: [String: Any]) -> String? {
        var candidates: [[String: Any]] = []
        if let author = item["author"] as? [String: Any] { candidates.append(author) }
        if let authors = item["authors"] as? [Any] {
            candidates.append(contentsOf: authors.compactMap { $0 as? [String: Any] })
        }
        for author in candidates {
            if let name = string(author["name"]).map(clean).flatMap(nonEmpty) { return name }
        }
        for author in candidates {
            if let url = string(author["url"]), url.lowercased().hasPrefix("mailto:") {
                return nonEmpty(clean(String(url.dropFirst(7))))
            }
        }
        if let name = string(item["author"]).map(clean).flatMap(nonEmpty) { return name }
        return nil
    }

    private static func content(of item: [String: Any]) -> String? {
        if let html = string(item["content_html"]).map(stripControls).flatMap(nonEmpty) { return html }
        guard let text = string(item["content_text"]).map(stripControls).flatMap(nonEmpty) else { return nil }
        return htmlFromPlainText(text)
    }

    /// Plain text as HTML: escaped, blank-line-separated paragraphs, line breaks kept.
    static func htmlFromPlainText(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;")
            .replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\r\n", with: "\n")
        return escaped.components(separatedBy: "\n\n")
            .map { $0.trimmingCharacters(in: .newlines) }
            .filter { !$0.isEmpty }
            .map { "<p>" + $0.replacingOccurrences(of: "\n", with: "<br>\n") + "</p>" }
            .joined(separator: "\n")
    }

    private static func enclosures(_ value: Any?, base: URL?) -> [Enclosure] {
        guard let attachments = value as? [Any] else { return [] }
        return attachments.compactMap { entry in
            guard let attachment = entry as? [String: Any],
                let url = string(attachment["url"]).flatMap({ RelativeLink.resolve($0, against: base) })
            else { return nil }
            let type = string(attachment["mime_type"]).map(clean).flatMap(nonEmpty)
            var length: Int64? = nil
            if let number = attachment["size_in_bytes"] as? NSNumber {
                length = number.int64Value
            } else if let text = string(attachment["size_in_bytes"]) {
                length = Int64(text.trimmingCharacters(in: .whitespaces))
            }
            return Enclosure(url: clean(url), type: type, length: length.flatMap { $0 >= 0 ? $0 : nil })
        }
    }

    private static func categories(_ value: Any?) -> [String] {
        let raw: [String]
        switch value {
        case let list as [Any]: raw = list.compactMap { $0 as? String }
        case let text as String: raw = text.split(separator: ",").map(String.init)
        default: raw = []
        }
        var seen = Set<String>()
        return raw.map { clean(HTMLEntities.decode($0)) }.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    // MARK: - Text

    /// Text without controls or escape sequences, trimmed.
    private static func clean(_ text: String) -> String {
        DisplayWidth.sanitizeForTerminal(text).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// HTML keeps its layout; only controls and escape sequences go.
    private static func stripControls(_ text: String) -> String {
        DisplayWidth.sanitizeForTerminal(text)
    }

    private static func nonEmpty(_ text: String) -> String? {
        text.isEmpty ? nil : text
    }

    private static func absoluteURL(_ text: String) -> URL? {
        guard let url = URL(string: text), url.scheme != nil, url.host != nil else { return nil }
        return url
    }

    /// An id for an item that has none: the same item gives the same id on every
    /// refresh, from its title, date and content (FNV-1a, 64 bits).
    static func stableIdentifier(title: String?, date: Date?, content: String?) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        let parts = [title ?? "", date.map { String(Int64($0.timeIntervalSince1970)) } ?? "", content ?? ""]
        for byte in parts.joined(separator: "\u{1F}").utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "urn:zeader:jsonfeed:" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
