import CLibXML2
import Foundation

/// What the page's `<head>` and `<html>` say, gathered while the tree is read.
struct PageHead {
    var title: String?
    /// Each `<meta>`'s attributes.
    var metas: [[ArticleDOM.Attribute]] = []
    /// The text of each `<script type="application/ld+json">`.
    var jsonLD: [String] = []
    var lang: String?
    var dir: String?
    var baseHref: String?
}

extension ArticleDOM {
    /// Deeper elements are attached to their ancestor at this depth: a page is not a
    /// reason to hold thousands of nested levels, and every later walk stays shallow.
    static let maximumDepth = 200

    /// Elements whose contents are never article text.
    private static let droppedElements: Set<String> = ["script", "noscript", "style", "template", "head"]

    // MARK: - Reading a page

    /// Parses `bytes` with libxml2's HTML parser (recovering, no network, no DTD) into a tree
    /// rooted at `<html>` holding one `<body>`, and the head's facts.
    static func parse(_ bytes: UnsafeRawBufferPointer, charset: String? = nil) -> (dom: ArticleDOM, body: Int, head: PageHead) {
        var dom = ArticleDOM()
        var head = PageHead()
        let html = dom.createElement("html")
        let body = dom.createElement("body")
        dom.append(body, to: html)
        guard let base = bytes.baseAddress, bytes.count > 0 else { return (dom, body, head) }
        let options = Int32(
            HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue
                | HTML_PARSE_NONET.rawValue | HTML_PARSE_NODEFDTD.rawValue | HTML_PARSE_COMPACT.rawValue)
        // Text that is valid UTF-8 is read as UTF-8 whatever its <meta> claims (as a browser
        // does with a decoded string); other bytes in the server's charset, else as the page
        // declares.
        let isUTF8 = String(validating: UnsafeRawBufferPointer(start: base, count: bytes.count), as: UTF8.self) != nil
        let encodings: [String?] = isUTF8 ? ["UTF-8"] : charset.map { [$0, nil] } ?? [nil]
        let document: htmlDocPtr? = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
            for encoding in encodings {
                // An encoding libxml2 does not know gives no document: try the next.
                let document =
                    encoding.map { htmlReadMemory(chars, Int32(clamping: bytes.count), nil, $0, options) }
                    ?? htmlReadMemory(chars, Int32(clamping: bytes.count), nil, nil, options)
                if let document { return document }
            }
            return nil
        }
        guard let document else { return (dom, body, head) }
        defer { xmlFreeDoc(document) }
        guard let rootElement = xmlDocGetRootElement(document) else { return (dom, body, head) }
        dom.importTree(from: rootElement, html: html, body: body, head: &head)
        return (dom, body, head)
    }

    /// Copies libxml2's tree below `root` into this one, walking it without recursion.
    private mutating func importTree(from root: xmlNodePtr, html: Int, body: Int, head: inout PageHead) {
        if let rootName = Self.name(of: root), rootName == "html" {
            nodes[html].attributes = Self.attributes(of: root)
            head.lang = attribute("lang", of: html)
            head.dir = attribute("dir", of: html)
        }
        // (libxml2 node, our parent, depth)
        var stack: [(xmlNodePtr, Int, Int)] = []
        let start: xmlNodePtr? = Self.name(of: root) == "html" ? root.pointee.children : root
        var child = start
        var pending: [(xmlNodePtr, Int, Int)] = []
        while let node = child {
            pending.append((node, html, 1))
            child = node.pointee.next
        }
        stack.append(contentsOf: pending.reversed())
        while let (node, parent, depth) = stack.popLast() {
            switch node.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                guard let content = node.pointee.content else { continue }
                let text = String(cString: content)
                // Text outside <body> (libxml2 keeps some between head and body) joins the body.
                let target = parent == html ? body : parent
                let last = nodes[target].lastChild
                if last >= 0 && nodes[last].isText {
                    nodes[last].text += text
                } else {
                    append(createText(text), to: target)
                }
            case XML_ELEMENT_NODE:
                guard let name = Self.name(of: node) else { continue }
                if name == "head" {
                    readHead(node, into: &head)
                    continue
                }
                if name == "script" {
                    if Self.attributes(of: node).contains(where: {
                        $0.name == "type" && $0.value.lowercased() == "application/ld+json"
                    }) {
                        head.jsonLD.append(Self.text(of: node))
                    }
                    continue
                }
                if Self.droppedElements.contains(name) { continue }
                if name == "meta" { head.metas.append(Self.attributes(of: node)) }
                let element: Int
                var target = parent
                if name == "body" {
                    element = body
                    nodes[body].attributes = Self.attributes(of: node)
                } else {
                    if parent == html { target = body }
                    if depth > Self.maximumDepth {
                        // Too deep: its children join the ancestor instead.
                        element = target
                    } else {
                        element = createElement(name, attributes: Self.attributes(of: node))
                        append(element, to: target)
                    }
                }
                var children: [(xmlNodePtr, Int, Int)] = []
                var child = node.pointee.children
                while let current = child {
                    children.append((current, element, depth + 1))
                    child = current.pointee.next
                }
                stack.append(contentsOf: children.reversed())
            default:
                continue
            }
        }
    }

    /// The title, `<meta>` tags, JSON-LD and `<base>` of the page's `<head>`.
    private func readHead(_ headNode: xmlNodePtr, into head: inout PageHead) {
        var child = headNode.pointee.children
        while let node = child {
            defer { child = node.pointee.next }
            guard node.pointee.type == XML_ELEMENT_NODE, let name = Self.name(of: node) else { continue }
            switch name {
            case "title" where head.title == nil:
                head.title = Self.text(of: node)
            case "meta":
                head.metas.append(Self.attributes(of: node))
            case "base" where head.baseHref == nil:
                head.baseHref = Self.attributes(of: node).first { $0.name == "href" }?.value
            case "script":
                if Self.attributes(of: node).contains(where: {
                    $0.name == "type" && $0.value.lowercased() == "application/ld+json"
                }) {
                    head.jsonLD.append(Self.text(of: node))
                }
            default:
                continue
            }
        }
    }

    private static func name(of node: xmlNodePtr) -> String? {
        guard let name = node.pointee.name else { return nil }
        return String(cString: name).lowercased()
    }

    private static func attributes(of node: xmlNodePtr) -> [Attribute] {
        var result: [Attribute] = []
        var seen: Set<String> = []
        var property = node.pointee.properties
        while let attribute = property {
            defer { property = attribute.pointee.next }
            guard let rawName = attribute.pointee.name else { continue }
            let name = String(cString: rawName).lowercased()
            var value = ""
            var part = attribute.pointee.children
            while let text = part {
                if let content = text.pointee.content { value += String(cString: content) }
                part = text.pointee.next
            }
            // The first of repeated names wins, as in a browser.
            if seen.insert(name).inserted { result.append(Attribute(name: name, value: value)) }
        }
        return result
    }

    /// The text of a leaf element such as `<title>` or `<script>` (its direct text children).
    private static func text(of node: xmlNodePtr) -> String {
        var text = ""
        var child = node.pointee.children
        while let current = child {
            if let content = current.pointee.content,
                current.pointee.type == XML_TEXT_NODE || current.pointee.type == XML_CDATA_SECTION_NODE
            {
                text += String(cString: content)
            }
            child = current.pointee.next
        }
        return text
    }

    // MARK: - Writing HTML

    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
    ]

    /// `node` and its subtree as HTML (text and attribute values escaped).
    func outerHTML(of node: Int) -> String {
        var html = ""
        // (node, closing): closing entries write the end tag.
        var stack: [(Int, Bool)] = [(node, false)]
        while let (current, closing) = stack.popLast() {
            let item = nodes[current]
            if closing {
                html += "</\(item.name)>"
                continue
            }
            if item.isText {
                html += Self.escaped(item.text, quote: false)
                continue
            }
            html += "<\(item.name)"
            for attribute in item.attributes {
                html += " \(attribute.name)=\"\(Self.escaped(attribute.value, quote: true))\""
            }
            html += ">"
            if Self.voidElements.contains(item.name) { continue }
            stack.append((current, true))
            var children: [(Int, Bool)] = []
            var child = item.firstChild
            while child >= 0 {
                children.append((child, false))
                child = nodes[child].next
            }
            stack.append(contentsOf: children.reversed())
        }
        return html
    }

    static func escaped(_ text: String, quote: Bool) -> String {
        let needsEscaping = text.utf8.contains { byte in
            byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == 0xC2
                || (quote && byte == UInt8(ascii: "\""))
        }
        guard needsEscaping else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 16)
        var previous: UInt8 = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes += Array("&amp;".utf8)
            case UInt8(ascii: "<"): bytes += Array("&lt;".utf8)
            case UInt8(ascii: ">"): bytes += Array("&gt;".utf8)
            case UInt8(ascii: "\"") where quote: bytes += Array("&quot;".utf8)
            case 0xA0 where previous == 0xC2:
                // U+00A0, a no-break space: its lead byte is already out; replace both.
                bytes.removeLast()
                bytes += Array("&nbsp;".utf8)
            default: bytes.append(byte)
            }
            previous = byte
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
