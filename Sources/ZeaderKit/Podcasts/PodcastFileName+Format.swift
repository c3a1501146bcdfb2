import Foundation

/// podboat's `download-filename-format`: an episode's file name from a format string, each
/// placeholder filled from the episode, and the whole made one safe path component as every
/// download name is (``PodcastFileName``). `%u` the URL's file name, `%n`/`%N` the feed's
/// title, `%h` its host, `%t` the episode's title, `%e` the extension, `%F` the date as
/// yyyy-mm-dd, `%Y` `%y` `%m` `%b` `%d` `%H` `%M` `%S` its parts (UTC), `%%` a percent sign,
/// and `%?X?THEN&ELSE?` THEN when `%X` is not empty, else ELSE.
///
/// ```swift
/// PodcastFileName.formatted("%F-%t.%e", for: episode)   // "2026-11-21-Episode 1.mp3"
/// ```
extension PodcastFileName {
    /// The file name `format` gives `episode`; the default name (``episode(url:title:)``) when
    /// nothing usable is left of it.
    public static func formatted(_ format: String, for episode: PodcastEpisode) -> String {
        let name = sanitized(expand(Substring(format), values: values(of: episode)))
        guard !name.isEmpty, name != "_" else { return Self.episode(url: episode.enclosure.url, title: episode.title) }
        return unreserved(name)
    }

    /// Each placeholder's text for `episode`.
    static func values(of episode: PodcastEpisode) -> [Character: String] {
        let segment =
            URL(string: episode.enclosure.url).map { $0.lastPathComponent.removingPercentEncoding ?? $0.lastPathComponent }
            ?? ""
        var values: [Character: String] = [
            "u": segment == "/" ? "" : segment, "n": episode.feedTitle, "N": episode.feedTitle,
            "h": URL(string: episode.feed)?.host ?? "", "t": episode.title ?? "",
            "e": (segment as NSString).pathExtension,
        ]
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        for (code, pattern) in [
            ("F", "yyyy-MM-dd"), ("Y", "yyyy"), ("y", "yy"), ("m", "MM"), ("b", "MMM"), ("d", "dd"), ("H", "HH"),
            ("M", "mm"), ("S", "ss"),
        ] as [(Character, String)] {
            formatter.dateFormat = pattern
            values[code] = episode.published.map(formatter.string(from:)) ?? ""
        }
        return values
    }

    /// `format` with its placeholders replaced; an unknown one, or a `%` at the end, gives nothing.
    static func expand(_ format: Substring, values: [Character: String]) -> String {
        var out = ""
        var rest = format
        while let percent = rest.firstIndex(of: "%") {
            out += rest[..<percent]
            rest = rest[rest.index(after: percent)...]
            guard let code = rest.first else { break }
            rest = rest.dropFirst()
            if code == "%" {
                out += "%"
            } else if code == "?", let conditional = conditional(in: rest) {
                let chosen = values[conditional.code, default: ""].isEmpty ? conditional.otherwise : conditional.then
                out += expand(chosen, values: values)
                rest = conditional.rest
            } else {
                out += values[code, default: ""]
            }
        }
        return out + rest
    }

    /// `X?THEN&ELSE?` (after `%?`): the placeholder tested, both branches and what follows.
    static func conditional(in text: Substring) -> (code: Character, then: Substring, otherwise: Substring, rest: Substring)? {
        guard let code = text.first, text.dropFirst().first == "?" else { return nil }
        let body = text.dropFirst(2)
        guard let end = body.firstIndex(of: "?") else { return nil }
        let branches = body[..<end]
        let then = branches.firstIndex(of: "&").map { branches[..<$0] } ?? branches
        let otherwise = branches.firstIndex(of: "&").map { branches[branches.index(after: $0)...] } ?? ""
        return (code, then, otherwise, body[body.index(after: end)...])
    }
}
