/// A fast, forgiving HTML-to-plain-text flattening for feed fields (titles of
/// `type="html"`, summaries): tags dropped, `script`/`style` content dropped, block
/// elements and `<br>` become line breaks, entities (HTML 4 names and numeric) decoded,
/// runs of spaces collapsed. Works on UTF-8 bytes in one pass.
///
/// ```swift
/// FeedMarkup.plainText("<b>Caf&eacute;</b> &amp; bar")   // "Café & bar"
/// ```
enum FeedMarkup {
    static func plainText(_ html: String) -> String {
        var html = html
        return html.withUTF8 { source -> String in
            let n = source.count
            // Every construct writes at most as many bytes as it reads, plus the two line
            // breaks a block tag may leave pending; 2n + 16 is a safe bound.
            let capacity = n * 2 + 16
            let output = [UInt8](unsafeUninitializedCapacity: capacity) { out, initialized in
                initialized = flatten(source, into: out)
            }
            return String(decoding: output, as: UTF8.self)
        }
    }

    private enum Pending { case none, space, lineBreak, paragraph }

    private static func flatten(_ s: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let n = s.count
        var i = 0
        var w = 0
        var pending = Pending.none
        while i < n {
            let c = s[i]
            if c == 0x3C, let (end, effect) = tag(s, at: i) {  // <
                i = end
                switch effect {
                case .none: break
                case .lineBreak: if pending != .paragraph { pending = .lineBreak }
                case .paragraph: pending = .paragraph
                }
                continue
            }
            if c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D {
                if pending == .none { pending = .space }
                i += 1
                continue
            }
            var scalar: UInt32 = 0
            var consumed = 1
            if c == 0x26, let (value, end) = entity(s, at: i) {  // &
                if value == 0x20 || value == 0x0A || value == 0x09 {
                    if pending == .none { pending = .space }
                    i = end
                    continue
                }
                scalar = value
                consumed = end - i
            }
            if w > 0 {
                switch pending {
                case .none: break
                case .space:
                    out[w] = 0x20
                    w += 1
                case .lineBreak:
                    out[w] = 0x0A
                    w += 1
                case .paragraph:
                    out[w] = 0x0A
                    out[w + 1] = 0x0A
                    w += 2
                }
            }
            pending = .none
            if scalar == 0 {
                out[w] = c
                w += 1
            } else {
                w += writeScalar(scalar, to: out, at: w)
            }
            i += consumed
        }
        return w
    }

    private static func writeScalar(_ scalar: UInt32, to out: UnsafeMutableBufferPointer<UInt8>, at w: Int) -> Int {
        switch scalar {
        case 0..<0x80:
            out[w] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            out[w] = UInt8(0xC0 | (scalar >> 6))
            out[w + 1] = UInt8(0x80 | (scalar & 0x3F))
            return 2
        case 0x800..<0x10000:
            out[w] = UInt8(0xE0 | (scalar >> 12))
            out[w + 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[w + 2] = UInt8(0x80 | (scalar & 0x3F))
            return 3
        default:
            out[w] = UInt8(0xF0 | (scalar >> 18))
            out[w + 1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
            out[w + 2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[w + 3] = UInt8(0x80 | (scalar & 0x3F))
            return 4
        }
    }

    private enum TagEffect { case none, lineBreak, paragraph }

    /// Lower-cased tag name packed into an integer (up to 8 ASCII letters/digits).
    private static func key(_ text: StaticString) -> UInt64 {
        var value: UInt64 = 0
        text.withUTF8Buffer { for byte in $0 { value = value << 8 | UInt64(byte) } }
        return value
    }
    private static let scriptKey = key("script")
    private static let styleKey = key("style")
    private static let lineBreakKeys: Set<UInt64> = Set(["br", "li", "tr", "dd", "dt"].map { key($0) })
    private static let paragraphKeys: Set<UInt64> = Set(
        [
            "p", "div", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "section", "article",
            "table", "hr", "figure", "header", "footer",
        ].map { key($0) })

    private static func key(_ text: String) -> UInt64 {
        var value: UInt64 = 0
        for byte in text.utf8.prefix(8) { value = value << 8 | UInt64(byte) }
        return value
    }

    /// The tag (or comment, or declaration) at `i`: where it ends and what it does to the
    /// text. `nil` when the `<` does not start markup (it is then kept as text).
    private static func tag(_ s: UnsafeBufferPointer<UInt8>, at i: Int) -> (Int, TagEffect)? {
        let n = s.count
        var j = i + 1
        guard j < n else { return nil }
        if s[j] == 0x21 {  // <! comment or declaration
            if j + 2 < n, s[j + 1] == 0x2D, s[j + 2] == 0x2D {
                return ((FeedXMLRepair.find(s, "-->", from: j + 3).map { $0 + 3 } ?? n), .none)
            }
            return ((FeedXMLRepair.findByte(s, 0x3E, from: j).map { $0 + 1 } ?? n), .none)
        }
        if s[j] == 0x3F {  // <? … >
            return ((FeedXMLRepair.findByte(s, 0x3E, from: j).map { $0 + 1 } ?? n), .none)
        }
        let closing = s[j] == 0x2F
        if closing { j += 1 }
        guard j < n, FeedDateParser.isLetter(s[j]) else { return nil }
        var name: UInt64 = 0
        var length = 0
        while j < n, FeedDateParser.isLetter(s[j]) || FeedDateParser.isDigit(s[j]) {
            if length < 8 { name = name << 8 | UInt64(s[j] | (FeedDateParser.isLetter(s[j]) ? 0x20 : 0)) }
            length += 1
            j += 1
        }
        if length > 8 { name = 0 }
        // The end of the tag, skipping quoted attribute values.
        var end = j
        var quote: UInt8 = 0
        while end < n {
            let byte = s[end]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == 0x22 || byte == 0x27 {
                quote = byte
            } else if byte == 0x3E {
                break
            }
            end += 1
        }
        end = min(n, end + 1)
        if !closing && (name == scriptKey || name == styleKey) && !(end >= 2 && s[end - 2] == 0x2F) {
            return (skipRawText(s, from: end, nameLength: length), .none)
        }
        if lineBreakKeys.contains(name) { return (end, .lineBreak) }
        if paragraphKeys.contains(name) { return (end, .paragraph) }
        return (end, .none)
    }

    /// Past the `</script>` or `</style>` that closes raw text starting at `start`.
    private static func skipRawText(_ s: UnsafeBufferPointer<UInt8>, from start: Int, nameLength: Int) -> Int {
        let n = s.count
        var j = start
        while let lt = FeedXMLRepair.findByte(s, 0x3C, from: j) {
            if lt + 1 < n, s[lt + 1] == 0x2F, lt + 2 + nameLength <= n {
                let first = s[lt + 2] | 0x20
                if first == 0x73 {  // s: script or style
                    return (FeedXMLRepair.findByte(s, 0x3E, from: lt).map { $0 + 1 } ?? n)
                }
            }
            j = lt + 1
        }
        return n
    }

    /// The character of the reference at `i` (`&name;`, `&#N;`, `&#xH;`) and where it ends.
    static func entity(_ s: UnsafeBufferPointer<UInt8>, at i: Int) -> (UInt32, Int)? {
        let n = s.count
        var j = i + 1
        if j < n, s[j] == 0x23 {
            j += 1
            var value: UInt32 = 0
            var digits = 0
            let hex = j < n && (s[j] | 0x20) == 0x78
            if hex { j += 1 }
            while j < n, digits < 8 {
                let byte = s[j]
                if FeedDateParser.isDigit(byte) {
                    value = value * (hex ? 16 : 10) + UInt32(byte - 0x30)
                } else if hex, (byte | 0x20) >= 0x61, (byte | 0x20) <= 0x66 {
                    value = value * 16 + UInt32((byte | 0x20) - 0x57)
                } else {
                    break
                }
                digits += 1
                j += 1
            }
            guard digits > 0 else { return nil }
            if j < n, s[j] == 0x3B { j += 1 }
            if value >= 0x80 && value <= 0x9F { value = FeedXMLEncoding.windows1252Scalar(UInt8(value)) }
            guard FeedXMLRepair.isXMLChar(value), value != 0 else { return (0xFFFD, j) }
            return (value, j)
        }
        let start = j
        while j < n, j - start < 32, FeedDateParser.isLetter(s[j]) || FeedDateParser.isDigit(s[j]) { j += 1 }
        guard j > start, j < n, s[j] == 0x3B else { return nil }
        let nameBytes = UnsafeBufferPointer(rebasing: s[start..<j])
        if let predefined = predefinedEntity(nameBytes) { return (predefined, j + 1) }
        let name = String(decoding: nameBytes, as: UTF8.self)
        guard let scalar = FeedHTMLEntities.scalar(named: name) else { return nil }
        return (scalar, j + 1)
    }

    @inline(__always)
    private static func predefinedEntity(_ name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        switch name.count {
        case 2 where name[1] == 0x74:
            if name[0] == 0x6C { return 0x3C }  // lt
            if name[0] == 0x67 { return 0x3E }  // gt
            return nil
        case 3 where name[0] == 0x61 && name[1] == 0x6D && name[2] == 0x70: return 0x26  // amp
        case 4 where name[0] == 0x71 && name[1] == 0x75 && name[2] == 0x6F && name[3] == 0x74: return 0x22  // quot
        case 4 where name[0] == 0x6E && name[1] == 0x62 && name[2] == 0x73 && name[3] == 0x70: return 0xA0  // nbsp
        default: return nil
        }
    }
}
