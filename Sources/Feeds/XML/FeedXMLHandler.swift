import CLibXML2
import Foundation

/// The SAX2 state machine that turns libxml2's events into ``ParsedItem``s and the
/// feed's head (a ``ParsedFeed``).
///
/// It keeps a stack of open elements and a few depths (channel, item, person, ignored
/// subtree, capture); text is gathered as UTF-8 bytes only while a field of interest is
/// open and becomes a `String` once, when that field closes (an item's body: when the
/// item is finished). Everything else is skipped without allocating. Which element is
/// which field, and which field wins, is up to the format's rules (``RSSRules``,
/// ``AtomRules``, ``FeedExtensionRules``); summaries are ``HTMLText`` previews. Each
/// finished item is collected, or handed to an `itemSink` (``ContractJSONItemWriter``
/// for `zeader parse`).
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
    /// The feed's own fields, as read so far.
    private(set) var head = FeedHead()
    private var items: [ParsedItem] = []
    /// When set, each finished item goes to it (in document order) instead of `items`.
    var itemSink: (any FeedItemSink)? {
        didSet {
            collectsEnclosuresAndCategories = itemSink?.wantsEnclosuresAndCategories ?? true
            sinkTakesContentUTF8 = itemSink?.takesContentAsUTF8 ?? false
        }
    }
    private var collectsEnclosuresAndCategories = true
    private var sinkTakesContentUTF8 = false
    private(set) var errors: [String] = []
    private(set) var errorCount = 0
    /// libxml2 met a character XML forbids (see ``recordError(_:line:column:code:)``).
    private(set) var sawInvalidCharacter = false

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
    private typealias Target = FeedCaptureTarget
    private typealias TextKind = FeedTextKind
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
    /// The captured text, as UTF-8 bytes. Kept behind a pointer: libxml2 calls
    /// ``characters(_:count:)`` for every run of text (between two references, too), and
    /// every access to a stored property of a class is checked for exclusivity at run
    /// time, which cost a third of each call; an access through a pointer is not.
    private let textStorage: UnsafeMutablePointer<FeedCaptureBuffer>
    private var text: FeedCaptureBuffer {
        _read { yield textStorage.pointee }
        _modify { yield &textStorage.pointee }
    }

    // MARK: Current item
    private var item = FeedItemFields()
    private var personName: String?
    private var personEmail: String?

    init(baseURL: String?) {
        documentBase = baseURL
        textStorage = .allocate(capacity: 1)
        textStorage.initialize(to: FeedCaptureBuffer(capacity: 64 * 1024))
        baseStack.reserveCapacity(8)
    }

    deinit {
        textStorage.deinitialize(count: 1)
        textStorage.deallocate()
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
            item = FeedItemFields()
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
                text.removeAll()
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
                item = FeedItemFields()
                if let about = attrs.value(local: "about", namespace: .rdf) { item.rdfAbout = FeedText.sanitized(about) }
                return
            }
            if !isAtom && primary && name == .channel {
                channelDepth = depth
                if format == .rss1, FeedXMLNamespace.isRSS090(uri) { format = .rss09 }
                return
            }
            if depth == channelDepth + 1 {
                startFeedField(name: name, namespace: namespace, primary: primary, attributes: attrs)
            } else if personDepth != 0 && depth == personDepth + 1 {
                startPersonField(name: name)
            }
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

    /// A child of the channel (Atom: of the feed), as the format's rules say.
    private func startFeedField(name: FeedXMLName, namespace: FeedXMLNamespace, primary: Bool, attributes: FeedXMLAttributes) {
        let action =
            isAtom
            ? AtomRules.feedField(name, namespace: namespace, primary: primary, head: head)
            : RSSRules.feedField(name, namespace: namespace, primary: primary, head: head)
        perform(action, name: name, attributes: attributes, feedLevel: true)
    }

    // MARK: - Item level

    /// A child of an item (Atom: of an entry), as the format's rules say.
    private func startItemField(name: FeedXMLName, namespace: FeedXMLNamespace, primary: Bool, attributes: FeedXMLAttributes) {
        let action =
            isAtom
            ? AtomRules.itemField(name, namespace: namespace, primary: primary)
            : RSSRules.itemField(name, namespace: namespace, primary: primary)
        perform(action, name: name, attributes: attributes, feedLevel: false)
    }

    /// Carries out what the rules decided for the element just opened.
    private func perform(_ action: FeedFieldAction, name: FeedXMLName, attributes: FeedXMLAttributes, feedLevel: Bool) {
        switch action {
        case .skip:
            break
        case .ignoreSubtree:
            ignoreDepth = depth
        case .capture(let target, let kind):
            beginCapture(target, kind: kind)
        case .textConstruct(let target):
            beginAtomTextCapture(target, attributes: attributes)
        case .atomLink:
            noteLink(attributes, feedLevel: feedLevel)
        case .rssLink:
            // `<link href rel="self">` (an Atom link whose prefix was never declared, or
            // written without one) is the feed's own URL, not its site.
            let known = feedLevel ? head.link != nil : item.link != nil
            if let href = attributes.value(local: "href", namespace: .none), !href.isEmpty {
                if !known, AtomRules.isAlternate(attributes) {
                    let link = FeedURLResolver.resolve(FeedXMLAttributes.trimmed(href), against: currentBase)
                    if feedLevel { head.link = link } else { item.link = link }
                }
            } else if !known {
                beginCapture(feedLevel ? .feedLink : .itemLink, kind: .text)
            }
        case .person:
            startPerson(feedLevel: feedLevel)
        case .guid:
            let permalink =
                attributes.value(local: "isPermaLink", namespace: .none)
                ?? attributes.value(local: "ispermalink", namespace: .none)
                ?? attributes.value(local: "isPermalink", namespace: .none)
            item.guidIsPermaLink = permalink.map { FeedXMLAttributes.trimmed($0).lowercased() != "false" } ?? true
            beginCapture(.itemGuid, kind: .text)
        case .category:
            if let term = attributes.value(local: "term", namespace: .none) ?? attributes.value(local: "label", namespace: .none)
            {
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
        case .atomContent:
            if let src = attributes.value(local: "src", namespace: .none) {
                if item.alternateLink == nil {
                    item.alternateLink = FeedURLResolver.resolve(FeedXMLAttributes.trimmed(src), against: currentBase)
                }
            } else {
                beginAtomTextCapture(.itemContent, attributes: attributes)
            }
        case .media:
            startMediaElement(name: name, localName: nil, attributes: attributes)
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

    private func startPerson(feedLevel: Bool) {
        personDepth = depth
        personIsFeedLevel = feedLevel
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
            if head.author == nil { head.author = who }
        } else if item.personName == nil && item.personEmail == nil {
            item.personName = personName
            item.personEmail = personEmail
        }
        personDepth = 0
    }

    /// Atom `link`: alternate (or no rel) becomes the link, html first; enclosure an enclosure.
    private func noteLink(_ attributes: FeedXMLAttributes, feedLevel: Bool) {
        guard let rawHref = attributes.value(local: "href", namespace: .none) else { return }
        let href = FeedURLResolver.resolve(FeedXMLAttributes.trimmed(rawHref), against: currentBase)
        let rel = attributes.value(local: "rel", namespace: .none)?.lowercased() ?? "alternate"
        let type = attributes.value(local: "type", namespace: .none)?.lowercased()
        switch rel {
        case "alternate", "http://www.iana.org/assignments/relation/alternate", "":
            let score = AtomRules.alternateScore(type: type)
            if feedLevel {
                if head.alternateLink == nil || score > head.alternateScore {
                    head.alternateLink = href
                    head.alternateScore = score
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

    private func addEnclosure(url: String, type: String?, length: String?) {
        guard collectsEnclosuresAndCategories else { return }
        let resolved = FeedURLResolver.resolve(FeedXMLAttributes.trimmed(url), against: currentBase)
        guard !resolved.isEmpty, !item.enclosures.contains(where: { $0.url == resolved }) else { return }
        item.enclosures.append(
            Enclosure(
                url: FeedText.sanitized(resolved), type: type.map { FeedText.sanitized(FeedXMLAttributes.trimmed($0)) },
                length: length.flatMap { Int64(FeedXMLAttributes.trimmed($0)) }))
    }

    private func addCategory(_ raw: String) {
        guard collectsEnclosuresAndCategories else { return }
        let category = FeedText.collapsingWhitespace(FeedText.sanitized(raw))
        guard !category.isEmpty && !item.categories.contains(category) else { return }
        // Room for a few at once: an item with categories usually has more than one.
        if item.categories.isEmpty { item.categories.reserveCapacity(4) }
        item.categories.append(category)
    }

    // MARK: - Capture

    /// An HTML body with its relative links and images resolved against the base in
    /// effect where it was read (`xml:base`, else the feed's URL); as it is without one.
    private func resolvingLinks(_ html: [UInt8]) -> [UInt8] {
        guard let base = captureBase else { return html }
        return FeedURLResolver.resolvingLinks(inHTML: html, against: base)
    }

    /// An Atom text construct (or content): its kind from `type`/`mode`, or base64.
    private func beginAtomTextCapture(_ newTarget: Target, attributes: FeedXMLAttributes) {
        let base64 = AtomRules.base64Kind(attributes, format: format)
        beginCapture(newTarget, kind: base64 == nil ? AtomRules.textKind(attributes, format: format) : .text)
        captureBase64 = base64
    }

    /// Replaces the captured base64 with what it encodes, or with nothing when that is
    /// binary (not UTF-8 text) or the kind says so.
    private func decodeBase64Capture(as kind: TextKind?) {
        let encoded = text.withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) }
        text.removeAll()
        guard let kind, let decoded = Data(base64Encoded: encoded, options: .ignoreUnknownCharacters),
            let string = String(data: decoded, encoding: .utf8),
            !string.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\n" && $0 != "\t" && $0 != "\r" })
        else { return }
        text.append(contentsOf: string)
        captureKind = kind
    }

    private func beginCapture(_ newTarget: Target, kind: TextKind) {
        captureBase64 = nil
        target = newTarget
        captureDepth = depth
        captureKind = kind
        text.removeAll()
        captureKeepsMarkup =
            kind != .text
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
        case .itemCategory where !collectsEnclosuresAndCategories:
            return  // not wanted by the item sink: no string to make
        case .itemDescription:
            if item.description == nil {
                item.description = text.withUnsafeMutableBufferPointer { FeedText.trimmedBytes($0) }.map(resolvingLinks)
            }
            return
        case .itemContentEncoded:
            if item.contentEncoded == nil {
                item.contentEncoded = text.withUnsafeMutableBufferPointer { FeedText.trimmedBytes($0) }.map(resolvingLinks)
            }
            return
        case .itemSummary:
            if item.summary == nil, let bytes = text.withUnsafeMutableBufferPointer({ FeedText.trimmedBytes($0) }) {
                item.summary = captureKind == .text ? bytes : resolvingLinks(bytes)
                item.summaryKind = captureKind
            }
            return
        case .itemContent:
            if item.content == nil, let bytes = text.withUnsafeMutableBufferPointer({ FeedText.trimmedBytes($0) }) {
                item.content = captureKind == .text ? bytes : resolvingLinks(bytes)
                item.contentKind = captureKind
            }
            return
        default:
            break
        }
        guard let value = text.withUnsafeMutableBufferPointer({ FeedText.makeString($0, trim: true) }) else { return }
        switch finished {
        case .none, .itemPubDate, .itemDCDate, .itemPublished, .itemUpdated, .itemIssued: break
        case .feedTitle: head.title = titleText(value, kind: captureKind)
        case .feedDCTitle: head.dcTitle = titleText(value, kind: .text)
        case .itemDCTitle:
            if item.dcTitle == nil { item.dcTitle = titleText(value, kind: .text) }
        case .feedLink: head.link = FeedURLResolver.resolve(value, against: captureBase)
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
                item.mediaDescription = captureKind == .text ? HTMLText.escaped(value) : value
            }
        case .itemItunesSummary:
            if item.itunesSummary == nil { item.itunesSummary = HTMLText.escaped(value) }
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
        } else if last == UInt8(ascii: ">"), let open = collapsed.lastIndex(of: "<"),
            collapsed[open...].utf8.contains(UInt8(ascii: "@"))
        {
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
        let raw = text.array
        text.removeAll()
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
                let decoded =
                    FeedXMLAttributes.unescapingAmpersands(value)
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
            text.append(
                contentsOf: UnsafeBufferPointer(
                    start: prefix, count: strlen(UnsafeRawPointer(prefix).assumingMemoryBound(to: CChar.self))))
            text.append(0x3A)
        }
        text.append(
            contentsOf: UnsafeBufferPointer(
                start: localName, count: strlen(UnsafeRawPointer(localName).assumingMemoryBound(to: CChar.self))))
    }

    private func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, quotes: Bool = false) {
        // One access to `text` for the whole call (each `self.text.append` is checked for
        // exclusive access on its own).
        Self.appendEscaped(bytes, quotes: quotes, to: &text)
    }

    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, quotes: Bool, to text: inout FeedCaptureBuffer) {
        var runStart = 0
        var index = 0
        let count = bytes.count
        while true {
            index = nextSpecial(bytes, from: index, quotes: quotes)
            guard index < count else { break }
            let replacement: StaticString
            switch bytes[index] {
            case 0x26: replacement = "&amp;"
            case 0x3C: replacement = "&lt;"
            case 0x3E: replacement = "&gt;"
            case 0x22 where quotes: replacement = "&quot;"
            default:
                index += 1
                continue
            }
            if index > runStart { text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
            text.append(contentsOf: UnsafeBufferPointer(start: replacement.utf8Start, count: replacement.utf8CodeUnitCount))
            index += 1
            runStart = index
        }
        if count > runStart { text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
    }

    /// The index of the first byte from `start` on that may need escaping (`&`, `<`, `>`,
    /// with `quotes` also `"`), or `bytes.count`: eight bytes at a time while none can be.
    /// The caller checks the byte it gets.
    @inline(__always)
    private static func nextSpecial(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, quotes: Bool) -> Int {
        let count = bytes.count
        var index = start
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highs: UInt64 = 0x8080_8080_8080_8080
            @inline(__always) func has(_ word: UInt64, _ byte: UInt8) -> UInt64 {
                let x = word ^ (ones &* UInt64(byte))
                return (x &- ones) & ~x & highs
            }
            while index + 8 <= count {
                let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
                var flags = has(word, 0x26) | has(word, 0x3C) | has(word, 0x3E)
                if quotes { flags |= has(word, 0x22) }
                if flags != 0 { return index + flags.trailingZeroBitCount >> 3 }
                index += 8
            }
        }
        while index < count {
            let byte = bytes[index]
            if byte == 0x26 || byte == 0x3C || byte == 0x3E || (quotes && byte == 0x22) { return index }
            index += 1
        }
        return count
    }

    // MARK: - Finishing

    private func finishItem() {
        var state = FeedItemFields()
        swap(&state, &item)  // moved out, not copied (no retain and release of every field)
        let choice =
            isAtom
            ? AtomRules.choose(state, format: format ?? .atom10, feedAuthor: head.author)
            : RSSRules.choose(state, format: format ?? .rss2, base: currentBase)
        let link = choice.link
        let summaryHTML = choice.summary
        let contentHTML = choice.content
        // The summary: as UTF-8 bytes when the plain text comes out clean (the usual case),
        // else (or for a text summary) through strings; both give the same text.
        var summary: String?
        var summaryUTF8: [UInt8]?
        if let html = summaryHTML {
            if choice.summaryIsText {
                summary = HTMLText.summary(fromText: html.string)
            } else {
                switch html.withUTF8({ HTMLText.summary(fromHTML: $0) }) {
                case .utf8(let bytes)?: summaryUTF8 = bytes
                case .string(let string)?: summary = string
                case nil: break
                }
            }
        }
        let published = choice.published
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
            id: id, title: title, link: link.map(FeedText.sanitized), author: choice.author,
            published: published,
            updated: state.updated, summary: summary, content: nil,
            enclosures: state.enclosures, categories: state.categories)
        parsed.summary = summary ?? summaryUTF8.map { FeedText.string(utf8: $0) }
        guard let itemSink else {
            parsed.content = contentHTML?.string
            items.append(parsed)
            return
        }
        if sinkTakesContentUTF8, case .bytes(let bytes)? = contentHTML {
            // The body as captured, never made into a String (see `FeedItemSink`).
            bytes.withUnsafeBufferPointer { itemSink.receive(parsed, contentUTF8: $0, from: self) }
        } else {
            parsed.content = contentHTML?.string
            itemSink.receive(parsed, contentUTF8: nil, from: self)
        }
    }

    /// The feed's head (format, title, link) when nothing later in the document can change
    /// it: an RSS or RDF feed whose title and link have been read (the first of each is
    /// kept). Atom links are chosen among all of a feed's links: never settled early.
    func settledHead() -> ParsedFeed? {
        guard format != nil, !isAtom, head.title != nil, head.link != nil else { return nil }
        return makeFeed()
    }

    /// The feed as read so far (at the end of the document: the whole feed).
    func makeFeed() -> ParsedFeed? {
        guard let format else { return nil }
        var feed = ParsedFeed(
            format: format, title: head.title ?? head.dcTitle, link: head.link ?? head.alternateLink, items: items)
        feed.link = feed.link.map(FeedText.sanitized)
        feed.warnings = errors
        if errorCount > errors.count { feed.warnings.append("… and \(errorCount - errors.count) more") }
        feed.warnings += notes
        feed.problems = problems
        return feed
    }
}

/// The attributes libxml2 passes to `startElementNs`: five pointers per attribute
/// (local name, prefix, URI, value start, value end).
struct FeedXMLAttributes {
    let count: Int
    let pointer: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?

    /// `string` without surrounding XML white space; itself (no copy) when there is none.
    static func trimmed(_ string: String) -> String {
        guard let first = string.utf8.first, let last = string.utf8.last,
            FeedText.isXMLSpace(first) || FeedText.isXMLSpace(last)
        else { return string }
        var slice = Substring(string)
        while let byte = slice.utf8.first, FeedText.isXMLSpace(byte) { slice = slice.dropFirst() }
        while let byte = slice.utf8.last, FeedText.isXMLSpace(byte) { slice = slice.dropLast() }
        return String(slice)
    }

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
            guard raw.contains(0x26) else { return FeedText.string(utf8: raw) }
            if let unescaped = Self.unescapingAmpersands(raw) { return FeedText.string(utf8: unescaped) }
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
