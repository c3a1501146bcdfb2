import Foundation

/// The entry point for reading a feed: detects JSON Feed or XML (RSS 0.9x/1.0/2.0,
/// Atom 0.3/1.0) and returns plain values.
///
/// Safe on hostile input: the size is capped, the encoding is decoded before libxml2 sees
/// the bytes, DTDs are never read, DOCTYPE entities are expanded within a byte budget, and
/// libxml2 runs with no network and in recover mode.
///
/// ```swift
/// let bytes = try Data(contentsOf: URL(fileURLWithPath: "feed.xml"))
/// let feed = try FeedParser.parse(data: bytes, url: URL(string: "https://example.org/feed.xml"))
/// ```
public enum FeedParser {
    /// Bounds applied to every parse.
    ///
    /// ```swift
    /// var limits = FeedParser.Limits()
    /// limits.maxInputBytes = 8 << 20
    /// ```
    public struct Limits: Sendable, Equatable {
        /// Larger inputs are refused before any parsing (default 128 MiB).
        public var maxInputBytes: Int = 128 << 20
        /// Total bytes that DOCTYPE-declared entities may expand to (default 1 MiB).
        public var maxEntityExpansionBytes: Int = 1 << 20
        /// XML documents at least this large are cut in two at an item boundary and the
        /// halves parsed on two cores (default 4 MiB; `Int.max` turns it off). The result
        /// is the same as a parse in one piece.
        public var parallelParsingThreshold: Int = 4 << 20

        /// The default limits.
        public init() {}
    }

    /// Parses `data` as a feed.
    ///
    /// - Parameters:
    ///   - url: where the feed came from; relative links are resolved against it (after
    ///     any `xml:base`), and errors name it.
    ///   - contentTypeCharset: the `charset` parameter of the HTTP `Content-Type`, if any.
    ///
    /// ```swift
    /// let feed = try FeedParser.parse(data: body, url: feedURL, contentTypeCharset: "iso-8859-1")
    /// ```
    public static func parse(
        data: Data, url: URL? = nil, contentTypeCharset: String? = nil, limits: Limits = Limits()
    ) throws(FeedParseError) -> ParsedFeed {
        guard data.count <= limits.maxInputBytes else {
            throw FeedParseError(.inputTooLarge(size: data.count, limit: limits.maxInputBytes), url: url)
        }
        if looksLikeJSON(data) {
            do {
                return try JSONFeedParser.parse(data: data, baseURL: url)
            } catch let error as FeedParseError {
                throw error
            } catch {
                throw FeedParseError(.invalidJSON(String(describing: error)), url: url)
            }
        }
        let result: Result<XMLResult, FeedParseError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return Result { () throws(FeedParseError) in
                try parseXML(bytes, url: url, charset: contentTypeCharset, limits: limits, itemsAsJSON: false)
            }
        }
        return try result.get().feed
    }

    /// Parses `data` as a feed and hands the JSON of ``ParsedFeed/contractJSON()`` to
    /// `sink`, in pieces: the same bytes as `try parse(...).writeContractJSON(sink)`, but
    /// the items of an XML feed go straight from the parser to their JSON (their content
    /// never becomes a `String`, and no ``ParsedItem`` is kept). Nothing is written when
    /// it throws.
    ///
    /// ```swift
    /// var json = Data()
    /// try FeedParser.writeContractJSON(data: bytes, url: feedURL) { chunk in json.append(contentsOf: chunk) }
    /// ```
    /// Returns the feed's ``ParsedFeed/problems`` (a document cut off, say), which the
    /// JSON does not carry.
    @discardableResult
    public static func writeContractJSON(
        data: Data, url: URL? = nil, contentTypeCharset: String? = nil, limits: Limits = Limits(),
        to sink: (UnsafeRawBufferPointer) -> Void
    ) throws(FeedParseError) -> [String] {
        guard data.count <= limits.maxInputBytes, !looksLikeJSON(data) else {
            let feed = try parse(data: data, url: url, contentTypeCharset: contentTypeCharset, limits: limits)
            feed.writeContractJSON(sink)
            return feed.problems
        }
        return try withoutActuallyEscaping(sink) { (sink) throws(FeedParseError) -> [String] in
            // A large feed's first half may be written while the second is being parsed.
            let stream = ContractJSONStream(sink: sink)
            let result: Result<XMLResult, FeedParseError> = data.withUnsafeBytes { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                return Result { () throws(FeedParseError) in
                    try parseXML(bytes, url: url, charset: contentTypeCharset, limits: limits, itemsAsJSON: true, stream: stream)
                }
            }
            let parsed = try result.get()
            if !stream.headWritten { stream.write(head: parsed.feed.contractJSONHead()) }
            for var piece in parsed.itemsJSON { stream.write(items: &piece) }
            ParsedFeed.contractJSONTail.withUnsafeBytes { sink($0) }
            return parsed.feed.problems
        }
    }

    /// A parsed XML feed. With `itemsAsJSON`, `feed.items` is empty and the items are in
    /// `itemsJSON`, in document order, each as a comma then its JSON object.
    struct XMLResult {
        var feed: ParsedFeed
        var itemsJSON: [[UInt8]] = []
        /// libxml2 met a character XML forbids: the document must be parsed again without
        /// them (see ``parseWithoutForbiddenCharacters(_:baseURL:itemsAsJSON:stream:)``).
        var sawInvalidCharacter = false
    }

    /// Where ``writeContractJSON(data:url:contentTypeCharset:limits:to:)`` writes: its
    /// sink, and how far the writing has got. Used on the calling thread only.
    final class ContractJSONStream {
        let sink: (UnsafeRawBufferPointer) -> Void
        private(set) var headWritten = false
        private var itemWritten = false
        /// How many items have been written (as counted by the writers).
        private(set) var itemsWritten = 0

        init(sink: @escaping (UnsafeRawBufferPointer) -> Void) { self.sink = sink }

        func write(head: [UInt8]) {
            head.withUnsafeBytes { sink($0) }
            headWritten = true
        }

        /// Writes items (each preceded by a comma; the very first one's is left out) and
        /// empties `items`, keeping its capacity.
        func write(items: inout [UInt8], count: Int = 0) {
            guard !items.isEmpty else { return }
            itemsWritten += count
            items.withUnsafeBytes { sink(itemWritten ? $0 : UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
            itemWritten = true
            items.removeAll(keepingCapacity: true)
        }
    }

    /// Parses `document` again, in one piece, with the characters XML forbids (control
    /// characters; see ``FeedXMLRepair/removeForbiddenCharacters(_:)``) taken out, after
    /// libxml2 met one: its push parser gives up on the rest of a CDATA section holding
    /// one, and with it on every later item. Items already written to `stream` (all from
    /// before the first such character, so the same in both parses) are not reported again.
    static func parseWithoutForbiddenCharacters(
        _ document: UnsafeBufferPointer<UInt8>, baseURL: String?, itemsAsJSON: Bool, stream: ContractJSONStream?
    ) -> WholeParse {
        var cleaned = Array(document)
        let removed = FeedXMLRepair.removeForbiddenCharacters(&cleaned)
        let writer =
            itemsAsJSON
            ? ContractJSONItemWriter(stream: nil, itemsToSkip: stream?.itemsWritten ?? 0, expectedBytes: cleaned.count) : nil
        let handler = cleaned.withUnsafeBufferPointer {
            FeedXMLParser.run([$0], baseURL: baseURL, truncated: false, sink: writer)
        }
        handler.noteWarning("\(removed) control character\(removed == 1 ? "" : "s") removed")
        return WholeParse(handler: handler, writer: writer)
    }

    /// A document parsed in one piece: its handler, and with items as JSON, their writer.
    struct WholeParse {
        let handler: FeedXMLHandler
        let writer: ContractJSONItemWriter?
    }

    /// Whether the first significant byte (after a UTF-8 BOM and white space) is `{`.
    static func looksLikeJSON(_ data: Data) -> Bool {
        var index = data.startIndex
        if data.count >= 3, data[index] == 0xEF, data[index + 1] == 0xBB, data[index + 2] == 0xBF { index += 3 }
        while index < data.endIndex, FeedText.isXMLSpace(data[index]) { index += 1 }
        return index < data.endIndex && data[index] == UInt8(ascii: "{")
    }

    static func parseXML(
        _ input: UnsafeBufferPointer<UInt8>, url: URL?, charset: String?, limits: Limits, itemsAsJSON: Bool,
        stream: ContractJSONStream? = nil
    ) throws(FeedParseError) -> XMLResult {
        guard input.contains(where: { !FeedText.isXMLSpace($0) }) else { throw FeedParseError(.empty, url: url) }
        let decoded = FeedXMLEncoding.decode(input, charsetHint: charset)
        if let bytes = decoded.bytes {
            return try bytes.withUnsafeBufferPointer { (buffer) throws(FeedParseError) -> XMLResult in
                try parseUTF8(buffer, url: url, limits: limits, itemsAsJSON: itemsAsJSON, stream: stream)
            }
        }
        return try parseUTF8(
            UnsafeBufferPointer(rebasing: input[decoded.offset...]), url: url, limits: limits, itemsAsJSON: itemsAsJSON,
            stream: stream)
    }

    private static func parseUTF8(
        _ utf8: UnsafeBufferPointer<UInt8>, url: URL?, limits: Limits, itemsAsJSON: Bool, stream: ContractJSONStream?
    ) throws(FeedParseError) -> XMLResult {
        let repaired: FeedXMLRepair.Result
        do {
            repaired = try FeedXMLRepair.repair(utf8, maxEntityExpansion: limits.maxEntityExpansionBytes)
        } catch {
            switch error {
            case .entityExpansion(let name, let limit):
                throw FeedParseError(.entityExpansionLimit(entity: name, limit: limit), url: url)
            case .entityLoop(let name):
                throw FeedParseError(.entityLoop(entity: name), url: url)
            case .entityDepth(let name, let limit):
                throw FeedParseError(.entityDepthLimit(entity: name, limit: limit), url: url)
            }
        }
        let base = url?.absoluteString
        func parse(_ document: UnsafeBufferPointer<UInt8>) -> (XMLResult?, WholeParse?) {
            if document.count >= limits.parallelParsingThreshold,
                let result = parseInHalves(
                    document, baseURL: base, itemsAsJSON: itemsAsJSON, outsideAfterMiddle: repaired.outsideAfterMiddle,
                    stream: stream)
            {
                if result.sawInvalidCharacter {
                    return (
                        nil, parseWithoutForbiddenCharacters(document, baseURL: base, itemsAsJSON: itemsAsJSON, stream: stream)
                    )
                }
                return (result, nil)
            }
            let writer = itemsAsJSON ? ContractJSONItemWriter(stream: nil, expectedBytes: document.count) : nil
            let handler = FeedXMLParser.run(document, baseURL: base, sink: writer)
            if handler.sawInvalidCharacter {
                return (nil, parseWithoutForbiddenCharacters(document, baseURL: base, itemsAsJSON: itemsAsJSON, stream: stream))
            }
            return (nil, WholeParse(handler: handler, writer: writer))
        }
        let parsed: (XMLResult?, WholeParse?)
        if let bytes = repaired.bytes {
            parsed = bytes.withUnsafeBufferPointer { parse($0) }
        } else {
            parsed = parse(UnsafeBufferPointer(rebasing: utf8[repaired.offset...]))
        }
        if let result = parsed.0 { return result }
        guard let whole = parsed.1 else { throw FeedParseError(.notAFeed(rootElement: ""), url: url) }
        let handler = whole.handler
        if let feed = handler.makeFeed() { return XMLResult(feed: feed, itemsJSON: whole.writer.map { [$0.json] } ?? []) }
        if handler.rejectedRoot { throw FeedParseError(.notAFeed(rootElement: handler.rootName ?? ""), url: url) }
        if let first = handler.errors.first { throw FeedParseError(.malformedXML(first), url: url) }
        throw FeedParseError(.notAFeed(rootElement: ""), url: url)
    }
}
