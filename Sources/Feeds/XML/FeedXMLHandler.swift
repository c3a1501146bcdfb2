import CLibXML2
import Foundation

/// The SAX2 state machine that turns libxml2's events into a ``ParsedFeed``.
///
/// It keeps a stack of open elements and a few depths (channel, item, person, ignored
/// subtree, capture); text is gathered as UTF-8 bytes only while a field of interest is
/// open and becomes a `String` once, when that field closes. Everything else is skipped
/// without allocating.
///
/// ```swift
/// let handler = FeedXMLHandler(baseURL: "https://example.org/feed")
/// // … libxml2 calls handler.startElement / characters / endElement …
/// let feed = handler.makeFeed()
/// ```
final class FeedXMLHandler {
    /// The libxml2 parser driving this handler (set by ``FeedXMLParser``).
    var parserContext: xmlParserCtxtPtr?

    // MARK: Result
    private(set) var format: FeedFormat?
    private(set) var rootName: String?
    private(set) var rejectedRoot = false
    private var feedTitle: String?
    private var feedDCTitle: String?
    private var feedLink: String?
    private var feedAlternateLink: String?
    private var feedAuthor: String?
    private var items: [ParsedItem] = []
    /// When set, items are not collected: each is appended here as JSON (see
    /// ``ContractJSONWriter/item(_:contentUTF8:summaryUTF8:to:)``), preceded by a comma.
    var itemsJSON: [UInt8]?
    /// When set (with `itemsJSON`), items are written to it in pieces of about
    /// ``streamedBytes`` as soon as the feed's head is settled (see ``settledHead()``).
    var stream: FeedParser.ContractJSONStream?
    /// Bytes of items gathered before they are handed to `stream`.
    static let streamedBytes = 1 << 20
    private(set) var errors: [String] = []
    private(set) var errorCount = 0
    /// libxml2 met a character XML forbids (see ``recordError(_:line:column:code:)``).
    private(set) var sawInvalidCharacter = false
    /// Items not to report: the first items of a document parsed again after some of its
    /// items were already written to `stream`.
    var itemsToSkip = 0
    /// Items in `itemsJSON` not yet handed to `stream`.
    private var itemsPending = 0

    // MARK: Structure
    private var depth = 0
    private var primaryNamespaces: (FeedXMLNamespace, FeedXMLNamespace) = (.none, .rss)
    private var isAtom = false
    private var channelDepth = 0
    private var itemDepth = 0
    private var personDepth = 0
    private var personIsFeedLevel = false
    private var ignoreDepth = 0
    private var baseStack: [(depth: Int, base: String)] = []
    private let documentBase: String?

    // MARK: Capture
    private enum Target {
        case none
        case feedTitle, feedLink, feedDCTitle
        case itemTitle, itemDCTitle, itemIssued, itemLink, itemGuid, itemDescription, itemContentEncoded
        case itemAuthor, itemCreator, itemItunesAuthor
        case itemPubDate, itemDCDate, itemPublished, itemUpdated
        case itemSummary, itemContent, itemCategory, itemID, itemMediaDescription, itemItunesSummary
        case personName, personEmail
    }
    private enum TextKind { case text, html, xhtml }
    private var target: Target = .none
    private var captureDepth = 0
    private var captureKind: TextKind = .text
    /// Child elements are serialized as markup (and text escaped) once this is set.
    private var escaping = false
    /// Child elements are written out (HTML fields) rather than ignored (text fields).
    private var captureKeepsMarkup = false
    /// Depth of an xhtml wrapper `<div>` whose tags are left out.
    private var wrapperDepth = 0
    private var captureBase: String?
    /// The captured text is base64 (Atom 0.3 `mode="base64"`, an Atom 1.0 text construct
    /// with a MIME type that is neither text nor XML): decoded when it closes, read as
    /// this kind; `.some(nil)` for binary content, which is left out.
    private var captureBase64: TextKind??
    /// Text after this point is ignored (the name inside an RSS author has been read).
    private var captureFrozen = false
    private var authorNameDepth = 0
    private var text: [UInt8] = []

    // MARK: Current item
    private struct ItemState {
        var title: String?
        var dcTitle: String?
        var titleKind: TextKind = .text
        var link: String?
        var alternateLink: String?
        var alternateLinkScore = 0
        var guid: String?
        var guidIsPermaLink = true
        var guidBase: String?
        var rdfAbout: String?
        var atomID: String?
        /// The bodies are kept as UTF-8 bytes (stripped of control characters, trimmed):
        /// only the first bytes of the summary's source are read as text, and the content
        /// becomes a `String` only when items are collected (not when they are written
        /// straight out as JSON).
        var description: [UInt8]?
        var contentEncoded: [UInt8]?
        var summary: [UInt8]?
        var summaryKind: TextKind = .text
        var content: [UInt8]?
        var contentKind: TextKind = .text
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
    private var item = ItemState()

    /// An item's HTML body: bytes captured from the document, or a string made earlier.
    private enum ItemBody {
        case bytes([UInt8])
        case string(String)

        var string: String {
            switch self {
            case .bytes(let bytes): String(decoding: bytes, as: UTF8.self)
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
    private var personName: String?
    private var personEmail: String?

    init(baseURL: String?) {
        documentBase = baseURL
        text.reserveCapacity(64 * 1024)
        baseStack.reserveCapacity(8)
    }

    private var currentBase: String? { baseStack.last?.base ?? documentBase }

    // MARK: - Errors

    func recordError(_ message: String, line: Int, column: Int, code: Int = 0) {
        if code == Int(XML_ERR_INVALID_CHAR.rawValue) && !sawInvalidCharacter {
            // A character XML forbids (a control character): libxml2's push parser gives up
            // on the rest of a CDATA section that holds one, and with it on every later
            // item. Stop here; the caller parses the document again without them.
            sawInvalidCharacter = true
            if let context = parserContext { xmlStopParser(context) }
        }
        errorCount += 1
        if errors.count < 10 {
            errors.append(FeedText.sanitized("line \(line), column \(column): \(message)"))
        }
    }

    /// At the end of the input: an item still open (its end tag lost to an unclosed
    /// element, or to the end of a truncated document) is kept with what it has.
    func finishOpenItem() {
        guard itemDepth != 0 else { return }
        if target != .none { finishCapture() }
        personDepth = 0
        ignoreDepth = 0
        finishItem()
        itemDepth = 0
    }

    /// A note for ``ParsedFeed/warnings`` that did not come from libxml2.
    func noteWarning(_ message: String) {
        notes.append(message)
    }
    private var notes: [String] = []
    private var problems: [String] = []

    /// At the end of the whole input (`tail` being its last bytes): a document whose root
    /// element is still open and that does not end with the root's end tag was cut off
    /// (a transfer cut short, a full disk): reported as a problem; the items read are kept.
    func noteEndOfInput(tail: UnsafeBufferPointer<UInt8>) {
        guard format != nil, depth > 0, !rejectedRoot, !sawInvalidCharacter, let rootName else { return }
        if Self.endsWithEndTag(of: rootName, tail) { return }
        problems.append("the document is cut off before its closing </\(rootName)> tag; the items before the cut are kept")
    }

    /// Whether `bytes` end with `</root>` (or `</prefix:root>`), after any white space,
    /// comments and processing instructions.
    static func endsWithEndTag(of root: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = bytes.count
        while true {
            while end > 0, FeedText.isXMLSpace(bytes[end - 1]) { end -= 1 }
            guard end > 0, bytes[end - 1] == UInt8(ascii: ">") else { return false }
            let head = UnsafeBufferPointer(rebasing: bytes[..<end])
            if end >= 3, bytes[end - 2] == UInt8(ascii: "-"), bytes[end - 3] == UInt8(ascii: "-"),
                let open = lastIndex(of: "<!--", in: head)
            {
                end = open
                continue
            }
            if end >= 2, bytes[end - 2] == UInt8(ascii: "?"), let open = lastIndex(of: "<?", in: head) {
                end = open
                continue
            }
            guard let open = lastIndex(of: "</", in: head) else { return false }
            var name = String(decoding: UnsafeBufferPointer(rebasing: bytes[(open + 2)..<(end - 1)]), as: UTF8.self)
            while let last = name.utf8.last, FeedText.isXMLSpace(last) { name.removeLast() }
            if let colon = name.lastIndex(of: ":") { name = String(name[name.index(after: colon)...]) }
            return name == root
        }
    }

    private static func lastIndex(of literal: String, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let needle = Array(literal.utf8)
        var index = bytes.count - needle.count
        while index >= 0 {
            if bytes[index] == needle[0], Array(bytes[index..<(index + needle.count)]) == needle { return index }
            index -= 1
        }
        return nil
    }

    /// Forgets the errors recorded after the first `count` ones.
    func dropErrors(after count: Int) {
        errorCount = count
        if errors.count > count { errors.removeLast(errors.count - count) }
    }

    /// libxml2 2.9 drops even `&amp;` once a document has been found not well-formed; the
    /// repair pass has already turned every other reference into a character reference, so
    /// resetting the flag keeps recover mode from losing text.
    @inline(__always)
    private func keepEntityReferencesAlive() {
        if let context = parserContext, context.pointee.wellFormed == 0 {
            context.pointee.wellFormed = 1
        }
    }

    // MARK: - SAX events

    func startElement(
        localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?,
        attributeCount: Int, attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    ) {
        keepEntityReferencesAlive()
        depth += 1
        let attrs = FeedXMLAttributes(count: attributeCount, pointer: attributes)
        if attributeCount > 0, let base = attrs.value(local: "base", namespace: .xml) {
            baseStack.append((depth, FeedURLResolver.resolve(base, against: currentBase)))
        }
        if itemDepth != 0, isItemStart(localName: localName, uri: uri) {
            // Items never nest: an item start inside an item means an unclosed tag earlier
            // (say `<b>` in a description) swallowed the item's end. Close what is open.
            if target != .none { finishCapture() }
            personDepth = 0
            ignoreDepth = 0
            finishItem()
            itemDepth = depth
            item = ItemState()
            if let about = attrs.value(local: "about", namespace: .rdf) { item.rdfAbout = FeedText.sanitized(about) }
            return
        }
        if target != .none {
            if captureKeepsMarkup {
                writeStartTag(localName: localName, prefix: prefix, uri: uri, attributes: attrs)
            } else if target == .itemAuthor && depth == captureDepth + 1 && authorNameDepth == 0
                && FeedXMLName.of(localName) == .name
            {
                // <author><name>…</name><title>…</title></author> without the Atom namespace
                text.removeAll(keepingCapacity: true)
                authorNameDepth = depth
            }
            return
        }
        if ignoreDepth != 0 { return }
        let namespace = FeedXMLNamespace.of(uri)
        let name = FeedXMLName.of(localName)
        if depth == 1 {
            startRoot(name: name, namespace: namespace, uri: uri, localName: localName, attributes: attrs)
            return
        }
        let primary = namespace == primaryNamespaces.0 || namespace == primaryNamespaces.1
        if itemDepth == 0 {
            if primary && (name == .item || name == .entry) && (isAtom ? name == .entry : name == .item) {
                itemDepth = depth
                item = ItemState()
                if let about = attrs.value(local: "about", namespace: .rdf) { item.rdfAbout = FeedText.sanitized(about) }
                return
            }
            if !isAtom && primary && name == .channel {
                channelDepth = depth
                if format == .rss1, FeedXMLNamespace.isRSS090(uri) { format = .rss09 }
                return
            }
            if depth == channelDepth + 1 { startFeedField(name: name, namespace: namespace, primary: primary, attributes: attrs) }
            else if personDepth != 0 && depth == personDepth + 1 { startPersonField(name: name) }
            return
        }
        if personDepth != 0 {
            if depth == personDepth + 1 { startPersonField(name: name) }
            return
        }
        if depth == itemDepth + 1 {
            startItemField(name: name, namespace: namespace, primary: primary, attributes: attrs)
        } else if namespace == .media {
            startMediaElement(name: name, localName: localName, attributes: attrs)
        }
    }

    private func isItemStart(localName: UnsafePointer<xmlChar>, uri: UnsafePointer<xmlChar>?) -> Bool {
        guard captureKind != .xhtml || target == .none else { return false }
        let name = FeedXMLName.of(localName)
        guard isAtom ? name == .entry : name == .item else { return false }
        let namespace = FeedXMLNamespace.of(uri)
        return namespace == primaryNamespaces.0 || namespace == primaryNamespaces.1
    }

    func endElement(localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?) {
        keepEntityReferencesAlive()
        defer {
            if let last = baseStack.last, last.depth == depth { baseStack.removeLast() }
            depth -= 1
        }
        if target != .none {
            if depth == captureDepth {
                finishCapture()
            } else if depth == authorNameDepth {
                captureFrozen = true
            } else if captureKeepsMarkup {
                writeEndTag(localName: localName, prefix: prefix)
            }
            return
        }
        if depth == ignoreDepth {
            ignoreDepth = 0
            return
        }
        if ignoreDepth != 0 { return }
        if depth == personDepth {
            finishPerson()
            return
        }
        if depth == itemDepth {
            finishItem()
            itemDepth = 0
        } else if depth == channelDepth {
            channelDepth = isAtom ? 1 : 0
        }
    }

    func characters(_ bytes: UnsafePointer<xmlChar>, count: Int) {
        guard target != .none, !captureFrozen else { return }
        keepEntityReferencesAlive()
        if escaping {
            appendEscaped(UnsafeBufferPointer(start: bytes, count: count))
        } else {
            text.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
        }
    }

    // MARK: - Root and feed level

    private func startRoot(
        name: FeedXMLName, namespace: FeedXMLNamespace, uri: UnsafePointer<xmlChar>?,
        localName: UnsafePointer<xmlChar>, attributes: FeedXMLAttributes
    ) {
        rootName = String(cString: localName)
        switch name {
        case .rss where namespace == .none || namespace == .rss:
            let version = attributes.value(local: "version", namespace: .none) ?? ""
            format = version.hasPrefix("0.9") ? .rss09 : .rss2
            primaryNamespaces = (.none, .rss)
        case .rdf where namespace == .rdf:
            format = .rss1
            primaryNamespaces = (.rss, .none)
        case .feed where namespace == .atom10 || namespace == .atom03 || namespace == .none:
            let version = attributes.value(local: "version", namespace: .none)
            format = namespace == .atom03 || version == "0.3" ? .atom03 : .atom10
            primaryNamespaces = namespace == .none ? (.none, .atom10) : (namespace, .none)
            isAtom = true
            channelDepth = 1
        default:
            rejectedRoot = true
            if let context = parserContext { xmlStopParser(context) }
        }
    }

    private func startFeedField(name: FeedXMLName, namespace: FeedXMLNamespace, primary: Bool, attributes: FeedXMLAttributes) {
        switch name {
        case .title where primary && feedTitle == nil:
            if isAtom {
                beginAtomTextCapture(.feedTitle, attributes: attributes)
            } else {
                beginCapture(.feedTitle, kind: .text)
            }
        case .title where namespace == .dc && !isAtom && feedDCTitle == nil:
            beginCapture(.feedDCTitle, kind: .text)
        case .link where primary && !isAtom:
            // `<link href rel="self">` (an Atom link whose prefix was never declared, or
            // written without one) is the feed's own URL, not its site.
            if let href = attributes.value(local: "href", namespace: .none), !href.isEmpty {
                if feedLink == nil, Self.isAlternate(attributes) {
                    feedLink = FeedURLResolver.resolve(trimmed(href), against: currentBase)
                }
            } else if feedLink == nil {
                beginCapture(.feedLink, kind: .text)
            }
        case .link where isAtom ? primary : namespace == .atom10:
            noteLink(attributes, feedLevel: true)
        case .author where isAtom && primary:
            personDepth = depth
            personIsFeedLevel = true
            personName = nil
            personEmail = nil
        case .image, .textinput, .items:
            ignoreDepth = depth
        case .entry, .item:
            ignoreDepth = depth  // an item of the other syntax: not ours
        default:
            break
        }
    }

    // MARK: - Item level

    private func startItemField(name: FeedXMLName, namespace: FeedXMLNamespace, primary: Bool, attributes: FeedXMLAttributes) {
        switch namespace {
        case _ where primary:
            switch name {
            case .title:
                if isAtom {
                    beginAtomTextCapture(.itemTitle, attributes: attributes)
                } else {
                    beginCapture(.itemTitle, kind: .text)
                }
            case .link:
                if isAtom {
                    noteLink(attributes, feedLevel: false)
                } else if let href = attributes.value(local: "href", namespace: .none), !href.isEmpty {
                    if item.link == nil, Self.isAlternate(attributes) {
                        item.link = FeedURLResolver.resolve(trimmed(href), against: currentBase)
                    }
                } else if item.link == nil {
                    beginCapture(.itemLink, kind: .text)
                }
            case .guid:
                let permalink = attributes.value(local: "isPermaLink", namespace: .none)
                    ?? attributes.value(local: "ispermalink", namespace: .none)
                    ?? attributes.value(local: "isPermalink", namespace: .none)
                item.guidIsPermaLink = permalink.map { trimmed($0).lowercased() != "false" } ?? true
                beginCapture(.itemGuid, kind: .text)
            case .id: beginCapture(.itemID, kind: .text)
            case .description: beginCapture(.itemDescription, kind: .html)
            case .pubDate: beginCapture(.itemPubDate, kind: .text)
            case .published, .created: beginCapture(.itemPublished, kind: .text)
            case .issued: beginCapture(.itemIssued, kind: .text)
            case .updated, .modified: beginCapture(.itemUpdated, kind: .text)
            case .summary: beginAtomTextCapture(.itemSummary, attributes: attributes)
            case .content:
                if let src = attributes.value(local: "src", namespace: .none) {
                    if item.alternateLink == nil {
                        item.alternateLink = FeedURLResolver.resolve(trimmed(src), against: currentBase)
                    }
                } else {
                    beginAtomTextCapture(.itemContent, attributes: attributes)
                }
            case .author:
                if isAtom {
                    startPerson()
                } else {
                    beginCapture(.itemAuthor, kind: .text)
                }
            case .category:
                if let term = attributes.value(local: "term", namespace: .none) ?? attributes.value(local: "label", namespace: .none) {
                    addCategory(term)
                } else {
                    beginCapture(.itemCategory, kind: .text)
                }
            case .enclosure:
                if let url = attributes.value(local: "url", namespace: .none) {
                    addEnclosure(
                        url: url, type: attributes.value(local: "type", namespace: .none),
                        length: attributes.value(local: "length", namespace: .none))
                }
            case .source:
                ignoreDepth = depth
            default:
                break
            }
        case .dc:
            switch name {
            case .creator, .author: beginCapture(.itemCreator, kind: .text)
            case .title: beginCapture(.itemDCTitle, kind: .text)
            case .date: beginCapture(.itemDCDate, kind: .text)
            case .subject: beginCapture(.itemCategory, kind: .text)
            default: break
            }
        case .dcterms:
            switch name {
            case .modified: beginCapture(.itemUpdated, kind: .text)
            case .created, .issued: beginCapture(.itemDCDate, kind: .text)
            default: break
            }
        case .content:
            if name == .encoded { beginCapture(.itemContentEncoded, kind: .html) }
        case .itunes:
            switch name {
            case .author: beginCapture(.itemItunesAuthor, kind: .text)
            case .summary: beginCapture(.itemItunesSummary, kind: .text)
            default: break
            }
        case .atom10, .atom03:
            switch name {
            case .link: noteLink(attributes, feedLevel: false)
            case .author: startPerson()
            case .updated: beginCapture(.itemUpdated, kind: .text)
            case .published: beginCapture(.itemPublished, kind: .text)
            default: break
            }
        case .media:
            startMediaElement(name: name, localName: nil, attributes: attributes)
        default:
            break
        }
    }

    private func startMediaElement(name: FeedXMLName, localName: UnsafePointer<xmlChar>?, attributes: FeedXMLAttributes) {
        if name == .content {
            if let url = attributes.value(local: "url", namespace: .none) {
                addEnclosure(
                    url: url, type: attributes.value(local: "type", namespace: .none),
                    length: attributes.value(local: "fileSize", namespace: .none))
            }
        } else if name == .description {
            let type = attributes.value(local: "type", namespace: .none)
            beginCapture(.itemMediaDescription, kind: type == "html" ? .html : .text)
        }
    }

    private func startPerson() {
        personDepth = depth
        personIsFeedLevel = false
        personName = nil
        personEmail = nil
    }

    private func startPersonField(name: FeedXMLName) {
        switch name {
        case .name: beginCapture(.personName, kind: .text)
        case .email: beginCapture(.personEmail, kind: .text)
        default: break
        }
    }

    private func finishPerson() {
        let who = personName ?? personEmail
        if personIsFeedLevel {
            if feedAuthor == nil { feedAuthor = who }
        } else if item.personName == nil && item.personEmail == nil {
            item.personName = personName
            item.personEmail = personEmail
        }
        personDepth = 0
    }

    /// Atom `link`: alternate (or no rel) becomes the link, html first; enclosure an enclosure.
    private func noteLink(_ attributes: FeedXMLAttributes, feedLevel: Bool) {
        guard let rawHref = attributes.value(local: "href", namespace: .none) else { return }
        let href = FeedURLResolver.resolve(trimmed(rawHref), against: currentBase)
        let rel = attributes.value(local: "rel", namespace: .none)?.lowercased() ?? "alternate"
        let type = attributes.value(local: "type", namespace: .none)?.lowercased()
        switch rel {
        case "alternate", "http://www.iana.org/assignments/relation/alternate", "":
            let score = type == nil ? 2 : (type!.contains("html") ? 3 : 1)
            if feedLevel {
                if feedAlternateLink == nil || score > feedAlternateScore {
                    feedAlternateLink = href
                    feedAlternateScore = score
                }
            } else if item.alternateLink == nil || score > item.alternateLinkScore {
                item.alternateLink = href
                item.alternateLinkScore = score
            }
        case "enclosure":
            if !feedLevel {
                addEnclosure(url: rawHref, type: type, length: attributes.value(local: "length", namespace: .none))
            }
        default:
            break
        }
    }
    private var feedAlternateScore = 0

    /// Whether a link's `rel` (absent: alternate) names the page it stands for.
    private static func isAlternate(_ attributes: FeedXMLAttributes) -> Bool {
        guard let rel = attributes.value(local: "rel", namespace: .none) else { return true }
        let name = rel.trimmingCharacters(in: .whitespaces).lowercased()
        return name.isEmpty || name == "alternate" || name == "http://www.iana.org/assignments/relation/alternate"
    }

    private func addEnclosure(url: String, type: String?, length: String?) {
        guard itemsJSON == nil else { return }  // not part of the contract JSON
        let resolved = FeedURLResolver.resolve(trimmed(url), against: currentBase)
        guard !resolved.isEmpty, !item.enclosures.contains(where: { $0.url == resolved }) else { return }
        item.enclosures.append(
            Enclosure(
                url: FeedText.sanitized(resolved), type: type.map { FeedText.sanitized(trimmed($0)) },
                length: length.flatMap { Int64(trimmed($0)) }))
    }

    private func addCategory(_ raw: String) {
        guard itemsJSON == nil else { return }  // not part of the contract JSON
        let category = FeedText.collapsingWhitespace(FeedText.sanitized(raw))
        if !category.isEmpty && !item.categories.contains(category) { item.categories.append(category) }
    }

    // MARK: - Capture

    private func textKind(_ attributes: FeedXMLAttributes) -> TextKind {
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

    /// An HTML body with its relative links and images resolved against the base in
    /// effect where it was read (`xml:base`, else the feed's URL); as it is without one.
    private func resolvingLinks(_ html: [UInt8]) -> [UInt8] {
        guard let base = captureBase else { return html }
        return FeedURLResolver.resolvingLinks(inHTML: html, against: base)
    }

    /// An Atom text construct (or content): its kind from `type`/`mode`, or base64.
    private func beginAtomTextCapture(_ newTarget: Target, attributes: FeedXMLAttributes) {
        let base64 = base64Kind(attributes)
        beginCapture(newTarget, kind: base64 == nil ? textKind(attributes) : .text)
        captureBase64 = base64
    }

    /// Whether an Atom element's text is base64, and if so what its decoded bytes are:
    /// Atom 0.3's `mode="base64"` (its `type` a MIME type, `text/plain` by default), or
    /// an Atom 1.0 `type` that is a MIME type other than `text/…` or an XML type (RFC
    /// 4287 §4.1.3.3). `.some(nil)`: binary (an image, say), shown as absent.
    private func base64Kind(_ attributes: FeedXMLAttributes) -> TextKind?? {
        let type = attributes.value(local: "type", namespace: .none).map { trimmed($0).lowercased() }
        if format == .atom03 {
            guard attributes.value(local: "mode", namespace: .none).map({ trimmed($0).lowercased() }) == "base64" else {
                return nil
            }
            switch type {
            case nil, "", "text", "text/plain": return .some(.text)
            case "html", "text/html", "xhtml", "application/xhtml+xml": return .some(.html)
            case let other?: return other.hasPrefix("text/") ? .some(.text) : .some(nil)
            }
        }
        guard let type, type.contains("/"), !type.hasPrefix("text/"), !type.hasSuffix("+xml"), !type.hasSuffix("/xml")
        else { return nil }
        return .some(.text)  // decoded; kept only if it is text (see `decodeBase64Capture`)
    }

    /// Replaces the captured base64 with what it encodes, or with nothing when that is
    /// binary (not UTF-8 text) or the kind says so.
    private func decodeBase64Capture(as kind: TextKind?) {
        let encoded = String(decoding: text, as: UTF8.self)
        text.removeAll(keepingCapacity: true)
        guard let kind, let decoded = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters),
            let string = String(data: decoded, encoding: .utf8),
            !string.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        else { return }
        text.append(contentsOf: string.utf8)
        captureKind = kind
    }

    private func beginCapture(_ newTarget: Target, kind: TextKind) {
        captureBase64 = nil
        target = newTarget
        captureDepth = depth
        captureKind = kind
        text.removeAll(keepingCapacity: true)
        captureKeepsMarkup = kind != .text
            || newTarget == .itemDescription || newTarget == .itemContentEncoded
        escaping = kind == .xhtml
        wrapperDepth = 0
        captureFrozen = false
        authorNameDepth = 0
        captureBase = currentBase
    }

    private func finishCapture() {
        let finished = target
        target = .none
        escaping = false
        captureKeepsMarkup = false
        if let base64 = captureBase64 {
            captureBase64 = nil
            decodeBase64Capture(as: base64)
        }
        switch finished {
        case .itemPubDate, .itemDCDate, .itemPublished, .itemUpdated, .itemIssued:
            let date = text.withUnsafeBufferPointer { FeedDateParser.date(fromUTF8: $0) }
            switch finished {
            case .itemPubDate: item.pubDate = item.pubDate ?? date
            case .itemDCDate: item.dcDate = item.dcDate ?? date
            case .itemPublished: item.published = item.published ?? date
            case .itemIssued: item.issued = item.issued ?? date
            default: item.updated = item.updated ?? date
            }
            return
        default:
            break
        }
        switch finished {
        case .itemCategory where itemsJSON != nil:
            return  // categories are not part of the contract JSON: no string to make
        case .itemDescription:
            if item.description == nil { item.description = FeedText.trimmedBytes(&text).map(resolvingLinks) }
            return
        case .itemContentEncoded:
            if item.contentEncoded == nil { item.contentEncoded = FeedText.trimmedBytes(&text).map(resolvingLinks) }
            return
        case .itemSummary:
            if item.summary == nil, let bytes = FeedText.trimmedBytes(&text) {
                item.summary = captureKind == .text ? bytes : resolvingLinks(bytes)
                item.summaryKind = captureKind
            }
            return
        case .itemContent:
            if item.content == nil, let bytes = FeedText.trimmedBytes(&text) {
                item.content = captureKind == .text ? bytes : resolvingLinks(bytes)
                item.contentKind = captureKind
            }
            return
        default:
            break
        }
        guard let value = FeedText.makeString(&text, trim: true) else { return }
        switch finished {
        case .none, .itemPubDate, .itemDCDate, .itemPublished, .itemUpdated, .itemIssued: break
        case .feedTitle: feedTitle = titleText(value, kind: captureKind)
        case .feedDCTitle: feedDCTitle = titleText(value, kind: .text)
        case .itemDCTitle:
            if item.dcTitle == nil { item.dcTitle = titleText(value, kind: .text) }
        case .feedLink: feedLink = FeedURLResolver.resolve(value, against: captureBase)
        case .itemTitle:
            if item.title == nil { item.title = titleText(value, kind: captureKind) }
        case .itemLink:
            if item.link == nil { item.link = FeedURLResolver.resolve(value, against: captureBase) }
        case .itemGuid:
            if item.guid == nil {
                item.guid = value
                item.guidBase = captureBase
            }
        case .itemID:
            if item.atomID == nil { item.atomID = value }
        case .itemDescription, .itemContentEncoded, .itemSummary, .itemContent:
            break  // taken as bytes above
        case .itemAuthor:
            if item.author == nil { item.author = personText(value) }
        case .itemCreator:
            if item.creator == nil { item.creator = personText(value) }
        case .itemItunesAuthor:
            if item.itunesAuthor == nil { item.itunesAuthor = personText(value) }
        case .itemCategory: addCategory(value)
        case .itemMediaDescription:
            if item.mediaDescription == nil {
                item.mediaDescription = captureKind == .text ? escapeHTML(value) : value
            }
        case .itemItunesSummary:
            if item.itunesSummary == nil { item.itunesSummary = escapeHTML(value) }
        case .personName:
            if personName == nil { personName = FeedText.collapsingWhitespace(value) }
        case .personEmail:
            if personEmail == nil { personEmail = value }
        }
    }

    private func titleText(_ value: String, kind: TextKind) -> String? {
        let plain = kind == .text ? value : FeedText.sanitized(FeedMarkup.plainText(value))
        let collapsed = FeedText.collapsingWhitespace(plain)
        return collapsed.isEmpty ? nil : collapsed
    }

    /// "jane@example.org (Jane Doe)" and "Jane Doe <jane@example.org>" become "Jane Doe".
    private func personText(_ value: String) -> String? {
        var collapsed = FeedText.collapsingWhitespace(value)
        guard let last = collapsed.utf8.last else { return nil }
        if last == UInt8(ascii: ")"), let decided = collapsed.withUTF8({ Self.nameInParentheses($0) }) {
            return decided ?? collapsed
        }
        if last == UInt8(ascii: ")"), let open = collapsed.firstIndex(of: "(") {
            let address = FeedText.trimmingSpaces(collapsed[..<open])
            if address.utf8.contains(UInt8(ascii: "@")) && !address.utf8.contains(UInt8(ascii: " ")) {
                let name = FeedText.trimmingSpaces(
                    collapsed[collapsed.index(after: open)..<collapsed.index(before: collapsed.endIndex)])
                if !name.isEmpty { return name }
            }
        } else if last == UInt8(ascii: ">"), let open = collapsed.lastIndex(of: "<"), collapsed[open...].utf8.contains(UInt8(ascii: "@")) {
            let name = FeedText.trimmingSpaces(collapsed[..<open])
            if !name.isEmpty { return name }
        }
        return collapsed
    }

    /// What ``personText(_:)`` makes of "address (Name)", worked out on the UTF-8 bytes:
    /// the name, or `.some(nil)` when the text stays as it is. `nil` (undecided) when a
    /// parenthesis has a non-ASCII neighbour, which could join it into a larger character
    /// (a combining mark), where the search by `Character` could find another one.
    private static func nameInParentheses(_ bytes: UnsafeBufferPointer<UInt8>) -> String?? {
        let count = bytes.count
        guard let open = bytes.firstIndex(of: UInt8(ascii: "(")) else { return .some(nil) }
        let close = count - 1  // the last byte, a ')'
        guard open < close, open == 0 || bytes[open - 1] < 0x80, bytes[open + 1] < 0x80, close == 0 || bytes[close - 1] < 0x80
        else { return nil }
        func trimmed(_ range: Range<Int>) -> Range<Int> {
            var range = range
            while let first = range.first, bytes[first] == 0x20 || bytes[first] == 0x09 { range = range.dropFirst() }
            while let last = range.last, bytes[last] == 0x20 || bytes[last] == 0x09 { range = range.dropLast() }
            return range
        }
        let address = UnsafeBufferPointer(rebasing: bytes[trimmed(0..<open)])
        guard address.contains(UInt8(ascii: "@")) && !address.contains(UInt8(ascii: " ")) else { return .some(nil) }
        let name = trimmed((open + 1)..<close)
        return name.isEmpty ? .some(nil) : String(decoding: UnsafeBufferPointer(rebasing: bytes[name]), as: UTF8.self)
    }

    // MARK: - Markup inside HTML fields

    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr",
    ]

    private func switchToEscaping() {
        guard !escaping else { return }
        escaping = true
        guard text.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E }) else { return }
        let raw = text
        text.removeAll(keepingCapacity: true)
        raw.withUnsafeBufferPointer { appendEscaped($0) }
    }

    private func writeStartTag(
        localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?, uri: UnsafePointer<xmlChar>?,
        attributes: FeedXMLAttributes
    ) {
        switchToEscaping()
        if captureKind == .xhtml && depth == captureDepth + 1 && wrapperDepth == 0
            && strcmp(UnsafeRawPointer(localName).assumingMemoryBound(to: CChar.self), "div") == 0
            && FeedXMLNamespace.of(uri) == .xhtml
        {
            wrapperDepth = depth
            return
        }
        text.append(0x3C)
        appendQualifiedName(localName: localName, prefix: prefix)
        for index in 0..<attributes.count {
            text.append(0x20)
            appendQualifiedName(localName: attributes.localName(index), prefix: attributes.prefix(index))
            text.append(contentsOf: [0x3D, 0x22])  // ="
            let value = attributes.rawValue(index)
            if value.contains(0x26) {
                let decoded = FeedXMLAttributes.unescapingAmpersands(value)
                    ?? Array(String(decoding: value, as: UTF8.self).replacingOccurrences(of: "&#38;", with: "&").utf8)
                decoded.withUnsafeBufferPointer { appendEscaped($0, quotes: true) }
            } else {
                appendEscaped(value, quotes: true)
            }
            text.append(0x22)
        }
        text.append(0x3E)
    }

    private func writeEndTag(localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?) {
        if depth == wrapperDepth {
            wrapperDepth = 0
            return
        }
        if prefix == nil, Self.voidElements.contains(String(cString: localName)) { return }
        text.append(contentsOf: [0x3C, 0x2F])  // </
        appendQualifiedName(localName: localName, prefix: prefix)
        text.append(0x3E)
    }

    private func appendQualifiedName(localName: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?) {
        if let prefix {
            text.append(contentsOf: UnsafeBufferPointer(start: prefix, count: strlen(UnsafeRawPointer(prefix).assumingMemoryBound(to: CChar.self))))
            text.append(0x3A)
        }
        text.append(contentsOf: UnsafeBufferPointer(start: localName, count: strlen(UnsafeRawPointer(localName).assumingMemoryBound(to: CChar.self))))
    }

    private func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, quotes: Bool = false) {
        // One access to `text` for the whole call (each `self.text.append` is checked for
        // exclusive access on its own).
        Self.appendEscaped(bytes, quotes: quotes, to: &text)
    }

    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, quotes: Bool, to text: inout [UInt8]) {
        var runStart = 0
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let replacement: StaticString
            switch byte {
            case 0x26: replacement = "&amp;"
            case 0x3C: replacement = "&lt;"
            case 0x3E: replacement = "&gt;"
            case 0x22 where quotes: replacement = "&quot;"
            default: continue
            }
            if index > runStart { text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            text.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            runStart = index + 1
        }
        if bytes.count > runStart { text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count])) }
    }

    /// `bytes` with `&`, `<` and `>` escaped (the same as ``escapeHTML(_:)`` on their string).
    private static func escapedHTML(_ bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E }) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 64)
        for byte in bytes {
            switch byte {
            case 0x26: out.append(contentsOf: "&amp;".utf8)
            case 0x3C: out.append(contentsOf: "&lt;".utf8)
            case 0x3E: out.append(contentsOf: "&gt;".utf8)
            default: out.append(byte)
            }
        }
        return out
    }

    private func escapeHTML(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E }) else { return value }
        var out = ""
        out.reserveCapacity(value.utf8.count + 16)
        for character in value.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    // MARK: - Finishing

    private func finishItem() {
        var state = ItemState()
        swap(&state, &item)  // moved out, not copied (no retain and release of every field)
        if itemsToSkip > 0 {
            itemsToSkip -= 1
            return
        }
        // Link: RSS <link>, then an alternate link, then a permalink guid that is a URL.
        var link = state.link ?? state.alternateLink
        if link == nil, !isAtom, state.guidIsPermaLink, let guid = state.guid {
            let lower = guid.lowercased()
            if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
                link = FeedURLResolver.resolve(guid, against: state.guidBase)
            }
        }
        if link == nil, format == .rss1 || format == .rss09, let about = state.rdfAbout {
            link = FeedURLResolver.resolve(about, against: currentBase)
        }
        let personAuthor = state.personName ?? state.personEmail
        var author = state.author ?? state.creator ?? personAuthor ?? state.itunesAuthor
        if author == nil, isAtom { author = feedAuthor }
        var summaryHTML: ItemBody?
        var summaryIsText = false
        var contentHTML: ItemBody?
        if isAtom {
            if let summary = state.summary {
                summaryIsText = state.summaryKind == .text
                summaryHTML = .bytes(summary)
            }
            if let content = state.content {
                contentHTML = .bytes(state.contentKind == .text ? Self.escapedHTML(content) : content)
            }
            if contentHTML == nil, let summary = state.summary {
                contentHTML = .bytes(state.summaryKind == .text ? Self.escapedHTML(summary) : summary)
            }
            if summaryHTML == nil { summaryHTML = contentHTML }
        } else {
            contentHTML = state.contentEncoded.map(ItemBody.bytes) ?? state.description.map(ItemBody.bytes)
                ?? state.itunesSummary.map(ItemBody.string) ?? state.mediaDescription.map(ItemBody.string)
            summaryHTML = state.description.map(ItemBody.bytes) ?? state.itunesSummary.map(ItemBody.string)
                ?? state.mediaDescription.map(ItemBody.string) ?? state.contentEncoded.map(ItemBody.bytes)
        }
        // The summary: as UTF-8 bytes when the plain text comes out clean (the usual case),
        // else (or for a text summary) through strings; both give the same text.
        var summary: String?
        var summaryUTF8: [UInt8]?
        if let html = summaryHTML {
            if summaryIsText {
                summary = Self.summary(fromText: html.string)
            } else {
                switch html.withUTF8({ Self.summary(fromHTML: $0) }) {
                case .utf8(let bytes)?: summaryUTF8 = bytes
                case .string(let string)?: summary = string
                case nil: break
                }
            }
        }
        // Atom 0.3 defines `issued` as the publication date (`created` as when the entry
        // was written); elsewhere `published` (Atom 1.0) comes first.
        let published = format == .atom03
            ? state.pubDate ?? state.issued ?? state.published ?? state.dcDate
            : state.pubDate ?? state.published ?? state.issued ?? state.dcDate
        let title = state.title ?? state.dcTitle
        let id: String
        if let guid = state.guid ?? state.atomID ?? state.rdfAbout {
            id = guid
        } else {
            let dateText = (published ?? state.updated).map {
                String(Int64($0.timeIntervalSince1970))
            }
            var parts = [link ?? "", title ?? ""]
            if link == nil && title == nil {
                parts.append(dateText ?? "")
                parts.append(String(((contentHTML ?? summaryHTML)?.string ?? "").prefix(512)))
            }
            id = "zeader:" + FeedText.stableHash(parts)
        }
        var parsed = ParsedItem(
            id: id, title: title, link: link.map(FeedText.sanitized), author: author,
            published: published,
            updated: state.updated, summary: summary, content: nil,
            enclosures: state.enclosures, categories: state.categories)
        if itemsJSON != nil {
            // Written out now: the content goes from its bytes to the JSON, never a String.
            itemsJSON!.append(UInt8(ascii: ","))
            itemsPending += 1
            defer { if stream != nil && itemsJSON!.count >= Self.streamedBytes { writeToStream() } }
            let summaryBytes = summaryUTF8 ?? []
            summaryBytes.withUnsafeBufferPointer { summaryBuffer in
                let summaryUTF8 = summaryUTF8 == nil ? nil : summaryBuffer
                switch contentHTML {
                case .bytes(let bytes)?:
                    bytes.withUnsafeBufferPointer {
                        ContractJSONWriter.item(parsed, contentUTF8: $0, summaryUTF8: summaryUTF8, to: &itemsJSON!)
                    }
                case .string(let string)?:
                    parsed.content = string
                    ContractJSONWriter.item(parsed, contentUTF8: nil, summaryUTF8: summaryUTF8, to: &itemsJSON!)
                case nil:
                    ContractJSONWriter.item(parsed, contentUTF8: nil, summaryUTF8: summaryUTF8, to: &itemsJSON!)
                }
            }
            return
        }
        parsed.summary = summary ?? summaryUTF8.map { String(decoding: $0, as: UTF8.self) }
        parsed.content = contentHTML?.string
        items.append(parsed)
    }

    /// Characters kept in an item's plain-text summary (a preview: the full text is in
    /// `content`).
    static let summaryLimit = 300
    /// Bytes of HTML first turned into text for the summary (then 8 times more, then all,
    /// while that gives fewer than `summaryLimit` characters): bounds the work per item.
    static let summaryHTMLBytes = 768

    /// An item's summary, as UTF-8 bytes when it could be made without strings.
    enum Summary: Equatable {
        case utf8([UInt8])
        case string(String)
    }

    /// The summary of an HTML body: ``summary(fromText:)`` of ``plainTextPreview(_:)``,
    /// made from UTF-8 bytes when the plain text comes out clean (nearly always); nil
    /// when it is empty.
    static func summary(fromHTML html: UnsafeBufferPointer<UInt8>) -> Summary? {
        guard let plain = plainTextPreviewUTF8(html) else {
            return summary(fromText: plainTextPreview(html)).map(Summary.string)
        }
        var bytes = FeedText.preview(utf8: plain, limit: summaryLimit)
        FeedText.stripControlCharacters(&bytes)  // as `FeedText.sanitized`
        return bytes.isEmpty ? nil : .utf8(bytes)
    }

    /// The summary of plain text: its preview, without control characters; nil when empty.
    static func summary(fromText plain: String) -> String? {
        let sanitized = FeedText.sanitized(FeedText.preview(plain, limit: summaryLimit))
        return sanitized.isEmpty ? nil : sanitized
    }

    /// ``plainTextPreview(_:)`` as UTF-8 bytes, when ``HTMLText/fastPlainTextUTF8(_:scalarLimit:)``
    /// finds them, but possibly only its first `summaryLimit + 1` characters (all that
    /// its preview reads); nil otherwise.
    static func plainTextPreviewUTF8(_ html: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var budget = summaryHTMLBytes
        while true {
            var end = min(budget, html.count)
            while end > 0, end < html.count, UTF8.isContinuation(html[end]) { end -= 1 }
            // Only the first `summaryLimit + 1` characters matter to the preview made of it.
            guard let plain = HTMLText.fastPlainTextUTF8(Self.copy(html, count: end), scalarLimit: summaryLimit)
            else { return nil }
            if end == html.count || plain.withUnsafeBufferPointer({ FeedText.scalarCount(utf8: $0, atLeast: summaryLimit) }) {
                return plain
            }
            budget *= 8
        }
    }

    /// The first `count` bytes of `bytes`, copied in one `memcpy` (building the array from
    /// the buffer as a sequence copied it byte by byte).
    private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0, let source = bytes.baseAddress { buffer.baseAddress!.initialize(from: source, count: count) }
            initialized = count
        }
    }

    static func plainTextPreview(_ html: UnsafeBufferPointer<UInt8>) -> String {
        var budget = summaryHTMLBytes
        while true {
            var end = min(budget, html.count)
            while end > 0, end < html.count, UTF8.isContinuation(html[end]) { end -= 1 }
            // The bytes come from libxml2 (valid UTF-8) and `end` is on a character boundary.
            let plain = HTMLText.fastPlainText(utf8: Self.copy(html, count: end))
            if end == html.count || FeedText.scalarCount(plain, atLeast: summaryLimit) { return plain }
            budget *= 8
        }
    }

    /// Hands the items gathered so far to `stream`, once the head is settled.
    private func writeToStream() {
        guard let stream, !sawInvalidCharacter else { return }
        if !stream.headWritten {
            guard let head = settledHead() else { return }
            stream.write(head: head.contractJSONHead())
        }
        stream.write(items: &itemsJSON!, count: itemsPending)
        itemsPending = 0
    }

    /// The feed's head (format, title, link) when nothing later in the document can change
    /// it: an RSS or RDF feed whose title and link have been read (the first of each is
    /// kept). Atom links are chosen among all of a feed's links: never settled early.
    func settledHead() -> ParsedFeed? {
        guard format != nil, !isAtom, feedTitle != nil, feedLink != nil else { return nil }
        return makeFeed()
    }

    /// The feed as read so far (at the end of the document: the whole feed).
    func makeFeed() -> ParsedFeed? {
        guard let format else { return nil }
        var feed = ParsedFeed(
            format: format, title: feedTitle ?? feedDCTitle, link: feedLink ?? feedAlternateLink, items: items)
        feed.link = feed.link.map(FeedText.sanitized)
        feed.warnings = errors
        if errorCount > errors.count { feed.warnings.append("… and \(errorCount - errors.count) more") }
        feed.warnings += notes
        feed.problems = problems
        return feed
    }

    /// `string` without surrounding XML white space; itself (no copy) when there is none.
    private func trimmed(_ string: String) -> String {
        guard let first = string.utf8.first, let last = string.utf8.last,
            FeedText.isXMLSpace(first) || FeedText.isXMLSpace(last)
        else { return string }
        var slice = Substring(string)
        while let byte = slice.utf8.first, FeedText.isXMLSpace(byte) { slice = slice.dropFirst() }
        while let byte = slice.utf8.last, FeedText.isXMLSpace(byte) { slice = slice.dropLast() }
        return String(slice)
    }
}

/// The attributes libxml2 passes to `startElementNs`: five pointers per attribute
/// (local name, prefix, URI, value start, value end).
struct FeedXMLAttributes {
    let count: Int
    let pointer: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?

    func localName(_ index: Int) -> UnsafePointer<xmlChar> { pointer![index * 5]! }
    func prefix(_ index: Int) -> UnsafePointer<xmlChar>? { pointer![index * 5 + 1] }

    func rawValue(_ index: Int) -> UnsafeBufferPointer<UInt8> {
        let start = pointer![index * 5 + 3]!
        let end = pointer![index * 5 + 4]!
        return UnsafeBufferPointer(start: start, count: end - start)
    }

    /// The value of the attribute `local` in `namespace`, with the `&#38;` that libxml2
    /// leaves for `&` (entities are not substituted) turned back into `&`.
    func value(local: StaticString, namespace: FeedXMLNamespace) -> String? {
        guard let pointer, count > 0 else { return nil }
        for index in 0..<count {
            let name = pointer[index * 5]!
            guard strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self)) == local.utf8CodeUnitCount,
                memcmp(name, local.utf8Start, local.utf8CodeUnitCount) == 0
            else { continue }
            let uri = pointer[index * 5 + 2]
            if namespace == .none ? uri != nil : FeedXMLNamespace.of(uri) != namespace { continue }
            let raw = rawValue(index)
            guard raw.contains(0x26) else { return String(decoding: raw, as: UTF8.self) }
            if let unescaped = Self.unescapingAmpersands(raw) { return String(decoding: unescaped, as: UTF8.self) }
            return String(decoding: raw, as: UTF8.self).replacingOccurrences(of: "&#38;", with: "&")
        }
        return nil
    }

    /// `bytes` with every `&#38;` turned into `&`, done on the bytes: the same as
    /// Foundation's `replacingOccurrences(of: "&#38;", with: "&")` on their string when
    /// they are valid UTF-8 and each `&#38;` is followed by an ASCII byte or the end (a
    /// combining mark after the `;` would make Foundation's search skip it); nil otherwise.
    static func unescapingAmpersands(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard FeedXMLEncoding.isValidUTF8(bytes, from: 0, to: bytes.count) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte == 0x26, index + 5 <= count, bytes[index + 1] == 0x23, bytes[index + 2] == 0x33,
                bytes[index + 3] == 0x38, bytes[index + 4] == 0x3B
            {
                if index + 5 < count, bytes[index + 5] >= 0x80 { return nil }
                out.append(0x26)
                index += 5
            } else {
                out.append(byte)
                index += 1
            }
        }
        return out
    }
}
