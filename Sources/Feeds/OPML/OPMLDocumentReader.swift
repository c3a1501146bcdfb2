// This file talks to libxml2 and imports nothing else: Debian's libxml2 headers bring in
// the system ICU, whose declarations clash with the copy of ICU inside Foundation when
// both are visible in one Swift file (unless the CLibXML2 shim hides them), so the
// libxml2 side is kept apart from the Foundation side (OPML.swift).
import CLibXML2

/// An `<outline>` element as read from the document: attributes (names lower-cased,
/// since exporters disagree on `xmlUrl` vs `xmlURL`) and how deep it is nested (1: a
/// child of `<body>`). Outlines come as a flat list in document order, so that no walk
/// over them (nor their deallocation) recurses once per level.
struct OPMLOutlineNode {
    var attributes: [String: String]
    var depth: Int
}

/// Where libxml2 stopped reading a document before its end (nesting past its depth limit,
/// say): what came after is lost.
struct OPMLStop: Equatable {
    var line: Int
    var column: Int
    var message: String
}

/// What libxml2 made of a document.
enum OPMLDocumentReading {
    /// The root element's name and the outlines of `<body>` (nil when there is no body),
    /// and where reading stopped early, if it did.
    case document(rootElement: String, body: [OPMLOutlineNode]?, stoppedAt: OPMLStop?)
    /// No document at all; libxml2's message and position.
    case failure(line: Int, column: Int, message: String)
}

/// Reads an OPML document into outline nodes with libxml2, safely: no network
/// (`XML_PARSE_NONET`), no DTD loading, no entity substitution, recovery from
/// well-formedness errors, no messages on stderr. The caller refuses documents that
/// declare entities before calling this.
enum OPMLDocumentReader {
    static func read(_ bytes: UnsafeRawBufferPointer) -> OPMLDocumentReading {
        xmlInitParser()
        guard let context = xmlNewParserCtxt() else {
            return .failure(line: 0, column: 0, message: "libxml2 could not allocate a parser")
        }
        defer { xmlFreeParserCtxt(context) }
        // XML_PARSE_HUGE raises libxml2's nesting limit from 256 to 2048 levels (folders in
        // folders); the size is capped by the caller and entities are refused before this.
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue | XML_PARSE_NOERROR.rawValue
                | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_HUGE.rawValue)
        guard let base = bytes.baseAddress,
            let document = xmlCtxtReadMemory(
                context, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, nil, options)
        else {
            return failure(context.pointee.lastError)
        }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else {
            return failure(context.pointee.lastError)
        }
        let body = elements(in: root).first(where: { lowercasedName(of: $0) == "body" })
        // Recovery goes on past most errors; a halt (disableSAX) drops the rest of the file.
        var stop: OPMLStop?
        if context.pointee.disableSAX != 0 {
            if case .failure(let line, let column, let message) = failure(context.pointee.lastError) {
                stop = OPMLStop(line: line, column: column, message: message)
            }
        }
        return .document(rootElement: name(of: root), body: body.map(outlines(in:)), stoppedAt: stop)
    }

    private static func failure(_ error: xmlError) -> OPMLDocumentReading {
        var message = error.message.map { String(cString: $0) } ?? ""
        while let last = message.last, last == "\n" || last == " " { message.removeLast() }
        return .failure(
            line: Int(error.line), column: Int(error.int2), message: message.isEmpty ? "no document element" : message)
    }

    /// The outlines under `parent`, in document order, walked with an explicit stack.
    private static func outlines(in parent: xmlNodePtr) -> [OPMLOutlineNode] {
        var result: [OPMLOutlineNode] = []
        var pending: [(node: xmlNodePtr, depth: Int)] = childOutlines(of: parent).reversed().map { ($0, 1) }
        while let (node, depth) = pending.popLast() {
            result.append(OPMLOutlineNode(attributes: attributes(of: node), depth: depth))
            pending += childOutlines(of: node).reversed().map { ($0, depth + 1) }
        }
        return result
    }

    private static func childOutlines(of node: xmlNodePtr) -> [xmlNodePtr] {
        elements(in: node).filter { lowercasedName(of: $0) == "outline" }
    }

    private static func name(of node: xmlNodePtr) -> String {
        node.pointee.name.map { String(cString: $0) } ?? ""
    }

    private static func lowercasedName(of node: xmlNodePtr) -> String {
        name(of: node).lowercased()
    }

    private static func elements(in node: xmlNodePtr) -> [xmlNodePtr] {
        var result: [xmlNodePtr] = []
        var child = node.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(current) }
            child = current.pointee.next
        }
        return result
    }

    /// Attribute values read from the tree (the attribute's text children), so nothing
    /// is allocated that would need `xmlFree`. The first of duplicate names wins.
    private static func attributes(of node: xmlNodePtr) -> [String: String] {
        var result: [String: String] = [:]
        var property = node.pointee.properties
        while let current = property {
            if let rawName = current.pointee.name {
                let key = String(cString: rawName).lowercased()
                var value = ""
                var child = current.pointee.children
                while let text = child {
                    if let content = text.pointee.content { value += String(cString: content) }
                    child = text.pointee.next
                }
                if result[key] == nil { result[key] = value }
            }
            property = current.pointee.next
        }
        return result
    }
}
