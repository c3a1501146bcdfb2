import Foundation

/// File and folder names for downloads, made from feed-provided text (an enclosure URL's
/// last path segment, a feed's title): hostile input, so nothing in it may pick the
/// folder (`..`, `/`), hide the file (a leading dot), reach the terminal (control
/// characters) or pass the file system's limits.
///
/// ```swift
/// PodcastFileName.episode(url: "https://x.example/ep/..%2F..%2Fetc%2Fpasswd?x=1", title: nil)   // "etc_passwd"
/// PodcastFileName.folder("Linux Weekly / News")   // "Linux Weekly _ News"
/// ```
public enum PodcastFileName {
    /// The most UTF-8 bytes of a name (file systems allow 255; room for " (2)" and ".part").
    static let maxBytes = 200

    /// The file name for an enclosure: its URL's last path segment (percent-decoded), else
    /// the item's title, else `episode`; made safe.
    public static func episode(url: String, title: String?) -> String {
        let segment = URL(string: url).map { $0.lastPathComponent.removingPercentEncoding ?? $0.lastPathComponent } ?? ""
        let fromURL = sanitized(segment)
        if !fromURL.isEmpty, fromURL != "_" { return fromURL }
        let fromTitle = sanitized(title ?? "")
        return fromTitle.isEmpty ? "episode" : fromTitle
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

    /// `name` cut to ``maxBytes`` UTF-8 bytes at a character boundary, its extension kept
    /// (when it is short).
    static func truncated(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var stem = name
        var suffix = ""
        if let dot = name.lastIndex(of: "."), name.distance(from: dot, to: name.endIndex) <= 10 {
            stem = String(name[..<dot])
            suffix = String(name[dot...])
        }
        while stem.utf8.count + suffix.utf8.count > maxBytes { stem.removeLast() }
        return stem + suffix
    }
}
