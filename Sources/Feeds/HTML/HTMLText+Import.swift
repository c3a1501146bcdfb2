import Foundation

/// Text from other programs' stores (newsboat's cache) made as the parser makes it from a
/// feed, so an imported item looks like a refreshed one.
///
/// ```swift
/// let summary = HTMLText.summary(ofHTML: "<p>Hello <b>world</b></p>")   // "Hello world"
/// let title = HTMLText.sanitizedLine("a\u{1B}[31mb")                   // "a[31mb"
/// ```
extension HTMLText {
    /// The plain-text summary the parser would store for an item whose body is `html`
    /// (a bounded preview, control characters removed); nil when it has no text.
    ///
    /// ```swift
    /// HTMLText.summary(ofHTML: "<p>Hello <b>world</b></p>")   // "Hello world"
    /// ```
    public static func summary(ofHTML html: String) -> String? {
        var html = html
        let made: Summary? = html.withUTF8 { HTMLText.summary(fromHTML: $0) }
        switch made {
        case .utf8(let bytes)?: return FeedText.string(utf8: bytes)
        case .string(let string)?: return string
        case nil: return nil
        }
    }

    /// `text` with control characters and escape sequences removed, as the parser cleans
    /// a title, author or link.
    ///
    /// ```swift
    /// HTMLText.sanitizedLine("a\u{1B}[31mb")   // "a[31mb"
    /// ```
    public static func sanitizedLine(_ text: String) -> String {
        FeedText.sanitized(text)
    }
}
