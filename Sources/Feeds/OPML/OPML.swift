import Foundation

/// OPML 1.0 and 2.0 subscription lists: import (``parse(data:source:)``) and export
/// (``export(_:title:dateCreated:)``).
///
/// Reading goes through libxml2 with the network forbidden, no DTD loading and no
/// entity substitution; documents that declare entities are refused outright, and the
/// size is capped, so a hostile file can neither reach out nor blow up.
///
/// ```swift
/// let feeds = try OPML.parse(data: Data(contentsOf: fileURL), source: fileURL.path)
/// let xml = OPML.export(feeds)
/// ```
public enum OPML {
    /// The largest file ``parse(data:source:)`` accepts: 16 MiB, some hundred thousand feeds.
    public static let maximumSize = 16 << 20

    /// The feeds of an OPML document, in document order.
    ///
    /// Every `<outline>` with an `xmlUrl` (matched case-insensitively, as exporters
    /// disagree on its case) is a feed; its name is `title`, else `text`; `htmlUrl` is
    /// its site. The outlines it sits in are folders: their names (`text`, else `title`)
    /// become its categories, outermost first, followed by the entries of an OPML 2.0
    /// `category` attribute (`/Tech,/News`). A feed listed in several folders is returned
    /// once, with the categories of all of them. A bare `&` (common in URLs) and HTML
    /// entities such as `&eacute;` are repaired before parsing, and other malformed XML
    /// is read in libxml2's recovery mode where it can be.
    ///
    /// ```swift
    /// let feeds = try OPML.parse(data: Data(opml.utf8), source: "feeds.opml")
    /// feeds.first?.categories  // ["News", "Tech"]
    /// ```
    public static func parse(data: Data, source: String) throws -> [OPMLSubscription] {
        try read(data: data, source: source).subscriptions
    }

    /// ``parse(data:source:)``, with a line for each outline (or part of the file) that
    /// could not be imported: an `xmlUrl` holding control characters, the rest of a file
    /// libxml2 stopped reading (nesting past 2,048 levels).
    ///
    /// ```swift
    /// let (feeds, rejected) = try OPML.read(data: Data(opml.utf8), source: "feeds.opml")
    /// rejected.forEach { print("not imported:", $0) }
    /// ```
    public static func read(data: Data, source: String) throws -> (subscriptions: [OPMLSubscription], rejected: [String]) {
        guard data.count <= maximumSize else {
            throw OPMLError.tooLarge(source: source, bytes: data.count, limit: maximumSize)
        }
        if declaresEntities(data) { throw OPMLError.entityDeclarations(source: source) }
        guard !data.isEmpty else { throw OPMLError.notXML(source: source, line: 1, column: 1, message: "the file is empty") }

        let repaired = isUTF16(data) ? data : replaceControlCharacters(repairAmpersands(data))
        let reading = repaired.withUnsafeBytes { OPMLDocumentReader.read($0) }
        switch reading {
        case .failure(let line, let column, let message):
            throw OPMLError.notXML(source: source, line: line, column: column, message: message)
        case .document(let rootElement, let body, let stop):
            guard rootElement.lowercased() == "opml" else {
                throw OPMLError.notOPML(source: source, rootElement: rootElement)
            }
            guard let body else { throw OPMLError.missingBody(source: source) }
            var collector = Collector(source: source)
            collector.visit(body)
            if let stop {
                collector.rejected.append(
                    "\(source):\(stop.line):\(stop.column): outlines from here to the end of the file are not imported: \(stop.message)"
                )
            }
            return (collector.subscriptions, collector.rejected)
        }
    }

    /// C0 control characters (but tab, line feed and carriage return) become U+FFFD: XML
    /// forbids them, and libxml2 drops the whole `<outline>` holding one (with everything
    /// in it). A feed URL holding one is then refused by name; a name keeps the mark.
    static func replaceControlCharacters(_ data: Data) -> Data {
        guard data.contains(where: { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }) else { return data }
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 64)
        for byte in data {
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
                out += [0xEF, 0xBF, 0xBD]
            } else {
                out.append(byte)
            }
        }
        return Data(out)
    }

    /// A valid OPML 2.0 document listing `subscriptions`.
    ///
    /// Each feed is an `<outline type="rss">` with `text`, `title`, `xmlUrl` and
    /// `htmlUrl`; feeds are grouped in a folder outline named after their first category,
    /// and a feed with categories also carries them all in `category` (`/Tech,/News`), for
    /// readers that ignore folders, so ``parse(data:source:)`` gives back the same list. Text is
    /// escaped for XML attributes, and characters XML cannot carry are dropped.
    ///
    /// ```swift
    /// let xml = OPML.export([OPMLSubscription(url: "https://example.org/feed", title: "Ex & co")])
    /// try xml.write(toFile: "feeds.opml", atomically: true, encoding: .utf8)
    /// ```
    public static func export(
        _ subscriptions: [OPMLSubscription], title: String = "Zeader subscriptions", dateCreated: Date = Date()
    ) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <opml version="2.0">
              <head>
                <title>\(escape(title))</title>
                <dateCreated>\(rfc822(dateCreated))</dateCreated>
              </head>
              <body>

            """
        var folders: [String] = []
        var byFolder: [String: [OPMLSubscription]] = [:]
        var unfiled: [OPMLSubscription] = []
        for subscription in subscriptions {
            if let folder = subscription.categories.first {
                if byFolder[folder] == nil { folders.append(folder) }
                byFolder[folder, default: []].append(subscription)
            } else {
                unfiled.append(subscription)
            }
        }
        for folder in folders {
            xml += "    <outline text=\"\(escape(folder))\" title=\"\(escape(folder))\">\n"
            for subscription in byFolder[folder] ?? [] { xml += "      " + outline(subscription) + "\n" }
            xml += "    </outline>\n"
        }
        for subscription in unfiled { xml += "    " + outline(subscription) + "\n" }
        xml += "  </body>\n</opml>\n"
        return xml
    }

    // MARK: - Export helpers

    private static func outline(_ subscription: OPMLSubscription) -> String {
        let name = subscription.title.flatMap { $0.isEmpty ? nil : $0 } ?? subscription.url
        var attributes = [
            ("type", "rss"), ("text", name), ("title", name), ("xmlUrl", subscription.url),
        ]
        if let site = subscription.siteLink, !site.isEmpty { attributes.append(("htmlUrl", site)) }
        if !subscription.categories.isEmpty {
            let categories = subscription.categories.map { "/" + $0.replacingOccurrences(of: ",", with: " ") }
            attributes.append(("category", categories.joined(separator: ",")))
        }
        return "<outline " + attributes.map { "\($0.0)=\"\(escape($0.1))\"" }.joined(separator: " ") + "/>"
    }

    /// Text escaped for an XML 1.0 attribute or element: markup characters as entities,
    /// line breaks and tabs as character references (attribute normalization would turn
    /// them into spaces), and characters XML 1.0 forbids dropped.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            default:
                let value = scalar.value
                if value < 0x20 || value == 0xFFFE || value == 0xFFFF { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func rfc822(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    // MARK: - Import helpers

    private static func isUTF16(_ data: Data) -> Bool {
        data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF])
            || (data.count > 1 && (data[data.startIndex] == 0 || data[data.startIndex + 1] == 0))
    }

    /// Hand-written OPML often has a bare `&` in URLs (`?a=1&b=2`) and HTML entities
    /// (`&eacute;`, `&nbsp;`) that XML does not define, which libxml2's recovery would drop
    /// with the text around them. Rewrites such an `&` as `&amp;` and such an entity as a
    /// character reference; everything else is left byte for byte. (Any ASCII-compatible
    /// encoding: only ASCII bytes are looked at and written.)
    static func repairAmpersands(_ data: Data) -> Data {
        guard data.contains(UInt8(ascii: "&")) else { return data }
        let bytes = [UInt8](data)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") else {
                out.append(byte)
                index += 1
                continue
            }
            var end = index + 1
            if end < bytes.count, bytes[end] == UInt8(ascii: "#") {
                end += 1
                let hex = end < bytes.count && bytes[end] | 0x20 == UInt8(ascii: "x")
                if hex { end += 1 }
                let digitsStart = end
                while end < bytes.count, isDigit(bytes[end], hex: hex) { end += 1 }
                if end > digitsStart, end < bytes.count, bytes[end] == UInt8(ascii: ";") {
                    out.append(contentsOf: bytes[index...end])  // a character reference
                    index = end + 1
                    continue
                }
            } else {
                while end < bytes.count, end - index <= 40, isNameByte(bytes[end]) { end += 1 }
                if end > index + 1, end < bytes.count, bytes[end] == UInt8(ascii: ";") {
                    let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                    if ["amp", "lt", "gt", "quot", "apos"].contains(name) {
                        out.append(contentsOf: bytes[index...end])
                    } else if let value = HTMLEntities.table[name + ";"] {
                        for scalar in value.unicodeScalars { out.append(contentsOf: Array("&#\(scalar.value);".utf8)) }
                    } else {
                        out.append(contentsOf: Array("&amp;".utf8))
                        out.append(contentsOf: bytes[(index + 1)...end])
                    }
                    index = end + 1
                    continue
                }
            }
            out.append(contentsOf: Array("&amp;".utf8))
            index += 1
        }
        return Data(out)
    }

    private static func isDigit(_ byte: UInt8, hex: Bool) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (hex && ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66))
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
    }

    /// Whether the bytes contain `<!ENTITY` (in any case, in any of the encodings an
    /// OPML file may come in that are ASCII-compatible; UTF-16 is checked too).
    static func declaresEntities(_ data: Data) -> Bool {
        let needle = Array("<!ENTITY".utf8)
        let utf16LE: [UInt8] = needle.flatMap { byte -> [UInt8] in [byte, 0] }
        let utf16BE: [UInt8] = needle.flatMap { byte -> [UInt8] in [0, byte] }
        for pattern in [needle, utf16LE, utf16BE] {
            if data.withUnsafeBytes({ containsCaseInsensitive($0, pattern) }) { return true }
        }
        return false
    }

    private static func containsCaseInsensitive(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
        guard haystack.count >= needle.count else { return false }
        let lowered = needle.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        var index = 0
        while index <= haystack.count - needle.count {
            var matched = true
            for offset in 0..<needle.count {
                var byte = haystack[index + offset]
                if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
                if byte != lowered[offset] {
                    matched = false
                    break
                }
            }
            if matched { return true }
            index += 1
        }
        return false
    }

    /// Walks outlines, keeping the folder path, merging feeds listed more than once.
    private struct Collector {
        let source: String
        var subscriptions: [OPMLSubscription] = []
        var rejected: [String] = []
        var indexByURL: [String: Int] = [:]
        /// Each subscription's categories as a set, so merging a duplicate outline costs its
        /// own categories, not all those gathered so far.
        var categorySets: [Set<String>] = []

        init(source: String) { self.source = source }

        /// `outlines` in document order with their depths; an outline's folders are the
        /// names of the outlines it sits in (an outline without a name adds none).
        mutating func visit(_ outlines: [OPMLOutlineNode]) {
            var path: [(depth: Int, named: Bool)] = []  // the outlines this one sits in
            var folders: [String] = []  // their names
            for outline in outlines {
                while let last = path.last, last.depth >= outline.depth {
                    if last.named { folders.removeLast() }
                    path.removeLast()
                }
                func value(_ key: String) -> String? { outline.attributes[key].map(clean).flatMap(nonEmpty) }
                let text = value("text")
                let title = value("title")
                var feedURL = value("xmlurl")
                if feedURL == nil, outline.attributes["type"]?.lowercased() == "rss" { feedURL = value("url") }
                if let feedURL, feedURL.unicodeScalars.contains("\u{FFFD}") {
                    let name = title ?? text ?? feedURL
                    rejected.append("\(source): outline \"\(name)\" not imported: its feed URL holds control characters")
                } else if let feedURL {
                    var categories = folders
                    for entry in (outline.attributes["category"] ?? "").split(separator: ",") {
                        let category = clean(entry.trimmingCharacters(in: CharacterSet(charactersIn: "/ \t\n")))
                        if !category.isEmpty { categories.append(category) }
                    }
                    add(OPMLSubscription(url: feedURL, title: title ?? text, siteLink: value("htmlurl"), categories: categories))
                }
                let folder = text ?? title
                path.append((outline.depth, folder != nil))
                if let folder { folders.append(folder) }
            }
        }

        private mutating func add(_ subscription: OPMLSubscription) {
            if let index = indexByURL[subscription.url] {
                for category in subscription.categories where categorySets[index].insert(category).inserted {
                    subscriptions[index].categories.append(category)
                }
                if subscriptions[index].title == nil { subscriptions[index].title = subscription.title }
                if subscriptions[index].siteLink == nil { subscriptions[index].siteLink = subscription.siteLink }
            } else {
                var subscription = subscription
                var seen = Set<String>()
                subscription.categories = subscription.categories.filter { seen.insert($0).inserted }
                indexByURL[subscription.url] = subscriptions.count
                subscriptions.append(subscription)
                categorySets.append(seen)
            }
        }

        private func clean(_ text: String) -> String {
            DisplayWidth.sanitizeForTerminal(text).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        private func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }
    }
}
