/// One piece of an HTML fragment as ``HTMLTokenizer`` reads it.
enum HTMLToken: Equatable {
    /// Character data with its entities still encoded.
    case text(Substring)
    /// A start tag; the name is lower-cased, attribute names too, and values are decoded.
    case startTag(name: String, attributes: [(name: String, value: String)], selfClosing: Bool)
    case endTag(name: String)
    /// The content of a raw-text element (`script`, `style`, …), undecoded.
    case rawText(Substring)

    static func == (lhs: HTMLToken, rhs: HTMLToken) -> Bool {
        switch (lhs, rhs) {
        case (.text(let a), .text(let b)), (.rawText(let a), .rawText(let b)): return a == b
        case (.endTag(let a), .endTag(let b)): return a == b
        case (.startTag(let n1, let a1, let s1), .startTag(let n2, let a2, let s2)):
            return n1 == n2 && s1 == s2 && a1.count == a2.count
                && zip(a1, a2).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        default: return false
        }
    }
}

/// A forgiving HTML tokenizer for the fragments found in feeds.
///
/// It never fails: a `<` that starts no tag is text, unterminated comments and tags end
/// the input, unquoted and unterminated attribute values are taken as far as they go,
/// and the content of `script`, `style` and the other raw-text elements is read up to
/// its end tag without looking for markup inside. Comments, doctypes and processing
/// instructions are skipped; CDATA sections become text.
struct HTMLTokenizer {
    /// Elements whose content is not markup.
    static let rawTextElements: Set<String> = [
        "script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title", "template",
    ]

    private let source: Substring
    private var position: Substring.Index

    init(_ html: String) {
        source = Substring(html)
        position = source.startIndex
    }

    /// All tokens of the fragment.
    static func tokens(of html: String) -> [HTMLToken] {
        var tokenizer = HTMLTokenizer(html)
        var tokens: [HTMLToken] = []
        while let token = tokenizer.next() { tokens.append(token) }
        return tokens
    }

    mutating func next() -> HTMLToken? {
        if !pendingRawText.isEmpty { return pendingRawText.removeFirst() }
        while position < source.endIndex {
            if source[position] != "<" {
                let end = firstByte(UInt8(ascii: "<"), from: position) ?? source.endIndex
                defer { position = end }
                return .text(source[position..<end])
            }
            let after = source.index(after: position)
            guard after < source.endIndex else {
                position = after
                return .text(source[source.index(before: after)..<after])
            }
            let next = source[after]
            // Per scalar, as the HTML tokenizer reads: "<a" followed by a combining mark
            // still opens a tag, though the Character there is "á".
            if isASCIILetter(at: after) {
                return readStartTag(from: after)
            }
            if next == "/" {
                let nameStart = source.index(after: after)
                if nameStart < source.endIndex, isASCIILetter(at: nameStart) {
                    return readEndTag(from: nameStart)
                }
                // "</>" or "</ junk>": a bogus comment up to '>'
                skip(through: ">", from: nameStart)
                continue
            }
            if next == "!" {
                if let text = readBangConstruct(from: source.index(after: after)) { return text }
                continue
            }
            if next == "?" {
                skip(through: ">", from: after)
                continue
            }
            // A '<' that starts nothing is text.
            defer { position = after }
            return .text(source[position..<after])
        }
        return nil
    }

    private mutating func skip(through terminator: String, from start: Substring.Index) {
        if let range = find(terminator, from: start) {
            position = range.upperBound
        } else {
            position = source.endIndex
        }
    }

    /// `<!-- … -->`, `<![CDATA[ … ]]>`, `<!DOCTYPE …>`; returns text for CDATA.
    private mutating func readBangConstruct(from start: Substring.Index) -> HTMLToken? {
        let rest = source[start...]
        if rest.hasPrefix("--") {
            let bodyStart = source.index(start, offsetBy: 2)
            // "<!-->" and "<!--->" are empty comments
            if source[bodyStart...].hasPrefix(">") {
                position = source.index(after: bodyStart)
            } else if source[bodyStart...].hasPrefix("->") {
                position = source.index(bodyStart, offsetBy: 2)
            } else {
                skip(through: "-->", from: bodyStart)
            }
            return nil
        }
        if rest.hasPrefix("[CDATA[") {
            let bodyStart = source.index(start, offsetBy: 7)
            if let range = find("]]>", from: bodyStart) {
                position = range.upperBound
                return .rawText(source[bodyStart..<range.lowerBound])
            }
            position = source.endIndex
            return .rawText(source[bodyStart...])
        }
        skip(through: ">", from: start)
        return nil
    }

    private mutating func readEndTag(from nameStart: Substring.Index) -> HTMLToken? {
        var index = nameStart
        while index < source.endIndex, !isTagNameEnd(source[index]) { index = source.index(after: index) }
        let name = source[nameStart..<index].lowercased()
        guard let close = firstByte(UInt8(ascii: ">"), from: index) else {
            position = source.endIndex
            return nil
        }
        position = source.index(after: close)
        return .endTag(name: name)
    }

    private mutating func readStartTag(from nameStart: Substring.Index) -> HTMLToken? {
        var index = nameStart
        while index < source.endIndex, !isTagNameEnd(source[index]) { index = source.index(after: index) }
        let name = source[nameStart..<index].lowercased()
        var attributes: [(name: String, value: String)] = []
        var seenAttributes = Set<String>()
        var selfClosing = false
        while true {
            while index < source.endIndex, source[index].isWhitespace || source[index] == "/" {
                selfClosing = source[index] == "/"
                index = source.index(after: index)
            }
            guard index < source.endIndex else {
                position = source.endIndex  // unterminated tag: drop it
                return nil
            }
            if source[index] == ">" {
                index = source.index(after: index)
                break
            }
            selfClosing = false
            let attributeStart = index
            // The first character may be '=' (an error, but then it is part of the name).
            index = source.index(after: index)
            while index < source.endIndex, !isAttributeNameEnd(source[index]) {
                index = source.index(after: index)
            }
            let attributeName = source[attributeStart..<index].lowercased()
            var value = ""
            var lookahead = index
            while lookahead < source.endIndex, source[lookahead].isWhitespace {
                lookahead = source.index(after: lookahead)
            }
            if lookahead < source.endIndex, source[lookahead] == "=" {
                index = source.index(after: lookahead)
                while index < source.endIndex, source[index].isWhitespace { index = source.index(after: index) }
                if index < source.endIndex, source[index] == "\"" || source[index] == "'" {
                    let quote = source[index]
                    let valueStart = source.index(after: index)
                    let valueEnd = firstByte(quote.asciiValue ?? 0x22, from: valueStart) ?? source.endIndex
                    value = String(source[valueStart..<valueEnd])
                    index = valueEnd < source.endIndex ? source.index(after: valueEnd) : valueEnd
                } else {
                    let valueStart = index
                    while index < source.endIndex, !source[index].isWhitespace, source[index] != ">" {
                        index = source.index(after: index)
                    }
                    value = String(source[valueStart..<index])
                }
            }
            if seenAttributes.insert(attributeName).inserted {
                attributes.append((attributeName, HTMLEntities.decode(value, inAttribute: true)))
            }
        }
        position = index
        if Self.rawTextElements.contains(name), !selfClosing {
            return readRawText(name: name, attributes: attributes)
        }
        return .startTag(name: name, attributes: attributes, selfClosing: selfClosing)
    }

    /// After a raw-text start tag: its content becomes one pending token.
    private var pendingRawText: [HTMLToken] = []

    private mutating func readRawText(
        name: String, attributes: [(name: String, value: String)]
    ) -> HTMLToken {
        let contentStart = position
        var searchFrom = position
        var contentEnd = source.endIndex
        var afterEndTag = source.endIndex
        while let open = find("</", from: searchFrom) {
            let nameEnd =
                source.index(open.upperBound, offsetBy: name.count, limitedBy: source.endIndex)
                ?? source.endIndex
            if source[open.upperBound..<nameEnd].lowercased() == name,
                nameEnd == source.endIndex || isTagNameEnd(source[nameEnd])
            {
                contentEnd = open.lowerBound
                afterEndTag =
                    firstByte(UInt8(ascii: ">"), from: nameEnd).map { source.index(after: $0) }
                    ?? source.endIndex
                break
            }
            searchFrom = open.upperBound
        }
        position = afterEndTag
        pendingRawText = [.rawText(source[contentStart..<contentEnd]), .endTag(name: name)]
        return .startTag(name: name, attributes: attributes, selfClosing: false)
    }

    /// The first position of an ASCII byte at or after `start`, searched in UTF-8 (far
    /// cheaper than walking Characters; an ASCII byte is always a scalar boundary).
    private func firstByte(_ byte: UInt8, from start: Substring.Index) -> Substring.Index? {
        source.utf8[start...].firstIndex(of: byte)
    }

    /// The range of an ASCII `needle` at or after `start`.
    private func find(_ needle: String, from start: Substring.Index) -> Range<Substring.Index>? {
        let bytes = Array(needle.utf8)
        let view = source.utf8
        var candidate = start
        while let first = view[candidate...].firstIndex(of: bytes[0]) {
            var cursor = first
            var matched = true
            for byte in bytes {
                guard cursor < view.endIndex, view[cursor] == byte else {
                    matched = false
                    break
                }
                cursor = view.index(after: cursor)
            }
            if matched { return first..<cursor }
            candidate = view.index(after: first)
        }
        return nil
    }

    private func isASCIILetter(at index: Substring.Index) -> Bool {
        let byte = source.utf8[index] | 0x20
        return byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
    }

    private func isTagNameEnd(_ character: Character) -> Bool {
        character.isWhitespace || character == "/" || character == ">"
    }

    private func isAttributeNameEnd(_ character: Character) -> Bool {
        character.isWhitespace || character == "/" || character == ">" || character == "="
    }
}
