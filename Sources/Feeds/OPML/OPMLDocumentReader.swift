// This file talks to libxml2 and imports nothing else: Debian's libxml2 headers bring in
// the system ICU, whose declarations clash with the copy of ICU inside Foundation when
// both are visible in one Swift file (unless the CLibXML2 shim hides them), so the
// libxml2 side is kept apart from the Foundation side (OPML.swift).
import CLibXML2

/// An `<outline>` element as read from the document: attributes (names lower-cased,
/// since exporters disagree on `xmlUrl` vs `xmlURL`) and child outlines.
struct OPMLOutlineNode {
    var attributes: [String: String]
    var children: [OPMLOutlineNode]
}

/// What libxml2 made of a document.
enum OPMLDocumentReading {
    /// The root element's name and the outlines of `<body>` (nil when there is no body).
    case document(rootElement: String, body: [OPMLOutlineNode]?)
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
        let options = Int32(
            XML_PARSE_NONET.rawValue | XML_PARSE_RECOVER.rawValue | XML_PARSE_NOERROR.rawValue
                | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue)
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
        return .document(rootElement: name(of: root), body: body.map(outlines(in:)))
    }

    private static func failure(_ error: xmlError) -> OPMLDocumentReading {
        var message = error.message.map { String(cString: $0) } ?? ""
        while let last = message.last, last == "\n" || last == " " { message.removeLast() }
        return .failure(
            line: Int(error.line), column: Int(error.int2), message: message.isEmpty ? "no document element" : message)
    }

    private static func outlines(in parent: xmlNodePtr) -> [OPMLOutlineNode] {
        elements(in: parent).filter { lowercasedName(of: $0) == "outline" }.map { element in
            OPMLOutlineNode(attributes: attributes(of: element), children: outlines(in: element))
        }
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
