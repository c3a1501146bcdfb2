/// How the cursor moves in a list: newsboat's `scrolloff` (rows kept in view above and below
/// the cursor) and `wrap-scroll` (down on the last row goes to the first, up on the first to
/// the last).
///
/// ```swift
/// let config = try ReaderConfig.parse("scrolloff 5\nwrap-scroll yes", file: "config")
/// config.scrolling   // ListScrolling(scrolloff: 5, wraps: true)
/// ```
public struct ListScrolling: Equatable, Sendable {
    /// `scrolloff`: rows kept visible beyond the cursor; a number larger than half the list
    /// keeps the cursor in the middle.
    public var scrolloff = 0
    /// `wrap-scroll`: one step past either end goes round to the other.
    public var wraps = false

    public init(scrolloff: Int = 0, wraps: Bool = false) {
        self.scrolloff = scrolloff
        self.wraps = wraps
    }

    /// The largest `scrolloff` kept: more than any screen's rows means "the middle".
    static let widestScrolloff = 10_000
}
