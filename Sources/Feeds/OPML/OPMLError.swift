/// Why a subscription list could not be read. Each case names the file it is about.
///
/// ```swift
/// do { _ = try OPML.parse(data: bytes, source: "feeds.opml") }
/// catch let error as OPMLError { print(error) }  // "feeds.opml:3:7: not well-formed XML: …"
/// ```
public enum OPMLError: Error, Equatable, CustomStringConvertible {
    /// Larger than ``OPML/maximumSize``.
    case tooLarge(source: String, bytes: Int, limit: Int)
    /// The document declares entities (`<!ENTITY`): never needed by OPML, and the way
    /// to external-entity and entity-expansion attacks, so such files are refused.
    case entityDeclarations(source: String)
    /// Not XML that could be read, even in recovery mode; with libxml2's message and
    /// the position (1-based) where it gave up.
    case notXML(source: String, line: Int, column: Int, message: String)
    /// XML whose root element is not `<opml>`.
    case notOPML(source: String, rootElement: String)
    /// An `<opml>` document without a `<body>`.
    case missingBody(source: String)
    /// A `urls` file that is not UTF-8 text.
    case unreadableText(source: String)

    /// One line for a person, starting with the file (and line:column for XML errors).
    ///
    /// ```swift
    /// print(OPMLError.missingBody(source: "a.opml"))  // a.opml: OPML without a <body> element
    /// ```
    public var description: String {
        switch self {
        case .tooLarge(let source, let bytes, let limit):
            "\(source): \(bytes) bytes is more than the \(limit) bytes a subscription list may have"
        case .entityDeclarations(let source):
            "\(source): refused: the document declares XML entities (<!ENTITY>), which OPML never needs"
        case .notXML(let source, let line, let column, let message):
            "\(source):\(line):\(column): not well-formed XML: \(message)"
        case .notOPML(let source, let rootElement):
            "\(source): not OPML: the root element is <\(rootElement)>, not <opml>"
        case .missingBody(let source):
            "\(source): OPML without a <body> element"
        case .unreadableText(let source):
            "\(source): neither OPML nor a UTF-8 text file of feed URLs"
        }
    }
}
