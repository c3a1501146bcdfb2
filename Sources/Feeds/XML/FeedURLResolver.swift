import Foundation

/// Resolves relative references against a base URL as RFC 3986 §5.2 says, on strings,
/// without percent-encoding or otherwise rewriting either side (feeds are full of URLs
/// that `URL(string:)` refuses, such as ones with spaces or `|`).
///
/// ```swift
/// FeedURLResolver.resolve("../b?x#y", against: "http://a.example/c/d/e")  // "http://a.example/c/b?x#y"
/// ```
enum FeedURLResolver {
    /// `reference` made absolute against `base`; `reference` itself when it already has a
    /// scheme, when there is no base, or when the base is not absolute.
    static func resolve(_ reference: String, against base: String?) -> String {
        if hasScheme(reference) { return reference }
        guard let base, hasScheme(base) else { return reference }
        let r = Components(reference)
        let b = Components(base)
        var result = Components()
        result.scheme = b.scheme
        if r.authority != nil {
            result.authority = r.authority
            result.path = removeDotSegments(r.path)
            result.query = r.query
        } else {
            result.authority = b.authority
            if r.path.isEmpty {
                result.path = b.path
                result.query = r.query ?? b.query
            } else {
                if r.path.hasPrefix("/") {
                    result.path = removeDotSegments(r.path)
                } else {
                    result.path = removeDotSegments(merge(base: b, path: r.path))
                }
                result.query = r.query
            }
        }
        result.fragment = r.fragment
        return result.recomposed()
    }

    /// `html` with the relative URLs of its links and images (`href`, `src`, `poster`,
    /// `action` … of any tag) resolved against `base`; the same bytes when there is none.
    /// Attribute values are read as written (quoted or not); absolute URLs, fragments
    /// (`#note`) and other schemes are left alone.
    ///
    /// ```swift
    /// let body = FeedURLResolver.resolvingLinks(inHTML: Array(#"<a href="/a">"#.utf8), against: "https://x.example/f")
    /// ```
    static func resolvingLinks(inHTML html: [UInt8], against base: String) -> [UInt8] {
        html.withUnsafeBufferPointer { linksResolved(in: $0, against: base) } ?? html
    }

    /// ``resolvingLinks(inHTML:against:)`` on a buffer: nil when nothing changes. Text
    /// between tags is skipped with `memchr` (an article is mostly text).
    private static func linksResolved(in html: UnsafeBufferPointer<UInt8>, against base: String) -> [UInt8]? {
        guard let start = html.baseAddress, memchr(start, Int32(UInt8(ascii: "=")), html.count) != nil else { return nil }
        var out: [UInt8] = []
        var copied = 0
        var index = 0
        let count = html.count
        while index < count {
            guard let open = memchr(start + index, Int32(UInt8(ascii: "<")), count - index) else { break }
            index = UnsafeRawPointer(open) - UnsafeRawPointer(start)
            guard index + 1 < count, isLetter(html[index + 1]) else {
                index += 1
                continue
            }
            // Inside a start tag: attributes up to '>'.
            index += 1
            while index < count, html[index] != UInt8(ascii: ">"), !isSpace(html[index]) { index += 1 }
            while index < count, html[index] != UInt8(ascii: ">") {
                while index < count, isSpace(html[index]) || html[index] == UInt8(ascii: "/") { index += 1 }
                let nameStart = index
                while index < count, !isSpace(html[index]), html[index] != UInt8(ascii: "="), html[index] != UInt8(ascii: ">") {
                    index += 1
                }
                let name = UnsafeBufferPointer(rebasing: html[nameStart..<index])
                if index == nameStart { break }
                while index < count, isSpace(html[index]) { index += 1 }
                guard index < count, html[index] == UInt8(ascii: "=") else { continue }
                index += 1
                while index < count, isSpace(html[index]) { index += 1 }
                guard index < count else { break }
                var valueStart = index
                var valueEnd: Int
                if html[index] == UInt8(ascii: "\"") || html[index] == UInt8(ascii: "'") {
                    let quote = html[index]
                    valueStart = index + 1
                    valueEnd =
                        valueStart < count
                        ? memchr(start + valueStart, Int32(quote), count - valueStart).map {
                            UnsafeRawPointer($0) - UnsafeRawPointer(start)
                        }
                            ?? count : count
                    index = min(count, valueEnd + 1)
                } else {
                    valueEnd = index
                    while valueEnd < count, !isSpace(html[valueEnd]), html[valueEnd] != UInt8(ascii: ">") { valueEnd += 1 }
                    index = valueEnd
                }
                guard isLinkAttribute(name), !isLeftAlone(UnsafeBufferPointer(rebasing: html[valueStart..<valueEnd])) else {
                    continue
                }
                let trimmedValue = trimmedLinkValue(UnsafeBufferPointer(rebasing: html[valueStart..<valueEnd]))
                guard !trimmedValue.isEmpty, !trimmedValue.hasPrefix("#"), !hasScheme(trimmedValue) else { continue }
                let resolved = resolve(trimmedValue, against: base)
                guard resolved != trimmedValue else { continue }
                if out.isEmpty { out.reserveCapacity(count + count / 8) }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: html[copied..<valueStart]))
                for byte in resolved.utf8 {
                    switch byte {
                    case UInt8(ascii: "\""): out.append(contentsOf: "%22".utf8)
                    case UInt8(ascii: "'"): out.append(contentsOf: "%27".utf8)
                    case UInt8(ascii: " "): out.append(contentsOf: "%20".utf8)
                    case UInt8(ascii: ">"): out.append(contentsOf: "%3E".utf8)
                    default: out.append(byte)
                    }
                }
                copied = valueEnd
            }
        }
        if copied == 0 { return nil }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: html[copied...]))
        return out
    }

    /// The attributes whose values are URLs, in lower case.
    private static let linkAttributes: [[UInt8]] = [
        "href", "src", "poster", "action", "cite", "background", "longdesc", "data", "formaction",
    ].map { Array($0.utf8) }
    /// The shortest to the longest of ``linkAttributes``, and their first letters.
    private static let linkAttributeLengths = linkAttributes.map(\.count).min()!...linkAttributes.map(\.count).max()!
    private static let linkAttributeInitials = Array(Set(linkAttributes.map { $0[0] }))

    /// Whether `name` is one of ``linkAttributes`` in any ASCII case. Compared on the bytes:
    /// every attribute of every tag of an article comes through here.
    private static func isLinkAttribute(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        // Most names (`class`, `alt`, `title`) are told apart by their length and first
        // letter without going through the list.
        guard linkAttributeLengths.contains(name.count), linkAttributeInitials.contains(name[0] | 0x20) else {
            return false
        }
        return linkAttributes.contains { word in
            // `| 0x20` lowers an ASCII capital and changes no byte into a lower-case letter that was not one.
            word.count == name.count && zip(word, name).allSatisfy { $0 == $1 | 0x20 }
        }
    }

    /// Whether a link value is surely left as it is (absolute, or a fragment), told from
    /// its bytes without making a string of it: spaces and tabs around it trimmed, as
    /// ``trimmedLinkValue(_:)`` trims them when an ASCII byte is
    /// left at both ends. Most links of an article are absolute.
    private static func isLeftAlone(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        guard start < end, bytes[start] < 0x80, bytes[end - 1] < 0x80 else { return false }
        // A `#` followed by a combining mark is no fragment to `hasPrefix("#")`: left to it.
        if bytes[start] == UInt8(ascii: "#") { return start + 1 == end || bytes[start + 1] < 0x80 }
        return hasScheme(UnsafeBufferPointer(rebasing: bytes[start..<end]))
    }

    /// An attribute value without the white space around it, as `CharacterSet.whitespaces`
    /// trims (tab and the Unicode space separators). Spaces and tabs are trimmed on the
    /// bytes; Foundation is asked only when a non-ASCII byte is left at either end (a
    /// no-break space, say), since bridging every link to `NSString` cost a refresh more
    /// than parsing the rest of the article.
    static func trimmedLinkValue(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        let value = FeedText.string(utf8: UnsafeBufferPointer(rebasing: bytes[start..<end]))
        guard start < end, bytes[start] >= 0x80 || bytes[end - 1] >= 0x80 else { return value }
        return value.trimmingCharacters(in: .whitespaces)
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    @inline(__always)
    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    static func hasScheme(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { hasScheme($0) }
    }

    /// ``hasScheme(_:)-(String)`` of UTF-8 bytes.
    static func hasScheme(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var sawLetter = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
                sawLetter = true
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                if !sawLetter { return false }
            case UInt8(ascii: ":"):
                return sawLetter
            default:
                return false
            }
        }
        return false
    }

    private struct Components {
        var scheme: Substring?
        var authority: Substring?
        var path: String = ""
        var query: Substring?
        var fragment: Substring?

        init() {}

        init(_ string: String) {
            var rest = Substring(string)
            if let hash = rest.firstIndex(of: "#") {
                fragment = rest[rest.index(after: hash)...]
                rest = rest[..<hash]
            }
            if let question = rest.firstIndex(of: "?") {
                query = rest[rest.index(after: question)...]
                rest = rest[..<question]
            }
            if FeedURLResolver.hasScheme(String(rest)), let colon = rest.firstIndex(of: ":") {
                scheme = rest[..<colon]
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let slash = rest.firstIndex(of: "/") ?? rest.endIndex
                authority = rest[..<slash]
                rest = rest[slash...]
            }
            path = String(rest)
        }

        func recomposed() -> String {
            var out = ""
            if let scheme { out += scheme + ":" }
            if let authority { out += "//" + authority }
            out += path
            if let query { out += "?" + query }
            if let fragment { out += "#" + fragment }
            return out
        }
    }

    private static func merge(base: Components, path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        if let slash = base.path.lastIndex(of: "/") {
            return base.path[...slash] + path
        }
        return path
    }

    /// RFC 3986 §5.2.4.
    private static func removeDotSegments(_ path: String) -> String {
        guard path.contains(".") else { return path }
        var input = Substring(path)
        var output: [Substring] = []
        let absolute = input.hasPrefix("/")
        var segments = input.split(separator: "/", omittingEmptySubsequences: false)
        if absolute { segments.removeFirst() }
        input = ""
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            if segment == "." {
                if isLast { output.append("") }
            } else if segment == ".." {
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            } else {
                output.append(segment)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }
}
