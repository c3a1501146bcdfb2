import Foundation

/// File and folder names for downloads, made from feed-provided text (an enclosure URL's
/// last path segment, a feed's title): hostile input, so nothing in it may pick the
/// folder (`..`, `/`), hide the file (a leading dot), reach the terminal (control
/// characters) or pass the file system's limits.
///
/// ```swift
/// PodcastFileName.episode(url: "https://x.example/ep/..%2F..%2Fetc%2Fpasswd?x=1", title: nil)   // "etc_passwd"
/// PodcastFileName.folder("Linux Weekly / News")   // "Linux Weekly News"
/// ```
public enum PodcastFileName {
    /// The most UTF-8 bytes of a name (file systems allow 255; room for " (2)" and ".part").
    static let maxBytes = 200

    /// The file name for an enclosure: its URL's last path segment (percent-decoded), else
    /// the item's title, else `episode`; made safe.
    public static func episode(url: String, title: String?) -> String {
        let segment = URL(string: url).map { $0.lastPathComponent.removingPercentEncoding ?? $0.lastPathComponent } ?? ""
        let fromURL = sanitized(segment)
        if !fromURL.isEmpty, fromURL != "_" { return unreserved(fromURL) }
        let fromTitle = sanitized(title ?? "")
        return fromTitle.isEmpty ? "episode" : unreserved(fromTitle)
    }

    /// The endings of the downloader's own files beside an episode (`NAME.part` and its
    /// `NAME.part.resume`): an episode named so could be taken for another one's.
    static let reservedSuffixes = [".part", ".resume"]

    /// `name`, with `_` after a reserved ending.
    static func unreserved(_ name: String) -> String {
        let lowered = name.lowercased()
        return reservedSuffixes.contains(where: { lowered.hasSuffix($0) }) ? name + "_" : name
    }

    /// The folder name for a feed: its title made safe, else `feed`.
    public static func folder(_ title: String) -> String {
        let name = sanitized(title)
        return name.isEmpty ? "feed" : name
    }

    /// `text` as one path component: path separators, control and format characters and
    /// the characters shells and Windows shares trip on become `_`, runs of `_` and spaces
    /// collapse, leading dots and spaces go, and the name is cut to ``maxBytes`` bytes
    /// keeping its extension.
    static func sanitized(_ text: String) -> String {
        var out = ""
        var lastWasFiller = false
        for scalar in text.unicodeScalars {
            let category = scalar.properties.generalCategory
            let bad =
                scalar == "/" || scalar == "\\" || scalar == "\0" || category == .control || category == .format
                || category == .lineSeparator || category == .paragraphSeparator || "<>:\"|?*".unicodeScalars.contains(scalar)
            let isSpace = scalar.properties.isWhitespace
            if bad || isSpace {
                let filler: Character = bad ? "_" : " "
                if !lastWasFiller { out.append(filler) }
                lastWasFiller = true
            } else {
                out.unicodeScalars.append(scalar)
                lastWasFiller = false
            }
        }
        var name = Substring(out)
        while let first = name.first, first == "." || first == " " { name = name.dropFirst() }
        while let last = name.last, last == " " || last == "." { name = name.dropLast() }
        return truncated(String(name))
    }

    /// `name` cut to ``maxBytes`` UTF-8 bytes, its extension kept when it is short. Cuts
    /// fall between characters, or between the scalars of a character longer than the room;
    /// a name that starts with no dot or space never comes out empty.
    static func truncated(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        let (stem, suffix) = split(name)
        var cut = prefix(stem, utf8Bytes: maxBytes - suffix.utf8.count)
        while let last = cut.last, last == " " || last == ".", cut.count > 1 { cut.removeLast() }
        return cut + suffix
    }

    /// `name` with ` (n)` before its extension: another file for the same name.
    ///
    /// ```swift
    /// PodcastFileName.numbered("episode.mp3", 2)   // "episode (2).mp3"
    /// ```
    public static func numbered(_ name: String, _ number: Int) -> String {
        let (stem, suffix) = split(name)
        return "\(stem) (\(number))\(suffix)"
    }

    /// The most UTF-8 bytes of an extension kept whole by ``truncated(_:)``; a longer
    /// "extension" is just the end of the name.
    static let maxExtensionBytes = 16

    /// `name` as its stem and its extension with the dot (empty when it has none, or one of
    /// more than ``maxExtensionBytes`` bytes, or the dot is the name's first character).
    static func split(_ name: String) -> (stem: Substring, suffix: Substring) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex, name[dot...].utf8.count <= maxExtensionBytes
        else { return (name[...], "") }
        return (name[..<dot], name[dot...])
    }

    /// The longest start of `text` of at most `limit` UTF-8 bytes, cut between characters;
    /// when even the first character is longer, as many of its scalars as fit.
    static func prefix(_ text: Substring, utf8Bytes limit: Int) -> String {
        var out = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            if used + size <= limit {
                out.append(character)
                used += size
                continue
            }
            if out.isEmpty {
                for scalar in character.unicodeScalars {
                    let scalarSize = UTF8.width(scalar)
                    guard used + scalarSize <= limit else { break }
                    out.unicodeScalars.append(scalar)
                    used += scalarSize
                }
            }
            break
        }
        return out
    }
}
