// PLACEHOLDER (branch feeds-xml): the real HTMLText, with wrapping and numbered links, is
// written on branch feeds-text and replaces this file when that branch is merged. Until
// then the feed parser needs `plainText` for item summaries; this one only flattens
// markup to text (see FeedMarkup).

/// HTML to plain text (placeholder until the feeds-text branch lands).
///
/// ```swift
/// HTMLText.plainText("<p>Caf&eacute;</p>")   // "Café"
/// ```
enum HTMLText {
    /// `html` without tags, with entities decoded and white space collapsed.
    static func plainText(_ html: String) -> String { FeedMarkup.plainText(html) }
}
