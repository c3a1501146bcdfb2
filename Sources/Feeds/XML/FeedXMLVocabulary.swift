import CLibXML2

#if canImport(Glibc)
    import Glibc
#endif

/// The namespaces and element names the feed parser acts on, recognized from libxml2's
/// UTF-8 names without building Strings.
enum FeedXMLNamespace: UInt8 {
    case none, rss, atom10, atom03, rdf, dc, dcterms, content, media, itunes, xhtml, xml, other

    static func of(_ uri: UnsafePointer<xmlChar>?) -> FeedXMLNamespace {
        guard let uri else { return .none }
        let length = strlen(UnsafeRawPointer(uri).assumingMemoryBound(to: CChar.self))
        func equals(_ literal: StaticString) -> Bool {
            literal.utf8CodeUnitCount == length && memcmp(uri, literal.utf8Start, length) == 0
        }
        switch length {
        case 27 where equals("http://www.w3.org/2005/Atom"): return .atom10
        // Atom 0.3, and the names the drafts before it went by ("echo", "pie", "necho").
        case 24 where equals("http://purl.org/atom/ns#"), 29 where equals("http://example.com/newformat#"),
            24 where equals("http://example.com/necho"), 21 where equals("http://purl.org/echo/"),
            20 where equals("http://purl.org/pie/"), 22 where equals("uri/of/echo/namespace#"),
            25 where equals("http://purl.org/necho/0.1"), 21 where equals("http://purl.org/echo#"):
            return .atom03
        case 43 where equals("http://www.w3.org/1999/02/22-rdf-syntax-ns#"): return .rdf
        case 32 where equals("http://purl.org/dc/elements/1.1/"): return .dc
        case 25 where equals("http://purl.org/dc/terms/"): return .dcterms
        case 40 where equals("http://purl.org/rss/1.0/modules/content/"): return .content
        case 29 where equals("http://search.yahoo.com/mrss/"), 28 where equals("http://search.yahoo.com/mrss"):
            return .media
        case 42 where equals("http://www.itunes.com/dtds/podcast-1.0.dtd"),
            42 where equals("http://www.itunes.com/DTDs/Podcast-1.0.dtd"):
            return .itunes
        case 28 where equals("http://www.w3.org/1999/xhtml"): return .xhtml
        case 36 where equals("http://www.w3.org/XML/1998/namespace"): return .xml
        case 24 where equals("http://purl.org/rss/1.0/"), 32 where equals("http://backend.userland.com/rss2"),
            31 where equals("http://backend.userland.com/rss"),
            38 where equals("http://my.netscape.com/rdf/simple/0.9/"),
            43 where equals("http://channel.netscape.com/rdf/simple/0.9/"):
            return .rss
        default: return .other
        }
    }

    /// The RSS 0.90 namespace (its documents are RDF, like RSS 1.0).
    static func isRSS090(_ uri: UnsafePointer<xmlChar>?) -> Bool {
        guard let uri else { return false }
        let text = UnsafeRawPointer(uri).assumingMemoryBound(to: CChar.self)
        return strcmp(text, "http://my.netscape.com/rdf/simple/0.9/") == 0
            || strcmp(text, "http://channel.netscape.com/rdf/simple/0.9/") == 0
    }
}

/// Local names of the elements the parser knows (in whatever namespace).
enum FeedXMLName: UInt8 {
    case other
    case rss, rdf, feed, channel, item, entry, items, image, textinput
    case title, link, description, guid, pubDate, author, category, enclosure, source
    case id, published, updated, issued, modified, created, content, summary, name, email, uri
    case creator, date, subject, encoded, group, subtitle, tagline

    static func of(_ name: UnsafePointer<xmlChar>) -> FeedXMLName {
        let length = strlen(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self))
        func equals(_ literal: StaticString) -> Bool {
            literal.utf8CodeUnitCount == length && memcmp(name, literal.utf8Start, length) == 0
        }
        switch length {
        case 2: return equals("id") ? .id : .other
        case 3:
            if equals("rss") { return .rss }
            if equals("RDF") { return .rdf }
            if equals("uri") { return .uri }
            return .other
        case 4:
            switch name[0] {
            case 0x69: return equals("item") ? .item : .other  // i
            case 0x6C: return equals("link") ? .link : .other  // l
            case 0x66: return equals("feed") ? .feed : .other  // f
            case 0x67: return equals("guid") ? .guid : .other  // g
            case 0x6E: return equals("name") ? .name : .other  // n
            case 0x64: return equals("date") ? .date : .other  // d
            default: return .other
            }
        case 5:
            switch name[0] {
            case 0x74: return equals("title") ? .title : .other
            case 0x65:
                if equals("entry") { return .entry }
                return equals("email") ? .email : .other
            case 0x69:
                if equals("items") { return .items }
                if equals("image") { return .image }
                return .other
            case 0x67: return equals("group") ? .group : .other
            default: return .other
            }
        case 6:
            if equals("author") { return .author }
            if equals("source") { return .source }
            if equals("issued") { return .issued }
            return .other
        case 7:
            if equals("channel") { return .channel }
            if equals("pubDate") { return .pubDate }
            if equals("updated") { return .updated }
            if equals("content") { return .content }
            if equals("summary") { return .summary }
            if equals("created") { return .created }
            if equals("creator") { return .creator }
            if equals("subject") { return .subject }
            if equals("encoded") { return .encoded }
            if equals("tagline") { return .tagline }
            return .other
        case 8:
            if equals("category") { return .category }
            if equals("modified") { return .modified }
            if equals("subtitle") { return .subtitle }
            return .other
        case 9:
            if equals("enclosure") { return .enclosure }
            if equals("published") { return .published }
            if equals("textinput") || equals("textInput") { return .textinput }
            return .other
        case 11: return equals("description") ? .description : .other
        default: return .other
        }
    }
}
