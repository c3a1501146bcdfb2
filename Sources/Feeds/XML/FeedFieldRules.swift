import Foundation

/// What ``FeedXMLHandler`` does with an element that a format's rules (``RSSRules``,
/// ``AtomRules``) recognised. The rules decide from the element's name and namespace; the
/// handler carries the action out (attributes, capture, first-one-wins).
enum FeedFieldAction: Equatable {
    /// Not a field: its text is skipped, its children are still looked at.
    case skip
    /// Skipped with everything inside it (an `<image>`, an RSS `<source>`).
    case ignoreSubtree
    /// Its text, of this kind, becomes this field when it closes.
    case capture(FeedCaptureTarget, FeedTextKind)
    /// An Atom text construct: its kind from `type`/`mode`, or base64 (see ``AtomRules``).
    case textConstruct(FeedCaptureTarget)
    /// An Atom `<link rel href type>`: an alternate link (html first) or an enclosure.
    case atomLink
    /// An RSS `<link>`: its text, or a stray `href` (with an alternate `rel`).
    case rssLink
    /// An Atom person construct (`<author><name/><email/></author>`).
    case person
    /// An RSS `<guid isPermaLink>`.
    case guid
    /// A category: its `term` or `label`, else its text.
    case category
    /// An RSS `<enclosure url type length>`.
    case enclosure
    /// An Atom `<content>`: a link with `src`, else a text construct.
    case atomContent
    /// A Media RSS element (`media:content`, `media:description`).
    case media
}

/// The field whose text is being captured.
enum FeedCaptureTarget {
    case none
    case feedTitle, feedLink, feedDCTitle
    case itemTitle, itemDCTitle, itemIssued, itemLink, itemGuid, itemDescription, itemContentEncoded
    case itemAuthor, itemCreator, itemItunesAuthor
    case itemPubDate, itemDCDate, itemPublished, itemUpdated
    case itemSummary, itemContent, itemCategory, itemID, itemMediaDescription, itemItunesSummary
    case personName, personEmail
}

/// How a captured text is read: plain text, escaped HTML, or inline XHTML markup.
enum FeedTextKind { case text, html, xhtml }

/// An item's HTML body: bytes captured from the document, or a string made earlier.
enum FeedItemBody {
    case bytes([UInt8])
    case string(String)

    var string: String {
        switch self {
        case .bytes(let bytes): FeedText.string(utf8: bytes)
        case .string(let string): string
        }
    }

    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch self {
        case .bytes(let bytes): return bytes.withUnsafeBufferPointer(body)
        case .string(var string): return string.withUTF8(body)
        }
    }
}

/// Everything read from one item's elements, before a format's rules choose among them
/// (``RSSRules/choose(_:format:base:)``, ``AtomRules/choose(_:format:feedAuthor:)``).
struct FeedItemFields {
    var title: String?
    var dcTitle: String?
    var link: String?
    var alternateLink: String?
    var alternateLinkScore = 0
    var guid: String?
    var guidIsPermaLink = true
    var guidBase: String?
    var rdfAbout: String?
    var atomID: String?
    /// The bodies are kept as UTF-8 bytes (stripped of control characters, trimmed): only
    /// the first bytes of the summary's source are read as text, and the content becomes
    /// a `String` once, in the finished item (never, for an item sink that takes it as
    /// bytes: see ``FeedItemSink/takesContentAsUTF8``).
    var description: [UInt8]?
    var contentEncoded: [UInt8]?
    var summary: [UInt8]?
    var summaryKind: FeedTextKind = .text
    var content: [UInt8]?
    var contentKind: FeedTextKind = .text
    var mediaDescription: String?
    var itunesSummary: String?
    var author: String?
    var creator: String?
    var itunesAuthor: String?
    var personName: String?
    var personEmail: String?
    var pubDate: Date?
    var dcDate: Date?
    var published: Date?
    var issued: Date?
    var updated: Date?
    var enclosures: [Enclosure] = []
    var categories: [String] = []
}

/// What a format's rules chose for an item from its ``FeedItemFields``.
struct FeedItemChoice {
    var link: String?
    var author: String?
    var published: Date?
    /// The body the summary is made from; `summaryIsText`: it is plain text, not HTML.
    var summary: FeedItemBody?
    var summaryIsText = false
    var content: FeedItemBody?
}

/// Item elements from other namespaces, read the same way in RSS, RDF and Atom feeds
/// (Dublin Core, `content:encoded`, iTunes, Media RSS, Atom links inside RSS), and the
/// elements of the feed's own namespace that both families share.
enum FeedExtensionRules {
    /// An element of the feed's own namespace that RSS and Atom read alike.
    static func sharedItemField(_ name: FeedXMLName) -> FeedFieldAction {
        switch name {
        case .guid: .guid
        case .id: .capture(.itemID, .text)
        case .description: .capture(.itemDescription, .html)
        case .pubDate: .capture(.itemPubDate, .text)
        case .published, .created: .capture(.itemPublished, .text)
        case .issued: .capture(.itemIssued, .text)
        case .updated, .modified: .capture(.itemUpdated, .text)
        case .summary: .textConstruct(.itemSummary)
        case .content: .atomContent
        case .category: .category
        case .enclosure: .enclosure
        case .source: .ignoreSubtree
        default: .skip
        }
    }

    /// An item element outside the feed's own namespace.
    static func itemField(_ name: FeedXMLName, namespace: FeedXMLNamespace) -> FeedFieldAction {
        switch namespace {
        case .dc:
            switch name {
            case .creator, .author: .capture(.itemCreator, .text)
            case .title: .capture(.itemDCTitle, .text)
            case .date: .capture(.itemDCDate, .text)
            case .subject: .capture(.itemCategory, .text)
            default: .skip
            }
        case .dcterms:
            switch name {
            case .modified: .capture(.itemUpdated, .text)
            case .created, .issued: .capture(.itemDCDate, .text)
            default: .skip
            }
        case .content:
            name == .encoded ? .capture(.itemContentEncoded, .html) : .skip
        case .itunes:
            switch name {
            case .author: .capture(.itemItunesAuthor, .text)
            case .summary: .capture(.itemItunesSummary, .text)
            default: .skip
            }
        case .atom10, .atom03:
            switch name {
            case .link: .atomLink
            case .author: .person
            case .updated: .capture(.itemUpdated, .text)
            case .published: .capture(.itemPublished, .text)
            default: .skip
            }
        case .media: .media
        default: .skip
        }
    }

    /// Feed-level elements that neither family reads as fields.
    static func skippedFeedElement(_ name: FeedXMLName) -> FeedFieldAction? {
        switch name {
        case .image, .textinput, .items: .ignoreSubtree
        case .entry, .item: .ignoreSubtree  // an item of the other syntax: not ours
        default: nil
        }
    }
}

/// The feed's own fields as read so far (the first of each wins; Atom links by score).
struct FeedHead {
    var title: String?
    var dcTitle: String?
    var link: String?
    var alternateLink: String?
    var alternateScore = 0
    var author: String?
}
