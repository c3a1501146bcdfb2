import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Works out what encoding a feed's bytes are in and turns them into UTF-8, so that
/// libxml2 always reads UTF-8 (it is told to ignore the declaration).
///
/// Order of evidence: byte-order mark (or the UTF-16/32 and EBCDIC signatures of `<?xml`),
/// then the HTTP charset hint, then the XML declaration, then UTF-8. Real-world repairs:
/// - a document labelled ISO-8859-1 / windows-1252 / ASCII (or any other single-byte
///   code page) whose bytes are valid UTF-8 with some non-ASCII is read as UTF-8;
/// - ISO-8859-1 and US-ASCII are read as windows-1252 (what their senders mean);
/// - `gb2312`/`gbk` are read as GB18030, `shift_jis` as CP932;
/// - UTF-8 with stray invalid bytes keeps its valid sequences and reads each stray byte
///   as windows-1252; a label that names UTF-8 on bytes that are not UTF-8 gives way to
///   the next label in the order above.
///
/// ```swift
/// let utf8 = try FeedXMLEncoding.utf8Bytes(of: buffer, charsetHint: "iso-8859-1")
/// ```
enum FeedXMLEncoding {
    /// The result of decoding: `bytes == nil` means the input (from `offset` on) is
    /// already valid UTF-8 and can be used as it is.
    struct Decoded {
        var bytes: [UInt8]?
        var offset: Int
        var encoding: String
    }

    static func decode(_ input: UnsafeBufferPointer<UInt8>, charsetHint: String?) -> Decoded {
        let n = input.count
        // Byte-order marks.
        if n >= 3, input[0] == 0xEF, input[1] == 0xBB, input[2] == 0xBF {
            return decodeAsUTF8(input, from: 3, label: "UTF-8")
        }
        if n >= 4, input[0] == 0xFF, input[1] == 0xFE, input[2] == 0, input[3] == 0 {
            return transcode(input, from: 4, encoding: "UTF-32LE")
        }
        if n >= 4, input[0] == 0, input[1] == 0, input[2] == 0xFE, input[3] == 0xFF {
            return transcode(input, from: 4, encoding: "UTF-32BE")
        }
        if n >= 2, input[0] == 0xFF, input[1] == 0xFE { return transcode(input, from: 2, encoding: "UTF-16LE") }
        if n >= 2, input[0] == 0xFE, input[1] == 0xFF { return transcode(input, from: 2, encoding: "UTF-16BE") }
        // Signatures of "<?" without a mark.
        if n >= 4, input[0] == 0x3C, input[1] == 0, input[2] == 0x3F, input[3] == 0 {
            return transcode(input, from: 0, encoding: "UTF-16LE")
        }
        if n >= 4, input[0] == 0, input[1] == 0x3C, input[2] == 0, input[3] == 0x3F {
            return transcode(input, from: 0, encoding: "UTF-16BE")
        }
        if n >= 4, input[0] == 0x4C, input[1] == 0x6F, input[2] == 0xA7, input[3] == 0x94 {
            // "<?xm" in EBCDIC: read the declaration through IBM037 to learn the code page.
            let head = transcode(UnsafeBufferPointer(rebasing: input[0..<min(n, 256)]), from: 0, encoding: "IBM037")
            let declared = head.bytes.flatMap { bytes in
                bytes.withUnsafeBufferPointer { declaredEncoding(in: $0) }
            }
            if let declared = declared.map(canonicalName) {
                for name in [declared] + alternativeNames(declared) {
                    let decoded = transcode(input, from: 0, encoding: name)
                    if decoded.bytes != nil { return decoded }
                }
            }
            return transcode(input, from: 0, encoding: "IBM037")
        }
        var labels: [String] = []
        if let charsetHint, !charsetHint.isEmpty { labels.append(canonicalName(charsetHint)) }
        if let declared = declaredEncoding(in: input) { labels.append(canonicalName(declared)) }
        for label in labels {
            if isUTF8Label(label) {
                if isValidUTF8(input, from: 0) { return Decoded(bytes: nil, offset: 0, encoding: "UTF-8") }
                continue
            }
            if isUTF16or32Label(label) {
                continue  // a UTF-16 label on bytes that begin with ASCII "<?xml": not UTF-16
            }
            if isSingleByteLabel(label) {
                let evidence = utf8Evidence(input)
                if evidence.multibyte > 0 && evidence.invalid * 4 <= evidence.multibyte {
                    return decodeAsUTF8(input, from: 0, label: "UTF-8")
                }
            }
            if label == "WINDOWS-1252" { return Decoded(bytes: windows1252ToUTF8(input, from: 0), offset: 0, encoding: label) }
            if let high = macTables[label] {
                return Decoded(bytes: singleByteToUTF8(input, from: 0, high: high), offset: 0, encoding: label)
            }
            for name in [label] + alternativeNames(label) {
                let decoded = transcode(input, from: 0, encoding: name)
                if decoded.bytes != nil { return decoded }
            }
        }
        return decodeAsUTF8(input, from: 0, label: "UTF-8")
    }

    /// Valid UTF-8 is used as it is; otherwise valid sequences are kept and each invalid
    /// byte is read as windows-1252.
    private static func decodeAsUTF8(_ input: UnsafeBufferPointer<UInt8>, from start: Int, label: String) -> Decoded {
        if isValidUTF8(input, from: start) { return Decoded(bytes: nil, offset: start, encoding: label) }
        var out: [UInt8] = []
        out.reserveCapacity(input.count - start + 1024)
        var i = start
        let n = input.count
        while i < n {
            let length = utf8SequenceLength(input, at: i)
            if length > 0 {
                for k in 0..<length { out.append(input[i + k]) }
                i += length
            } else {
                appendWindows1252(input[i], to: &out)
                i += 1
            }
        }
        return Decoded(bytes: out, offset: 0, encoding: "UTF-8 (repaired)")
    }

    // MARK: - Labels

    static func canonicalName(_ label: String) -> String {
        let name = label.trimmingSpacesAndQuotes().uppercased()
        switch name {
        case "ISO-8859-1", "ISO8859-1", "ISO_8859-1", "LATIN1", "LATIN-1", "L1", "CP819", "IBM819",
            "US-ASCII", "ASCII", "ANSI_X3.4-1968", "WINDOWS-1252", "CP1252", "X-CP1252", "CP-1252", "WIN-1252":
            return "WINDOWS-1252"
        case "UTF8", "UTF-8", "UNICODE-1-1-UTF-8", "X-UNICODE20UTF8": return "UTF-8"
        case "GB2312", "GBK", "X-GBK", "GB_2312-80", "CP936", "EUC-CN", "CSGB2312": return "GB18030"
        case "SHIFT_JIS", "SHIFT-JIS", "SJIS", "X-SJIS", "MS_KANJI", "WINDOWS-31J": return "CP932"
        case "EUC-KR", "KS_C_5601-1987": return "CP949"
        case "TIS-620", "ISO-8859-11": return "CP874"
        case "EBCDIC-CP-US", "CP037": return "IBM037"
        case "MACROMAN", "MAC-ROMAN", "X-MAC-ROMAN", "MACOS-ROMAN", "MACINTOSH", "CSMACINTOSH", "MAC", "X-MAC": return "MACINTOSH"
        case "MACCENTRALEUROPE", "MAC-CENTRALEUROPE", "X-MAC-CENTRALEURROMAN", "X-MAC-CE", "MACCE", "MACLATIN2", "MAC-LATIN2",
            "X-MAC-LATIN2", "MAC-CE":
            return "MAC-CENTRALEUROPE"
        case "MACCYRILLIC", "MAC-CYRILLIC", "X-MAC-CYRILLIC", "X-MAC-UKRAINIAN": return "MAC-CYRILLIC"
        case "MACGREEK", "MAC-GREEK", "X-MAC-GREEK": return "MACGREEK"
        case "MACTURKISH", "MAC-TURKISH", "X-MAC-TURKISH": return "MACTURKISH"
        case "MACICELAND", "MAC-ICELAND", "MACICELANDIC", "X-MAC-ICELANDIC", "MAC-ICELANDIC": return "MACICELAND"
        default: return name
        }
    }

    /// Other spellings of `label` to try when iconv does not know it as written: without
    /// an `X-` or `CS` prefix, `WIN-1251`/`WIN1251` as `WINDOWS-1251`, `CP-850`/`IBM-850`
    /// without the hyphen, `EBCDIC-…` names through IBM numbers are iconv's own aliases.
    static func alternativeNames(_ label: String) -> [String] {
        var names: [String] = []
        var name = label
        if name.hasPrefix("X-") {
            name.removeFirst(2)
            names.append(name)
        }
        if name.hasPrefix("WIN-") || (name.hasPrefix("WIN") && !name.hasPrefix("WINDOWS")) {
            let digits = name.drop { !$0.isNumber }
            if !digits.isEmpty { names.append("WINDOWS-" + digits) }
        }
        for prefix in ["CP-", "CP_", "IBM-", "IBM_", "MS-", "MS_"] where name.hasPrefix(prefix) {
            names.append(String(name.prefix(prefix.count - 1)) + name.dropFirst(prefix.count))
        }
        let compact = name.filter { $0 != "-" && $0 != "_" && $0 != " " }
        if compact != name { names.append(compact) }
        return names.filter { $0 != label }
    }

    private static func isUTF8Label(_ label: String) -> Bool { label == "UTF-8" }

    private static func isUTF16or32Label(_ label: String) -> Bool {
        label.hasPrefix("UTF-16") || label.hasPrefix("UTF-32") || label.hasPrefix("UCS-") || label == "UNICODE"
    }

    private static func isSingleByteLabel(_ label: String) -> Bool {
        label == "WINDOWS-1252" || label.hasPrefix("ISO-8859") || label.hasPrefix("ISO8859")
            || label.hasPrefix("WINDOWS-") || label.hasPrefix("CP125") || label.hasPrefix("KOI8")
            || label.hasPrefix("LATIN")
    }

    /// The `encoding="…"` of an XML declaration at the start of `input` (after white space).
    static func declaredEncoding(in input: UnsafeBufferPointer<UInt8>) -> String? {
        var i = 0
        let n = min(input.count, 1024)
        while i < n, FeedText.isXMLSpace(input[i]) { i += 1 }
        guard i + 5 < n, input[i] == 0x3C, input[i + 1] == 0x3F, input[i + 2] | 0x20 == 0x78,
            input[i + 3] | 0x20 == 0x6D, input[i + 4] | 0x20 == 0x6C
        else { return nil }
        i += 5
        let key = Array("encoding".utf8)
        while i + key.count < n {
            if input[i] == 0x3F && input[i + 1] == 0x3E { return nil }  // "?>"
            var match = true
            for k in 0..<key.count where input[i + k] | 0x20 != key[k] {
                match = false
                break
            }
            if match {
                i += key.count
                while i < n, FeedText.isXMLSpace(input[i]) || input[i] == 0x3D { i += 1 }
                guard i < n, input[i] == 0x22 || input[i] == 0x27 else { return nil }
                let quote = input[i]
                i += 1
                let start = i
                while i < n, input[i] != quote, input[i] != 0x3F { i += 1 }
                guard i > start else { return nil }
                return String(decoding: UnsafeBufferPointer(rebasing: input[start..<i]), as: UTF8.self)
            }
            i += 1
        }
        return nil
    }

    // MARK: - UTF-8

    /// How many valid multi-byte UTF-8 sequences and how many invalid bytes `input` holds:
    /// text in a single-byte code page almost never forms valid sequences, while UTF-8
    /// text mislabelled as Latin-1 is mostly valid sequences (with perhaps a stray byte).
    static func utf8Evidence(_ input: UnsafeBufferPointer<UInt8>) -> (multibyte: Int, invalid: Int) {
        var multibyte = 0
        var invalid = 0
        var i = 0
        let n = input.count
        while i < n {
            if input[i] < 0x80 {
                i += 1
                continue
            }
            let length = utf8SequenceLength(input, at: i)
            if length == 0 {
                invalid += 1
                i += 1
            } else {
                multibyte += 1
                i += length
            }
        }
        return (multibyte, invalid)
    }

    /// Length of the valid UTF-8 sequence at `i` (1–4), or 0 when the bytes there are invalid.
    @inline(__always)
    static func utf8SequenceLength(_ s: UnsafeBufferPointer<UInt8>, at i: Int) -> Int {
        let n = s.count
        let b0 = s[i]
        if b0 < 0x80 { return 1 }
        if b0 >= 0xC2 && b0 <= 0xDF {
            return i + 1 < n && s[i + 1] & 0xC0 == 0x80 ? 2 : 0
        }
        if b0 >= 0xE0 && b0 <= 0xEF {
            guard i + 2 < n else { return 0 }
            let b1 = s[i + 1]
            let b2 = s[i + 2]
            guard b1 & 0xC0 == 0x80, b2 & 0xC0 == 0x80 else { return 0 }
            if b0 == 0xE0 && b1 < 0xA0 { return 0 }  // overlong
            if b0 == 0xED && b1 >= 0xA0 { return 0 }  // surrogate
            return 3
        }
        if b0 >= 0xF0 && b0 <= 0xF4 {
            guard i + 3 < n else { return 0 }
            let b1 = s[i + 1]
            guard b1 & 0xC0 == 0x80, s[i + 2] & 0xC0 == 0x80, s[i + 3] & 0xC0 == 0x80 else { return 0 }
            if b0 == 0xF0 && b1 < 0x90 { return 0 }
            if b0 == 0xF4 && b1 >= 0x90 { return 0 }
            return 4
        }
        return 0
    }

    /// Whether `input[start...]` is valid UTF-8; ASCII runs are checked eight bytes at a
    /// time. Large inputs are checked in two halves on two threads.
    static func isValidUTF8(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
        let n = input.count
        guard n - start >= parallelValidationBytes, ProcessInfo.processInfo.activeProcessorCount > 1 else {
            return isValidUTF8(input, from: start, to: n)
        }
        // Cut where a character starts: a sequence cut short at the end of the first half
        // is invalid in the whole too (the byte after it is not a continuation byte).
        var middle = start + (n - start) / 2
        while middle > start, input[middle] & 0xC0 == 0x80 { middle -= 1 }
        let halves = UnsafeMutableBufferPointer<Bool>.allocate(capacity: 2)
        halves.initialize(repeating: false)
        defer { halves.deinitialize().deallocate() }
        let work = ValidationWork(input: input, results: halves)
        let cut = middle
        DispatchQueue.concurrentPerform(iterations: 2) { half in
            work.results[half] =
                half == 0
                ? isValidUTF8(work.input, from: start, to: cut) : isValidUTF8(work.input, from: cut, to: work.input.count)
        }
        return halves[0] && halves[1]
    }

    /// Inputs at least this large are validated on two threads.
    static let parallelValidationBytes = 4 << 20

    /// What the two threads of ``isValidUTF8(_:from:)`` share.
    // Unchecked sendability is sound: `input` is only read and outlives `concurrentPerform`; each
    // thread writes only its own slot of `results`, read after both have finished.
    private struct ValidationWork: @unchecked Sendable {
        let input: UnsafeBufferPointer<UInt8>
        let results: UnsafeMutableBufferPointer<Bool>
    }

    /// What ``isValidUTF8(_:from:to:)`` says of all of `input`, and whether it is all ASCII.
    enum UTF8Check { case ascii, valid, invalid }

    /// Whether `input` is all ASCII, else valid UTF-8, else neither; ASCII runs are
    /// skipped sixteen bytes at a time.
    static func checkUTF8(_ input: UnsafeBufferPointer<UInt8>) -> UTF8Check {
        guard let base = input.baseAddress else { return .ascii }
        let n = input.count
        var i = asciiRunEnd(UnsafeRawPointer(base), from: 0, to: n)
        while i < n, input[i] < 0x80 { i += 1 }
        if i == n { return .ascii }
        return isValidUTF8(input, from: i, to: n) ? .valid : .invalid
    }

    /// Whether `input[start..<end]` is valid UTF-8 (a sequence may not run past `end`).
    static func isValidUTF8(_ input: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        guard let base = input.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let slice = UnsafeBufferPointer(start: base, count: end)
        var i = start
        while i < end {
            i = asciiRunEnd(raw, from: i, to: end)  // most of a feed's markup
            if i == end { break }
            if i + 8 <= end {
                let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) & 0x8080_8080_8080_8080
                if high == 0 {
                    i += 8
                    continue
                }
                i += high.trailingZeroBitCount >> 3  // the first non-ASCII byte
            }
            let length = utf8SequenceLength(slice, at: i)
            if length == 0 { return false }
            i += length
        }
        return true
    }

    /// Past the ASCII bytes from `start` on, sixteen at a time: the first of the sixteen
    /// bytes that hold a non-ASCII one, or where fewer than sixteen are left before `end`.
    @inline(__always)
    private static func asciiRunEnd(_ raw: UnsafeRawPointer, from start: Int, to end: Int) -> Int {
        var i = start
        while i + 16 <= end,
            (raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) | raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                & 0x8080_8080_8080_8080 == 0
        {
            i += 16
        }
        return i
    }

    // MARK: - windows-1252

    /// Bytes 0x80–0x9F as windows-1252 maps them; its five holes stay C1 controls, which
    /// are stripped later with the other control characters.
    private static let windows1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D,
        0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x009D, 0x017E, 0x0178,
    ]

    /// The Unicode scalar windows-1252 gives `byte`.
    static func windows1252Scalar(_ byte: UInt8) -> UInt32 {
        if byte >= 0x80 && byte <= 0x9F { return UInt32(windows1252High[Int(byte - 0x80)]) }
        return UInt32(byte)
    }

    @inline(__always)
    static func appendWindows1252(_ byte: UInt8, to out: inout [UInt8]) {
        if byte < 0x80 {
            out.append(byte)
            return
        }
        appendScalar(windows1252Scalar(byte), to: &out)
    }

    static func appendScalar(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(scalar))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | (scalar >> 6)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | (scalar >> 12)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            out.append(UInt8(0xF0 | (scalar >> 18)))
            out.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            out.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            out.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }

    static func windows1252ToUTF8(_ input: UnsafeBufferPointer<UInt8>, from start: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((input.count - start) + (input.count - start) / 8)
        for index in start..<input.count { appendWindows1252(input[index], to: &out) }
        return out
    }

    // MARK: - Mac code pages glibc's iconv lacks

    /// Bytes 0x80–0xFF of the Mac code pages that glibc's iconv does not know (or knows
    /// in an older form: its MAC-IS is not Apple's Mac Icelandic), from Apple's mapping
    /// tables (as Python's codecs carry them).
    static let macTables: [String: [UInt16]] = [
        "MACGREEK": [
            0x00C4, 0x00B9, 0x00B2, 0x00C9, 0x00B3, 0x00D6, 0x00DC, 0x0385, 0x00E0, 0x00E2, 0x00E4, 0x0384,
            0x00A8, 0x00E7, 0x00E9, 0x00E8, 0x00EA, 0x00EB, 0x00A3, 0x2122, 0x00EE, 0x00EF, 0x2022, 0x00BD,
            0x2030, 0x00F4, 0x00F6, 0x00A6, 0x20AC, 0x00F9, 0x00FB, 0x00FC, 0x2020, 0x0393, 0x0394, 0x0398,
            0x039B, 0x039E, 0x03A0, 0x00DF, 0x00AE, 0x00A9, 0x03A3, 0x03AA, 0x00A7, 0x2260, 0x00B0, 0x00B7,
            0x0391, 0x00B1, 0x2264, 0x2265, 0x00A5, 0x0392, 0x0395, 0x0396, 0x0397, 0x0399, 0x039A, 0x039C,
            0x03A6, 0x03AB, 0x03A8, 0x03A9, 0x03AC, 0x039D, 0x00AC, 0x039F, 0x03A1, 0x2248, 0x03A4, 0x00AB,
            0x00BB, 0x2026, 0x00A0, 0x03A5, 0x03A7, 0x0386, 0x0388, 0x0153, 0x2013, 0x2015, 0x201C, 0x201D,
            0x2018, 0x2019, 0x00F7, 0x0389, 0x038A, 0x038C, 0x038E, 0x03AD, 0x03AE, 0x03AF, 0x03CC, 0x038F,
            0x03CD, 0x03B1, 0x03B2, 0x03C8, 0x03B4, 0x03B5, 0x03C6, 0x03B3, 0x03B7, 0x03B9, 0x03BE, 0x03BA,
            0x03BB, 0x03BC, 0x03BD, 0x03BF, 0x03C0, 0x03CE, 0x03C1, 0x03C3, 0x03C4, 0x03B8, 0x03C9, 0x03C2,
            0x03C7, 0x03C5, 0x03B6, 0x03CA, 0x03CB, 0x0390, 0x03B0, 0x00AD,
        ],
        "MACTURKISH": [
            0x00C4, 0x00C5, 0x00C7, 0x00C9, 0x00D1, 0x00D6, 0x00DC, 0x00E1, 0x00E0, 0x00E2, 0x00E4, 0x00E3,
            0x00E5, 0x00E7, 0x00E9, 0x00E8, 0x00EA, 0x00EB, 0x00ED, 0x00EC, 0x00EE, 0x00EF, 0x00F1, 0x00F3,
            0x00F2, 0x00F4, 0x00F6, 0x00F5, 0x00FA, 0x00F9, 0x00FB, 0x00FC, 0x2020, 0x00B0, 0x00A2, 0x00A3,
            0x00A7, 0x2022, 0x00B6, 0x00DF, 0x00AE, 0x00A9, 0x2122, 0x00B4, 0x00A8, 0x2260, 0x00C6, 0x00D8,
            0x221E, 0x00B1, 0x2264, 0x2265, 0x00A5, 0x00B5, 0x2202, 0x2211, 0x220F, 0x03C0, 0x222B, 0x00AA,
            0x00BA, 0x03A9, 0x00E6, 0x00F8, 0x00BF, 0x00A1, 0x00AC, 0x221A, 0x0192, 0x2248, 0x2206, 0x00AB,
            0x00BB, 0x2026, 0x00A0, 0x00C0, 0x00C3, 0x00D5, 0x0152, 0x0153, 0x2013, 0x2014, 0x201C, 0x201D,
            0x2018, 0x2019, 0x00F7, 0x25CA, 0x00FF, 0x0178, 0x011E, 0x011F, 0x0130, 0x0131, 0x015E, 0x015F,
            0x2021, 0x00B7, 0x201A, 0x201E, 0x2030, 0x00C2, 0x00CA, 0x00C1, 0x00CB, 0x00C8, 0x00CD, 0x00CE,
            0x00CF, 0x00CC, 0x00D3, 0x00D4, 0xF8FF, 0x00D2, 0x00DA, 0x00DB, 0x00D9, 0xF8A0, 0x02C6, 0x02DC,
            0x00AF, 0x02D8, 0x02D9, 0x02DA, 0x00B8, 0x02DD, 0x02DB, 0x02C7,
        ],
        "MACICELAND": [
            0x00C4, 0x00C5, 0x00C7, 0x00C9, 0x00D1, 0x00D6, 0x00DC, 0x00E1, 0x00E0, 0x00E2, 0x00E4, 0x00E3,
            0x00E5, 0x00E7, 0x00E9, 0x00E8, 0x00EA, 0x00EB, 0x00ED, 0x00EC, 0x00EE, 0x00EF, 0x00F1, 0x00F3,
            0x00F2, 0x00F4, 0x00F6, 0x00F5, 0x00FA, 0x00F9, 0x00FB, 0x00FC, 0x00DD, 0x00B0, 0x00A2, 0x00A3,
            0x00A7, 0x2022, 0x00B6, 0x00DF, 0x00AE, 0x00A9, 0x2122, 0x00B4, 0x00A8, 0x2260, 0x00C6, 0x00D8,
            0x221E, 0x00B1, 0x2264, 0x2265, 0x00A5, 0x00B5, 0x2202, 0x2211, 0x220F, 0x03C0, 0x222B, 0x00AA,
            0x00BA, 0x03A9, 0x00E6, 0x00F8, 0x00BF, 0x00A1, 0x00AC, 0x221A, 0x0192, 0x2248, 0x2206, 0x00AB,
            0x00BB, 0x2026, 0x00A0, 0x00C0, 0x00C3, 0x00D5, 0x0152, 0x0153, 0x2013, 0x2014, 0x201C, 0x201D,
            0x2018, 0x2019, 0x00F7, 0x25CA, 0x00FF, 0x0178, 0x2044, 0x20AC, 0x00D0, 0x00F0, 0x00DE, 0x00FE,
            0x00FD, 0x00B7, 0x201A, 0x201E, 0x2030, 0x00C2, 0x00CA, 0x00C1, 0x00CB, 0x00C8, 0x00CD, 0x00CE,
            0x00CF, 0x00CC, 0x00D3, 0x00D4, 0xF8FF, 0x00D2, 0x00DA, 0x00DB, 0x00D9, 0x0131, 0x02C6, 0x02DC,
            0x00AF, 0x02D8, 0x02D9, 0x02DA, 0x00B8, 0x02DD, 0x02DB, 0x02C7,
        ],
    ]

    /// `input[start...]` through a table of the high half of a single-byte code page.
    static func singleByteToUTF8(_ input: UnsafeBufferPointer<UInt8>, from start: Int, high: [UInt16]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity((input.count - start) + (input.count - start) / 4)
        for index in start..<input.count {
            let byte = input[index]
            if byte < 0x80 {
                out.append(byte)
            } else {
                appendScalar(UInt32(high[Int(byte - 0x80)]), to: &out)
            }
        }
        return out
    }

    // MARK: - iconv

    /// `input[start...]` converted from `encoding` to UTF-8 with iconv; invalid sequences
    /// become U+FFFD. `bytes == nil` in the result when iconv does not know the encoding.
    static func transcode(_ input: UnsafeBufferPointer<UInt8>, from start: Int, encoding: String) -> Decoded {
        let descriptor = iconv_open("UTF-8", encoding)
        if descriptor == iconv_t(bitPattern: -1) {
            return Decoded(bytes: nil, offset: start, encoding: encoding)
        }
        defer { iconv_close(descriptor) }
        var out = [UInt8](repeating: 0, count: max(64, (input.count - start) * 2 + 16))
        var written = 0
        var inIndex = start
        while inIndex < input.count {
            var inLeft = input.count - inIndex
            var outLeft = out.count - written
            let result: Int = out.withUnsafeMutableBufferPointer { outBuffer in
                var inPointer =
                    UnsafeMutableRawPointer(mutating: input.baseAddress! + inIndex)
                    .assumingMemoryBound(to: CChar.self) as UnsafeMutablePointer<CChar>?
                var outPointer =
                    UnsafeMutableRawPointer(outBuffer.baseAddress! + written)
                    .assumingMemoryBound(to: CChar.self) as UnsafeMutablePointer<CChar>?
                let before = inLeft
                let outBefore = outLeft
                let r = iconv(descriptor, &inPointer, &inLeft, &outPointer, &outLeft)
                inIndex += before - inLeft
                written += outBefore - outLeft
                return r
            }
            if result == -1 {
                let error = errno
                if error == E2BIG {
                    out.append(contentsOf: [UInt8](repeating: 0, count: out.count))
                } else {
                    // EILSEQ or EINVAL: skip one byte, write U+FFFD
                    if out.count - written < 3 { out.append(contentsOf: [UInt8](repeating: 0, count: 64)) }
                    out[written] = 0xEF
                    out[written + 1] = 0xBF
                    out[written + 2] = 0xBD
                    written += 3
                    inIndex += 1
                    _ = iconv(descriptor, nil, nil, nil, nil)
                }
            }
        }
        out.removeLast(out.count - written)
        return Decoded(bytes: out, offset: 0, encoding: encoding)
    }
}

extension String {
    fileprivate func trimmingSpacesAndQuotes() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\"" || first == "'" { scalars.removeFirst() }
        while let last = scalars.last, last == " " || last == "\"" || last == "'" { scalars.removeLast() }
        return String(scalars)
    }
}
