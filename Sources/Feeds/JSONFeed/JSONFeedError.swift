/// Why some bytes could not be read as a JSON Feed.
///
/// ```swift
/// do { _ = try JSONFeedParser.parse(data: bytes, baseURL: nil) }
/// catch let error as JSONFeedError { print(error) }  // "not JSON: Invalid value around character 0."
/// ```
public enum JSONFeedError: Error, Equatable, CustomStringConvertible {
    /// The bytes are not JSON; `detail` is the JSON reader's message, with its position.
    case notJSON(detail: String)
    /// The JSON's top level is not an object; `found` names what it is ("an array").
    case notAnObject(found: String)
    /// The object is JSON but not a JSON Feed: `version` names no JSON Feed version, or
    /// `items` is missing or not an array. `reason` says which.
    case notAFeed(reason: String)

    /// One line for a person: what was wrong, with the JSON reader's position if any.
    ///
    /// ```swift
    /// print(JSONFeedError.notAnObject(found: "an array"))  // not a JSON Feed: the top level is an array, not an object
    /// ```
    public var description: String {
        switch self {
        case .notJSON(let detail): "not JSON: \(detail)"
        case .notAnObject(let found): "not a JSON Feed: the top level is \(found), not an object"
        case .notAFeed(let reason): "not a JSON Feed: \(reason)"
        }
    }
}
