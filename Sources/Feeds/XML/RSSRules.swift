import Foundation

/// How RSS 0.9x, 1.0 (RDF) and 2.0 map elements to fields, and which field wins when
/// several say the same thing.
///
/// ```swift
/// RSSRules.itemField(.title, namespace: .none, primary: true)  // .capture(.itemTitle, .text)
/// ```
enum RSSRules {
    /// A child of `<channel>`. `head`: what has been read so far (the first title wins).
    static func feedField(
        _ name: FeedXMLName, namespace: FeedXMLNamespace, primary: Bool, head: FeedHead
    ) -> FeedFieldAction {
        switch name {
        case .title where primary && head.title == nil: return .capture(.feedTitle, .text)
        case .title where namespace == .dc && head.dcTitle == nil: return .capture(.feedDCTitle, .text)
        case .link where primary: return .rssLink
        case .link where namespace == .atom10: return .atomLink
        default: return FeedExtensionRules.skippedFeedElement(name) ?? .skip
        }
    }

    /// A child of `<item>`.
    static func itemField(_ name: FeedXMLName, namespace: FeedXMLNamespace, primary: Bool) -> FeedFieldAction {
        guard primary else { return FeedExtensionRules.itemField(name, namespace: namespace) }
        switch name {
        case .title: return .capture(.itemTitle, .text)
        case .link: return .rssLink
        case .author: return .capture(.itemAuthor, .text)
        default: return FeedExtensionRules.sharedItemField(name)
        }
    }

    /// Precedence: link from `<link>`, then an alternate Atom link, then a permalink
    /// `<guid>` that is an http(s) URL, then (RDF) `rdf:about`; author from `<author>`,
    /// `dc:creator`, an Atom person, `itunes:author`; content from `content:encoded`,
    /// `<description>`, `itunes:summary`, `media:description`, and the summary from the
    /// same with `<description>` first; published from `<pubDate>`, `published`,
    /// `issued`, `dc:date`. `base`: where `rdf:about` is resolved.
    static func choose(_ item: FeedItemFields, format: FeedFormat, base: String?) -> FeedItemChoice {
        var link = item.link ?? item.alternateLink
        if link == nil, item.guidIsPermaLink, let guid = item.guid {
            let lower = guid.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
                link = FeedURLResolver.resolve(guid, against: item.guidBase)
            }
        }
        if link == nil, format == .rss1 || format == .rss09, let about = item.rdfAbout {
            link = FeedURLResolver.resolve(about, against: base)
        }
        let content =
            item.contentEncoded.map(FeedItemBody.bytes) ?? item.description.map(FeedItemBody.bytes)
            ?? item.itunesSummary.map(FeedItemBody.string) ?? item.mediaDescription.map(FeedItemBody.string)
        let summary =
            item.description.map(FeedItemBody.bytes) ?? item.itunesSummary.map(FeedItemBody.string)
            ?? item.mediaDescription.map(FeedItemBody.string) ?? item.contentEncoded.map(FeedItemBody.bytes)
        return FeedItemChoice(
            link: link,
            author: item.author ?? item.creator ?? item.personName ?? item.personEmail ?? item.itunesAuthor,
            published: item.pubDate ?? item.published ?? item.issued ?? item.dcDate,
            summary: summary, content: content)
    }
}
