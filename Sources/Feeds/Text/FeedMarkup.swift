/// A fast, forgiving HTML-to-plain-text flattening for short fields (titles of
/// `type="html"`, summaries): tags dropped, `script`/`style` content dropped, block
/// elements and `<br>` become line breaks, entities (HTML 4 names and numeric) decoded,
/// runs of spaces collapsed.
///
/// ```swift
/// FeedMarkup.plainText("<b>Caf&eacute;</b> &amp; bar")   // "Café & bar"
/// ```
enum FeedMarkup {
    static func plainText(_ html: String) -> String {
        var source = Array(html.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(source.count)
        source.withUnsafeMutableBufferPointer { buffer in
            let s = UnsafeBufferPointer(buffer)
            let n = s.count
            var i = 0
            var pendingSpace = false
            var pendingNewlines = 0
            func emit(_ byte: UInt8) {
                if pendingNewlines > 0 {
                    if !out.isEmpty { out.append(contentsOf: repeatElement(0x0A, count: min(pendingNewlines, 2))) }
                    pendingNewlines = 0
                    pendingSpace = false
                } else if pendingSpace {
                    if !out.isEmpty { out.append(0x20) }
                    pendingSpace = false
                }
                out.append(byte)
            }
            while i < n {
                let c = s[i]
                if c == 0x3C {  // <
                    if i + 3 < n, s[i + 1] == 0x21, s[i + 2] == 0x2D, s[i + 3] == 0x2D {  // <!--
                        i = FeedXMLRepair.find(s, "-->", from: i + 4).map { $0 + 3 } ?? n
                        continue
                    }
                    guard let close = FeedXMLRepair.findByte(s, 0x3E, from: i + 1) else {
                        emit(c)
                        i += 1
                        continue
                    }
                    var nameStart = i + 1
                    if nameStart < n, s[nameStart] == 0x2F { nameStart += 1 }
                    var nameEnd = nameStart
                    while nameEnd < close, FeedDateParser.isLetter(s[nameEnd]) || FeedDateParser.isDigit(s[nameEnd]) { nameEnd += 1 }
                    let name = String(decoding: UnsafeBufferPointer(rebasing: s[nameStart..<nameEnd]), as: UTF8.self).lowercased()
                    if name.isEmpty && nameStart == i + 1 && !(nameStart < n && (s[nameStart] == 0x21 || s[nameStart] == 0x3F)) {
                        emit(c)  // a lone "<" in text
                        i += 1
                        continue
                    }
                    i = close + 1
                    if (name == "script" || name == "style") && s[nameStart - 1] != 0x2F {
                        let endTag = "</" + name
                        var j = i
                        while j < n {
                            guard let lt = FeedXMLRepair.findByte(s, 0x3C, from: j) else { j = n; break }
                            let candidate = String(decoding: UnsafeBufferPointer(rebasing: s[lt..<min(n, lt + endTag.utf8.count)]), as: UTF8.self).lowercased()
                            if candidate == endTag {
                                j = (FeedXMLRepair.findByte(s, 0x3E, from: lt) ?? (n - 1)) + 1
                                break
                            }
                            j = lt + 1
                        }
                        i = j
                        continue
                    }
                    switch name {
                    case "br": pendingNewlines = max(pendingNewlines, 1)
                    case "p", "div", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "blockquote", "pre",
                        "section", "article", "table", "dd", "dt", "hr", "figure", "figcaption":
                        pendingNewlines = max(pendingNewlines, name == "li" || name == "tr" || name == "dd" || name == "dt" ? 1 : 2)
                    default: break
                    }
                    continue
                }
                if c == 0x26, let (scalar, end) = entity(s, at: i) {  // &
                    if scalar == 0x20 || scalar == 0x0A || scalar == 0x09 {
                        pendingSpace = true
                    } else {
                        var bytes: [UInt8] = []
                        FeedXMLEncoding.appendScalar(scalar, to: &bytes)
                        for byte in bytes { emit(byte) }
                    }
                    i = end
                    continue
                }
                if c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D {
                    pendingSpace = true
                    i += 1
                    continue
                }
                emit(c)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
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
            guard FeedXMLRepair.isXMLChar(value) else { return (0xFFFD, j) }
            return (value, j)
        }
        let start = j
        while j < n, j - start < 32, FeedDateParser.isLetter(s[j]) || FeedDateParser.isDigit(s[j]) { j += 1 }
        guard j > start, j < n, s[j] == 0x3B else { return nil }
        let name = String(decoding: UnsafeBufferPointer(rebasing: s[start..<j]), as: UTF8.self)
        guard let scalar = FeedHTMLEntities.scalar(named: name) else { return nil }
        return (scalar, j + 1)
    }
}
