import Foundation

/// What a page says about its article in JSON-LD (schema.org) and `<meta>` tags
/// (OpenGraph, Twitter, Dublin Core, Parse.ly, Weibo), JSON-LD first.
struct PageMetadata {
    var title: String?
    var byline: String?
    var excerpt: String?
    var siteName: String?
    var publishedTime: String?

    static func read(head: PageHead, dom: ArticleDOM, body: Int) -> PageMetadata {
        let documentTitle = TitleRules.articleTitle(documentTitle: head.title ?? "", dom: dom, body: body)
        let jsonLD = head.jsonLD.lazy.compactMap { JSONLDArticle.read($0, documentTitle: documentTitle) }.first ?? PageMetadata()
        let values = metaValues(head.metas)
        func first(_ keys: [String]) -> String? { keys.lazy.compactMap { values[$0] }.first }
        var metadata = PageMetadata()
        metadata.title =
            jsonLD.title
            ?? first([
                "dc:title", "dcterm:title", "og:title", "weibo:article:title", "weibo:webpage:title", "title", "twitter:title",
                "parsely-title",
            ])
            ?? documentTitle
        let articleAuthor = values["article:author"].flatMap { URL(string: $0)?.scheme == nil ? $0 : nil }
        metadata.byline = jsonLD.byline ?? first(["dc:creator", "dcterm:creator", "author", "parsely-author"]) ?? articleAuthor
        metadata.excerpt =
            jsonLD.excerpt
            ?? first([
                "dc:description", "dcterm:description", "og:description", "weibo:article:description",
                "weibo:webpage:description",
                "description", "twitter:description",
            ])
        metadata.siteName = jsonLD.siteName ?? values["og:site_name"]
        metadata.publishedTime = jsonLD.publishedTime ?? first(["article:published_time", "parsely-pub-date"])
        metadata.title = metadata.title.map(decoded)
        metadata.byline = metadata.byline.map(decoded)
        metadata.excerpt = metadata.excerpt.map(decoded)
        metadata.siteName = metadata.siteName.map(decoded)
        metadata.publishedTime = metadata.publishedTime.map(decoded)
        return metadata
    }

    private static func decoded(_ text: String) -> String {
        text.contains("&") ? HTMLEntities.decode(text) : text
    }

    static let propertyPrefixes = ["article", "dc", "dcterm", "og", "twitter"]
    static let propertyNames = ["author", "creator", "description", "published_time", "title", "site_name"]
    static let namePrefixes = ["dc", "dcterm", "og", "twitter", "parsely", "weibo:article", "weibo:webpage"]
    static let nameNames = ["author", "creator", "pub-date", "description", "title", "site_name"]

    /// Each known `<meta>` key (`og:title`, `dc:creator`, `description`…) with its content;
    /// a later tag wins.
    static func metaValues(_ metas: [[ArticleDOM.Attribute]]) -> [String: String] {
        var values: [String: String] = [:]
        for attributes in metas {
            func value(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
            guard let content = value("content"), !content.isEmpty else { continue }
            let trimmed = content.trimmingCharacters(in: .whitespacesAndNewlines)
            if let property = value("property"), let key = propertyKey(property) {
                if !trimmed.isEmpty { values[key] = trimmed }
                continue
            }
            if let name = value("name"), let key = nameKey(name), !trimmed.isEmpty { values[key] = trimmed }
        }
        return values
    }

    /// `og:title` found anywhere in a `property` attribute (several may share one).
    static func propertyKey(_ property: String) -> String? {
        let lower = property.lowercased().filter { !$0.isWhitespace }
        var best: (String.Index, String)?
        for prefix in propertyPrefixes {
            for name in propertyNames {
                let key = prefix + ":" + name
                if let range = lower.range(of: key), best == nil || range.lowerBound < best!.0 { best = (range.lowerBound, key) }
            }
        }
        return best?.1
    }

    /// `description`, `dc.title`, `twitter:title`, `parsely-pub-date`: a whole `name`
    /// attribute, dots read as colons.
    static func nameKey(_ name: String) -> String? {
        let lower = name.lowercased().filter { !$0.isWhitespace }
        if nameNames.contains(lower) { return lower }
        for prefix in namePrefixes where lower.hasPrefix(prefix) {
            let rest = lower.dropFirst(prefix.count)
            guard let separator = rest.first, "-.:".contains(separator) else { continue }
            if nameNames.contains(String(rest.dropFirst())) { return lower.replacingOccurrences(of: ".", with: ":") }
        }
        return nil
    }
}

/// The schema.org article in a page's JSON-LD.
enum JSONLDArticle {
    static let middleTypes = [
        "AdvertiserContentArticle", "NewsArticle", "AnalysisNewsArticle", "AskPublicNewsArticle", "BackgroundNewsArticle",
        "OpinionNewsArticle", "ReportageNewsArticle", "ReviewNewsArticle", "Report", "SatiricalArticle", "ScholarlyArticle",
        "MedicalScholarlyArticle", "SocialMediaPosting", "BlogPosting", "LiveBlogPosting", "DiscussionForumPosting",
        "TechArticle",
    ]

    static func isArticleType(_ value: Any?) -> Bool {
        guard let type = value as? String else { return false }
        return type.hasPrefix("Article") || type.hasSuffix("APIReference") || middleTypes.contains { type.contains($0) }
    }

    static func isSchemaOrg(_ value: String) -> Bool {
        ["http://schema.org", "https://schema.org", "http://schema.org/", "https://schema.org/"].contains(value)
    }

    /// The metadata of one `<script type="application/ld+json">`, or nil when it holds no
    /// schema.org article (or no valid JSON).
    static func read(_ script: String, documentTitle: String) -> PageMetadata? {
        var text = script.trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("<![CDATA[") { text.removeFirst(9) }
        if text.hasSuffix("]]>") { text.removeLast(3) }
        guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
            return nil
        }
        var object: [String: Any]?
        if let array = json as? [Any] {
            object = array.lazy.compactMap { $0 as? [String: Any] }.first { isArticleType($0["@type"]) }
        } else {
            object = json as? [String: Any]
        }
        guard var parsed = object else { return nil }
        let context = parsed["@context"]
        let matches =
            (context as? String).map(isSchemaOrg) ?? ((context as? [String: Any])?["@vocab"] as? String).map(isSchemaOrg) ?? false
        guard matches else { return nil }
        if parsed["@type"] == nil, let graph = parsed["@graph"] as? [Any] {
            guard let found = graph.lazy.compactMap({ $0 as? [String: Any] }).first(where: { isArticleType($0["@type"]) }) else {
                return nil
            }
            parsed = found
        }
        guard isArticleType(parsed["@type"]) else { return nil }
        var metadata = PageMetadata()
        let name = parsed["name"] as? String
        let headline = parsed["headline"] as? String
        if let name, let headline, name != headline {
            let nameMatches = TitleRules.similarity(name, documentTitle) > 0.75
            let headlineMatches = TitleRules.similarity(headline, documentTitle) > 0.75
            metadata.title = headlineMatches && !nameMatches ? headline : name
        } else {
            metadata.title = (name ?? headline)?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        if let author = parsed["author"] as? [String: Any], let authorName = author["name"] as? String {
            metadata.byline = authorName.trimmingCharacters(in: .whitespacesAndNewlines)
        } else if let authors = parsed["author"] as? [Any], (authors.first as? [String: Any])?["name"] is String {
            metadata.byline = authors.compactMap { ($0 as? [String: Any])?["name"] as? String }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")
        }
        metadata.excerpt = (parsed["description"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines)
        metadata.siteName = ((parsed["publisher"] as? [String: Any])?["name"] as? String)?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        metadata.publishedTime = (parsed["datePublished"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines)
        for keyPath in [\PageMetadata.title, \.byline, \.excerpt, \.siteName, \.publishedTime]
        where metadata[keyPath: keyPath]?.isEmpty == true {
            metadata[keyPath: keyPath] = nil
        }
        return metadata
    }
}

/// How a page's `<title>` becomes the article's title, and how alike two titles are.
enum TitleRules {
    static let separators: Set<Character> = ["|", "-", "–", "—", "\\", "/", ">", "»"]
    static let hierarchicalSeparators: Set<Character> = ["\\", "/", ">", "»"]

    /// Words as JavaScript's `split(/\s+/)` counts them (a leading space counts one more).
    static func wordCount(_ text: String) -> Int {
        var count = 1
        var inSpace = false
        for character in text {
            if character.isWhitespace {
                if !inSpace { count += 1 }
                inSpace = true
            } else {
                inSpace = false
            }
        }
        return count
    }

    /// The offsets of " X " where X is a separator.
    static func separatorPositions(_ title: [Character], in set: Set<Character>) -> [Int] {
        guard title.count >= 3 else { return [] }
        return (1..<(title.count - 1)).filter {
            set.contains(title[$0]) && title[$0 - 1].isWhitespace && title[$0 + 1].isWhitespace
        }
    }

    /// The page's title without the site's name around it ("Story | Site" gives "Story"),
    /// or the page's only `<h1>` when the title is very short or very long.
    static func articleTitle(documentTitle: String, dom: ArticleDOM, body: Int) -> String {
        let original = ArticleDOM.collapsingSpaces(documentTitle.trimmingCharacters(in: .whitespacesAndNewlines))
        var title = original
        let characters = Array(original)
        var hadHierarchicalSeparators = false
        let positions = separatorPositions(characters, in: separators)
        if let last = positions.last {
            hadHierarchicalSeparators = !separatorPositions(characters, in: hierarchicalSeparators).isEmpty
            title = String(characters[..<(last - 1)])
            if wordCount(title) < 3, let firstSeparator = characters.firstIndex(where: { separators.contains($0) }) {
                title = String(characters[(firstSeparator + 1)...])
            }
        } else if title.contains(": ") {
            let headings = dom.elements(in: body, named: ["h1", "h2"])
            let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
            let matchesHeading = headings.contains {
                dom.textContent(of: $0).trimmingCharacters(in: .whitespacesAndNewlines) == trimmed
            }
            if !matchesHeading, let lastColon = characters.lastIndex(of: ":"), let firstColon = characters.firstIndex(of: ":") {
                title = String(characters[(lastColon + 1)...])
                if wordCount(title) < 3 {
                    title = String(characters[(firstColon + 1)...])
                } else if wordCount(String(characters[..<firstColon])) > 5 {
                    title = original
                }
            }
        } else if title.utf16.count > 150 || title.utf16.count < 15 {
            let headings = dom.elements(in: body, named: ["h1"])
            if headings.count == 1 { title = dom.innerText(of: headings[0]) }
        }
        title = ArticleDOM.collapsingSpaces(title.trimmingCharacters(in: .whitespacesAndNewlines))
        let words = wordCount(title)
        if words <= 4 {
            let withoutSeparators = String(removingSeparators(characters))
            if !hadHierarchicalSeparators || words != wordCount(withoutSeparators) - 1 { title = original }
        }
        return title
    }

    /// The title with every " X " separator (and the spaces around it) taken out.
    private static func removingSeparators(_ characters: [Character]) -> [Character] {
        let positions = Set(separatorPositions(characters, in: separators))
        var result: [Character] = []
        var index = 0
        while index < characters.count {
            if positions.contains(index + 1) && index + 2 < characters.count {
                index += 3
                continue
            }
            result.append(characters[index])
            index += 1
        }
        return result
    }

    /// How much of `b`'s words also appear in `a` (1 when all do), weighted by length.
    static func similarity(_ a: String, _ b: String) -> Double {
        let tokensA = tokens(a)
        let tokensB = tokens(b)
        guard !tokensA.isEmpty, !tokensB.isEmpty else { return 0 }
        let known = Set(tokensA)
        let unique = tokensB.filter { !known.contains($0) }
        let distance = Double(unique.joined(separator: " ").utf16.count) / Double(tokensB.joined(separator: " ").utf16.count)
        return 1 - distance
    }

    /// Lower-cased runs of ASCII letters, digits and underscores.
    static func tokens(_ text: String) -> [String] {
        text.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_")) }.map(String.init)
    }
}
