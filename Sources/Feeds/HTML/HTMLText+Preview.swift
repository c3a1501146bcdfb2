import Foundation

/// Previews: the short plain-text summary of an item's HTML (or plain) body, made from a
/// bounded prefix of the HTML so a huge body costs no more than a small one.
///
/// ```swift
/// let html = Array("<p>Hello <b>world</b></p>".utf8)
/// let summary = html.withUnsafeBufferPointer { HTMLText.summary(fromHTML: $0) }  // .utf8("Hello world")
/// ```
extension HTMLText {
    /// Characters kept in an item's plain-text summary (a preview: the full text is in
    /// `content`).
    static let summaryLimit = 300
    /// Bytes of HTML first turned into text for the summary (then 8 times more, then all,
    /// while that gives fewer than `summaryLimit` characters): bounds the work per item.
    static let summaryHTMLBytes = 768

    /// An item's summary, as UTF-8 bytes when it could be made without strings.
    enum Summary: Equatable {
        case utf8([UInt8])
        case string(String)
    }

    /// The summary of an HTML body: ``summary(fromText:)`` of ``plainTextPreview(_:)``,
    /// made from UTF-8 bytes when the plain text comes out clean (nearly always); nil
    /// when it is empty.
    static func summary(fromHTML html: UnsafeBufferPointer<UInt8>) -> Summary? {
        guard let plain = plainTextPreviewUTF8(html) else {
            return summary(fromText: plainTextPreview(html)).map(Summary.string)
        }
        var bytes = FeedText.preview(utf8: plain, limit: summaryLimit)
        FeedText.stripControlCharacters(&bytes)  // as `FeedText.sanitized`
        return bytes.isEmpty ? nil : .utf8(bytes)
    }

    /// The summary of plain text: its preview, without control characters; nil when empty.
    static func summary(fromText plain: String) -> String? {
        let sanitized = FeedText.sanitized(FeedText.preview(plain, limit: summaryLimit))
        return sanitized.isEmpty ? nil : sanitized
    }

    /// ``plainTextPreview(_:)`` as UTF-8 bytes, when ``HTMLText/fastPlainTextUTF8(_:scalarLimit:)``
    /// finds them, but possibly only its first `summaryLimit + 1` characters (all that
    /// its preview reads); nil otherwise.
    static func plainTextPreviewUTF8(_ html: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var budget = summaryHTMLBytes
        while true {
            var end = min(budget, html.count)
            while end > 0, end < html.count, UTF8.isContinuation(html[end]) { end -= 1 }
            // Only the first `summaryLimit + 1` characters matter to the preview made of it.
            guard let plain = HTMLText.fastPlainTextUTF8(Self.copy(html, count: end), scalarLimit: summaryLimit)
            else { return nil }
            if end == html.count || plain.withUnsafeBufferPointer({ FeedText.scalarCount(utf8: $0, atLeast: summaryLimit) }) {
                return plain
            }
            budget *= 8
        }
    }

    /// The first `count` bytes of `bytes`, copied in one `memcpy` (building the array from
    /// the buffer as a sequence copied it byte by byte).
    private static func copy(_ bytes: UnsafeBufferPointer<UInt8>, count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0, let source = bytes.baseAddress { buffer.baseAddress!.initialize(from: source, count: count) }
            initialized = count
        }
    }

    static func plainTextPreview(_ html: UnsafeBufferPointer<UInt8>) -> String {
        var budget = summaryHTMLBytes
        while true {
            var end = min(budget, html.count)
            while end > 0, end < html.count, UTF8.isContinuation(html[end]) { end -= 1 }
            // The bytes come from libxml2 (valid UTF-8) and `end` is on a character boundary.
            let plain = HTMLText.fastPlainText(utf8: Self.copy(html, count: end))
            if end == html.count || FeedText.scalarCount(plain, atLeast: summaryLimit) { return plain }
            budget *= 8
        }
    }
}
