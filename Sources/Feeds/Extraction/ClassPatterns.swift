import Foundation

/// The words in class names, ids and text that mark a block as content, as clutter, as a
/// byline or as a share widget. Matched as lower-cased substrings (no regular expressions:
/// they run for every element).
enum ClassPatterns {
    static let unlikely = [
        "-ad-", "ai2html", "banner", "breadcrumbs", "combx", "comment", "community", "cover-wrap", "disqus", "extra",
        "footer", "gdpr", "header", "legends", "menu", "related", "remark", "replies", "rss", "shoutbox", "sidebar",
        "skyscraper", "social", "sponsor", "supplemental", "ad-break", "agegate", "pagination", "pager", "popup",
        "yom-remote",
    ]
    static let maybeCandidate = ["and", "article", "body", "column", "content", "main", "mathjax", "shadow"]
    static let positive = [
        "article", "body", "content", "entry", "hentry", "h-entry", "main", "page", "pagination", "post", "text", "blog",
        "story",
    ]
    static let negative = [
        "-ad-", "banner", "combx", "comment", "com-", "contact", "footer", "gdpr", "masthead", "media", "meta", "outbrain",
        "promo", "related", "scroll", "share", "shoutbox", "sidebar", "skyscraper", "sponsor", "shopping", "tags",
        "widget",
    ]
    static let byline = ["byline", "author", "dateline", "writtenby", "p-author"]
    static let videoHosts = [
        "dailymotion.com", "youtube.com", "youtube-nocookie.com", "player.vimeo.com", "v.qq.com", "bilibili.com",
        "live.bilibili.com", "archive.org", "upload.wikimedia.org", "player.twitch.tv",
    ]
    static let adWords: Set<String> = [
        "ad", "advertising", "advertisement", "pub", "publicité", "werb", "werbung", "广告", "реклама", "anuncio",
    ]
    static let loadingWords = ["loading", "正在加载", "загрузка", "chargement", "cargando"]
    /// Commas of Latin, Arabic, Chinese and other scripts.
    static let commas: Set<Unicode.Scalar> = [
        "\u{2C}", "\u{60C}", "\u{FE50}", "\u{FE10}", "\u{FE11}", "\u{2E41}", "\u{2E34}", "\u{2E32}", "\u{FF0C}",
    ]

    /// `text`'s UTF-8 with ASCII letters lower-cased: every word above is ASCII.
    private static func lowercasedBytes(_ text: String) -> [UInt8] {
        text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
    }

    /// The offsets at which `word` occurs in `bytes`.
    private static func occurrences(of word: [UInt8], in bytes: [UInt8]) -> [Int] {
        guard !word.isEmpty, bytes.count >= word.count else { return [] }
        var found: [Int] = []
        let first = word[0]
        for start in 0...(bytes.count - word.count) where bytes[start] == first {
            var index = 1
            while index < word.count && bytes[start + index] == word[index] { index += 1 }
            if index == word.count { found.append(start) }
        }
        return found
    }

    private static func containsAny(_ text: String, _ words: [[UInt8]]) -> Bool {
        let bytes = lowercasedBytes(text)
        return words.contains { !occurrences(of: $0, in: bytes).isEmpty }
    }

    private static func utf8(_ words: [String]) -> [[UInt8]] { words.map { Array($0.utf8) } }
    private static let unlikelyBytes = utf8(unlikely)
    private static let maybeCandidateBytes = utf8(maybeCandidate)
    private static let positiveBytes = utf8(positive)
    private static let negativeBytes = utf8(negative)
    private static let bylineBytes = utf8(byline)
    private static let shareBytes = utf8(["share", "sharedaddy"])

    static func isUnlikelyCandidate(_ text: String) -> Bool { containsAny(text, unlikelyBytes) }
    static func isMaybeCandidate(_ text: String) -> Bool { containsAny(text, maybeCandidateBytes) }
    static func isPositive(_ text: String) -> Bool { containsAny(text, positiveBytes) }
    static func isByline(_ text: String) -> Bool { containsAny(text, bylineBytes) }

    /// Negative words, or `hid` as a whole space-separated word.
    static func isNegative(_ text: String) -> Bool {
        containsAny(text, negativeBytes)
            || text.lowercased().split(separator: " ", omittingEmptySubsequences: false).contains("hid")
    }

    /// `share` or `sharedaddy` as a word of its own (underscores count as separators).
    static func isShare(_ text: String) -> Bool {
        let bytes = lowercasedBytes(text)
        func isSeparator(_ offset: Int) -> Bool {
            guard offset >= 0 && offset < bytes.count else { return true }
            let byte = bytes[offset]
            if byte == UInt8(ascii: "_") { return true }
            let isWordByte = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
            return !isWordByte
        }
        for word in shareBytes {
            for start in occurrences(of: word, in: bytes) where isSeparator(start - 1) && isSeparator(start + word.count) {
                return true
            }
        }
        return false
    }

    /// An embed from a video site, which stays in the article.
    static func isVideo(_ text: String) -> Bool {
        let lower = text.lowercased()
        return videoHosts.contains { lower.contains("//" + $0) || lower.contains("//www." + $0) }
    }

    /// A block whose whole text is "Advertisement" or "Loading…" in one of several languages.
    static func isAdOrLoading(_ text: String) -> Bool {
        let lower = text.lowercased()
        if adWords.contains(lower) { return true }
        for word in loadingWords where lower.hasPrefix(word) {
            let rest = lower.dropFirst(word.count)
            if rest.isEmpty || rest == "…" || rest == "..." { return true }
        }
        return false
    }
}
