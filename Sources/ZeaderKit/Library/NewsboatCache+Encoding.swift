/// Text newsboat stored in the wrong encoding: a feed that declares ISO-8859-1 (or
/// Windows-1252) but sends UTF-8 is read by newsboat byte by byte, so "Café" is stored as
/// "CafÃ©". Zeader's parser reads such a feed correctly; the import undoes the mistake so
/// the imported items read right and match what a refresh parses.
extension NewsboatCache {
    /// `text` with newsboat's misreading undone: when every character is one Latin-1 or
    /// Windows-1252 byte and those bytes are valid UTF-8 with at least one multi-byte
    /// character, the UTF-8 reading; else `text` unchanged. Real Latin-1 text is almost
    /// never valid UTF-8 (an accented letter is followed by another letter, not by a
    /// continuation byte), so it is left alone.
    ///
    /// ```swift
    /// NewsboatCache.repairedText("CafÃ© crÃ¨me")   // "Café crème"
    /// NewsboatCache.repairedText("Garçon")          // "Garçon"
    /// ```
    static func repairedText(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var sawHighByte = false
        for scalar in text.unicodeScalars {
            let byte: UInt8
            if scalar.value <= 0xFF {
                byte = UInt8(scalar.value)
            } else if let windows = windows1252Bytes[scalar.value] {
                byte = windows
            } else {
                return text  // a character neither encoding has: not a misreading
            }
            if byte >= 0x80 { sawHighByte = true }
            bytes.append(byte)
        }
        guard sawHighByte, let decoded = String(validating: bytes, as: UTF8.self) else { return text }
        return decoded
    }

    /// The characters Windows-1252 puts at 0x80–0x9F (where Latin-1 has control
    /// characters), by code point: newsboat may have read a feed's bytes either way.
    private static let windows1252Bytes: [UInt32: UInt8] = [
        0x20AC: 0x80, 0x201A: 0x82, 0x0192: 0x83, 0x201E: 0x84, 0x2026: 0x85, 0x2020: 0x86, 0x2021: 0x87,
        0x02C6: 0x88, 0x2030: 0x89, 0x0160: 0x8A, 0x2039: 0x8B, 0x0152: 0x8C, 0x017D: 0x8E, 0x2018: 0x91,
        0x2019: 0x92, 0x201C: 0x93, 0x201D: 0x94, 0x2022: 0x95, 0x2013: 0x96, 0x2014: 0x97, 0x02DC: 0x98,
        0x2122: 0x99, 0x0161: 0x9A, 0x203A: 0x9B, 0x0153: 0x9C, 0x017E: 0x9E, 0x0178: 0x9F,
    ]
}
