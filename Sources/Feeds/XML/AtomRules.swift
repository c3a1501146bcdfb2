import Foundation

/// How Atom 0.3 and 1.0 map elements to fields, read text constructs (`type`, `mode`,
/// base64), and which field wins when several say the same thing.
///
/// ```swift
/// AtomRules.itemField(.link, namespace: .atom10, primary: true)  // .atomLink
/// ```
enum AtomRules {
    /// A child of `<feed>`. `head`: what has been read so far (the first title wins).
    static func feedField(
        _ name: FeedXMLName, namespace: FeedXMLNamespace, primary: Bool, head: FeedHead
    ) -> FeedFieldAction {
        switch name {
        case .title where primary && head.title == nil: return .textConstruct(.feedTitle)
        case .link where primary: return .atomLink
        case .author where primary: return .person
        default: return FeedExtensionRules.skippedFeedElement(name) ?? .skip
        }
    }

    /// A child of `<entry>`.
    static func itemField(_ name: FeedXMLName, namespace: FeedXMLNamespace, primary: Bool) -> FeedFieldAction {
        guard primary else { return FeedExtensionRules.itemField(name, namespace: namespace) }
        switch name {
        case .title: return .textConstruct(.itemTitle)
        case .link: return .atomLink
        case .author: return .person
        default: return FeedExtensionRules.sharedItemField(name)
        }
    }

    /// Precedence: link from an alternate `<link>` (html first); author from the entry
    /// (as in RSS), else the feed's `<author>`; content from `<content>`, else the
    /// summary (plain text escaped as HTML), and the summary from `<summary>`, else the
    /// content; published from `published` (Atom 0.3: `issued`, its publication date,
    /// `created` being when the entry was written).
    static func choose(_ item: FeedItemFields, format: FeedFormat, feedAuthor: String?) -> FeedItemChoice {
        var summary: FeedItemBody?
        var summaryIsText = false
        var content: FeedItemBody?
        if let text = item.summary {
            summaryIsText = item.summaryKind == .text
            summary = .bytes(text)
        }
        if let text = item.content {
            content = .bytes(item.contentKind == .text ? HTMLText.escapedUTF8(text) : text)
        }
        if content == nil, let text = item.summary {
            content = .bytes(item.summaryKind == .text ? HTMLText.escapedUTF8(text) : text)
        }
        if summary == nil { summary = content }
        let published =
            format == .atom03
            ? item.pubDate ?? item.issued ?? item.published ?? item.dcDate
            : item.pubDate ?? item.published ?? item.issued ?? item.dcDate
        return FeedItemChoice(
            link: item.link ?? item.alternateLink,
            author: item.author ?? item.creator ?? item.personName ?? item.personEmail ?? item.itunesAuthor ?? feedAuthor,
            published: published, summary: summary, summaryIsText: summaryIsText, content: content)
    }

    /// The kind of a text construct from its `type` (and Atom 0.3's `mode`).
    static func textKind(_ attributes: FeedXMLAttributes, format: FeedFormat?) -> FeedTextKind {
        let type = attributes.value(local: "type", namespace: .none)?.lowercased()
        let mode = attributes.value(local: "mode", namespace: .none)?.lowercased()
        switch type {
        case "html", "text/html": return mode == "xml" ? .xhtml : .html
        case "xhtml", "application/xhtml+xml": return .xhtml
        default:
            if format == .atom03 {
                if mode == "xml" { return .xhtml }
                if mode == "escaped" && type != "text/plain" { return .html }
            }
            return .text
        }
    }

    /// Whether an Atom element's text is base64, and if so what its decoded bytes are:
    /// Atom 0.3's `mode="base64"` (its `type` a MIME type, `text/plain` by default), or
    /// an Atom 1.0 `type` that is a MIME type other than `text/…` or an XML type (RFC
    /// 4287 §4.1.3.3). `.some(nil)`: binary (an image, say), shown as absent.
    static func base64Kind(_ attributes: FeedXMLAttributes, format: FeedFormat?) -> FeedTextKind?? {
        let type = attributes.value(local: "type", namespace: .none).map { FeedXMLAttributes.trimmed($0).lowercased() }
        if format == .atom03 {
            guard
                attributes.value(local: "mode", namespace: .none).map({ FeedXMLAttributes.trimmed($0).lowercased() }) == "base64"
            else { return nil }
            switch type {
            case nil, "", "text", "text/plain": return .some(.text)
            case "html", "text/html", "xhtml", "application/xhtml+xml": return .some(.html)
            case let other?: return other.hasPrefix("text/") ? .some(.text) : .some(nil)
            }
        }
        guard let type, FeedText.contains(type, ascii: "/"), !type.hasPrefix("text/"), !type.hasSuffix("+xml"),
            !type.hasSuffix("/xml")
        else { return nil }
        return .some(.text)  // decoded; kept only if it is text
    }

    /// Whether a link's `rel` (absent: alternate) names the page it stands for.
    static func isAlternate(_ attributes: FeedXMLAttributes) -> Bool {
        guard let rel = attributes.value(local: "rel", namespace: .none) else { return true }
        let name = rel.trimmingCharacters(in: .whitespaces).lowercased()
        return name.isEmpty || name == "alternate" || name == "http://www.iana.org/assignments/relation/alternate"
    }

    /// How well an alternate link of MIME `type` stands for the page: html 3, none 2, other 1.
    static func alternateScore(type: String?) -> Int {
        guard let type else { return 2 }
        return FeedText.contains(type, ascii: "html") ? 3 : 1
    }
}
