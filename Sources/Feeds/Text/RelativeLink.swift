import Foundation

/// Resolution of the links found in feeds and in their HTML against a base URL.
enum RelativeLink {
    /// `reference` made absolute against `base`.
    ///
    /// Surrounding whitespace is trimmed; an empty reference gives nil; characters that
    /// may not appear in a URL (spaces, non-ASCII) are percent-encoded; a relative
    /// reference with no base (or one that cannot be resolved) is returned as it is.
    static func resolve(_ reference: String, against base: URL?) -> String? {
        let trimmed = Self.trimmed(reference)
        guard !trimmed.isEmpty else { return nil }
        guard let url = parse(trimmed) else { return trimmed }
        if url.scheme != nil { return url.absoluteString }
        guard let base, let resolved = URL(string: url.relativeString, relativeTo: base) else {
            return trimmed
        }
        return resolved.absoluteString
    }

    /// `text` without leading and trailing whitespace (ASCII and Unicode spaces), done
    /// on scalars rather than through Foundation, since it runs for every link.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
        if first == scalars.startIndex, last == scalars.index(before: scalars.endIndex) { return text }
        return String(scalars[first...last])
    }

    /// Parses `text` as a URL, percent-encoding what a URL may not contain first.
    static func parse(_ text: String) -> URL? {
        if let url = URL(string: text), text.unicodeScalars.allSatisfy(isAllowed) { return url }
        var encoded = ""
        for scalar in text.unicodeScalars {
            if isAllowed(scalar) || scalar == "%" {
                encoded.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 { encoded += String(format: "%%%02X", byte) }
            }
        }
        return URL(string: encoded)
    }

    /// RFC 3986 reserved and unreserved characters, plus '%'.
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": return true
        case "-", ".", "_", "~", ":", "/", "?", "#", "[", "]", "@", "!", "$", "&", "'", "(", ")",
            "*", "+", ",", ";", "=", "%":
            return true
        default: return false
        }
    }
}
