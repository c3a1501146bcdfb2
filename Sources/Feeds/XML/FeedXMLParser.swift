import CLibXML2
import Foundation

/// Runs libxml2's SAX2 parser over UTF-8 bytes with the options the hostile-input rules
/// require, and feeds a ``FeedXMLHandler``.
///
/// Options: `XML_PARSE_RECOVER` (keep going past well-formedness errors),
/// `XML_PARSE_NONET` (no network), `XML_PARSE_IGNORE_ENC` (the bytes were already
/// decoded to UTF-8), no `XML_PARSE_NOENT`, no `XML_PARSE_DTDLOAD`, no `XML_PARSE_HUGE`
/// (libxml2's own size limits stay on). The handler has no entity-declaration callbacks
/// and the repair pass removed the DOCTYPE, so no DTD is ever read.
///
/// ```swift
/// let handler = FeedXMLParser.run(utf8Bytes, baseURL: "https://example.org/")
/// ```
enum FeedXMLParser {
    static let options: Int32 = Int32(
        XML_PARSE_RECOVER.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
            | XML_PARSE_NOWARNING.rawValue | XML_PARSE_IGNORE_ENC.rawValue | XML_PARSE_NOCDATA.rawValue)

    /// libxml2's global state, set up once before any thread parses.
    private static let initialized: Void = { xmlInitParser() }()

    static func run(_ bytes: UnsafeBufferPointer<UInt8>, baseURL: String?, sink: (any FeedItemSink)? = nil) -> FeedXMLHandler {
        run([bytes], baseURL: baseURL, truncated: false, sink: sink)
    }

    /// Parses the concatenation of `segments`. With `truncated`, the document is known to
    /// stop early (the first half of a split feed): errors raised by its premature end are
    /// not reported. With `sink`, the handler hands each item to it instead of collecting
    /// them.
    static func run(
        _ segments: [UnsafeBufferPointer<UInt8>], baseURL: String?, truncated: Bool, sink: (any FeedItemSink)? = nil
    ) -> FeedXMLHandler {
        _ = initialized
        let handler = FeedXMLHandler(baseURL: baseURL)
        handler.itemSink = sink
        guard segments.contains(where: { $0.count > 0 }) else { return handler }
        let retained = Unmanaged.passRetained(handler)
        defer { retained.release() }
        var sax = saxHandler
        guard let context = xmlCreatePushParserCtxt(&sax, retained.toOpaque(), nil, 0, nil) else { return handler }
        defer { xmlFreeParserCtxt(context) }
        handler.parserContext = context
        xmlCtxtUseOptions(context, options)
        for segment in segments {
            guard let base = segment.baseAddress else { continue }
            let chars = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
            var offset = 0
            while offset < segment.count && !handler.rejectedRoot {
                let length = min(ParseThroughputTuning.libxmlChunkSize, segment.count - offset)
                xmlParseChunk(context, chars + offset, Int32(length), 0)
                offset += length
            }
        }
        let errorsBeforeEnd = handler.errorCount
        xmlParseChunk(context, nil, 0, 1)
        if truncated {
            handler.dropErrors(after: errorsBeforeEnd)
        } else if let last = segments.last(where: { $0.count > 0 }) {
            handler.noteEndOfInput(tail: UnsafeBufferPointer(rebasing: last[max(0, last.count - 4096)...]))
        }
        handler.finishOpenItem()
        handler.parserContext = nil
        return handler
    }

    private static func handler(_ context: UnsafeMutableRawPointer?) -> FeedXMLHandler {
        Unmanaged<FeedXMLHandler>.fromOpaque(context!).takeUnretainedValue()
    }

    /// The SAX2 callbacks: elements, text and errors only. No entity, DTD or
    /// external-subset callbacks, so nothing can be resolved or loaded.
    // Unsafe nonisolation is sound: `xmlSAXHandler` is a C struct of function pointers (not Sendable
    // to Swift); this one is built once, never mutated, and only copied into parser contexts.
    nonisolated(unsafe) private static let saxHandler: xmlSAXHandler = {
        var sax = xmlSAXHandler()
        sax.initialized = UInt32(XML_SAX2_MAGIC)
        sax.startElementNs = { context, localName, prefix, uri, _, _, attributeCount, _, attributes in
            guard let localName else { return }
            FeedXMLParser.handler(context).startElement(
                localName: localName, prefix: prefix, uri: uri, attributeCount: Int(attributeCount),
                attributes: attributes)
        }
        sax.endElementNs = { context, localName, prefix, _ in
            guard let localName else { return }
            FeedXMLParser.handler(context).endElement(localName: localName, prefix: prefix)
        }
        sax.characters = { context, bytes, count in
            guard let bytes else { return }
            FeedXMLParser.handler(context).characters(bytes, count: Int(count))
        }
        sax.cdataBlock = sax.characters
        sax.ignorableWhitespace = sax.characters
        sax.serror = { context, error in
            guard let context, let error, error.pointee.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
            let message = error.pointee.message.map { String(cString: $0) } ?? "error \(error.pointee.code)"
            FeedXMLParser.handler(context).recordError(
                message.trimmingCharacters(in: .whitespacesAndNewlines), line: Int(error.pointee.line),
                column: Int(error.pointee.int2), code: Int(error.pointee.code))
        }
        return sax
    }()
}
