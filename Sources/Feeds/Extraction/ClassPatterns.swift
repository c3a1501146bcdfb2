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

    private static func containsAny(_ text: String, _ words: [String]) -> Bool {
        let lower = text.lowercased()
        return words.contains { lower.contains($0) }
    }

    static func isUnlikelyCandidate(_ text: String) -> Bool { containsAny(text, unlikely) }
    static func isMaybeCandidate(_ text: String) -> Bool { containsAny(text, maybeCandidate) }
    static func isPositive(_ text: String) -> Bool { containsAny(text, positive) }
    static func isByline(_ text: String) -> Bool { containsAny(text, byline) }

    /// Negative words, or `hid` as a whole space-separated word.
    static func isNegative(_ text: String) -> Bool {
        containsAny(text, negative) || text.lowercased().split(separator: " ", omittingEmptySubsequences: false).contains("hid")
    }

    /// `share` or `sharedaddy` as a word of its own (underscores count as separators).
    static func isShare(_ text: String) -> Bool {
        let lower = text.lowercased()
        for word in ["share", "sharedaddy"] {
            var searchRange = lower.startIndex..<lower.endIndex
            while let found = lower.range(of: word, range: searchRange) {
                let before = found.lowerBound == lower.startIndex ? nil : lower[lower.index(before: found.lowerBound)]
                let after = found.upperBound == lower.endIndex ? nil : lower[found.upperBound]
                if isSeparator(before) && isSeparator(after) { return true }
                searchRange = found.upperBound..<lower.endIndex
            }
        }
        return false
    }

    private static func isSeparator(_ character: Character?) -> Bool {
        guard let character else { return true }
        if character == "_" { return true }
        return !(character.isASCII && (character.isLetter || character.isNumber))
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
