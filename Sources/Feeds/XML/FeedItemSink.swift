/// Receives each item as soon as ``FeedXMLHandler`` has finished it, in document order
/// (set as the handler's `itemSink`; without one the handler collects its items).
///
/// ```swift
/// final class Counter: FeedItemSink {
///     var count = 0
///     var wantsEnclosuresAndCategories: Bool { false }
///     var takesContentAsUTF8: Bool { true }
///     func receive(_ item: ParsedItem, contentUTF8: UnsafeBufferPointer<UInt8>?, from handler: FeedXMLHandler) {
///         count += 1
///     }
/// }
/// ```
protocol FeedItemSink: AnyObject {
    /// `handler`: the parser's state so far (its ``FeedXMLHandler/settledHead()``, say).
    ///
    /// `contentUTF8`: when the sink ``takesContentAsUTF8``, the item's content as the UTF-8
    /// bytes captured from the document (possibly not valid UTF-8: read them as
    /// `String(decoding:as:)` would), with `item.content` left `nil`; the bytes are valid
    /// only during the call.
    func receive(_ item: ParsedItem, contentUTF8: UnsafeBufferPointer<UInt8>?, from handler: FeedXMLHandler)
    /// Whether the sink takes an item's content as UTF-8 bytes rather than a `String`: a
    /// sink that only copies the content out (an encoder) saves making a string of every
    /// body, which costs a UTF-8 validation pass (`zeader-bench parse`).
    var takesContentAsUTF8: Bool { get }
    /// Whether items need their ``ParsedItem/enclosures`` and ``ParsedItem/categories``
    /// (when not, the handler leaves them empty and makes no strings for them).
    var wantsEnclosuresAndCategories: Bool { get }
}
