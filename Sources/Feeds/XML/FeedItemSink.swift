/// Receives each item as soon as ``FeedXMLHandler`` has finished it, in document order
/// (set as the handler's `itemSink`; without one the handler collects its items).
///
/// ```swift
/// final class Counter: FeedItemSink {
///     var count = 0
///     var wantsEnclosuresAndCategories: Bool { false }
///     func receive(_ item: ParsedItem, from handler: FeedXMLHandler) { count += 1 }
/// }
/// ```
protocol FeedItemSink: AnyObject {
    /// `handler`: the parser's state so far (its ``FeedXMLHandler/settledHead()``, say).
    func receive(_ item: ParsedItem, from handler: FeedXMLHandler)
    /// Whether items need their ``ParsedItem/enclosures`` and ``ParsedItem/categories``
    /// (when not, the handler leaves them empty and makes no strings for them).
    var wantsEnclosuresAndCategories: Bool { get }
}
