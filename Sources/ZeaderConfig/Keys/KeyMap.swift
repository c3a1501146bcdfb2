/// Keys bound to actions: newsboat's keys by default (docs/ARCHITECTURE.md, "Contracts"), changed by the
/// config file's `bind-key KEY ACTION` and `unbind-key KEY` lines.
///
/// ```swift
/// var map = KeyMap.default
/// map.bind(.character("x"), to: .deleteFeed)
/// map.action(for: .character("x"))   // .deleteFeed
/// ```
public struct KeyMap: Equatable, Sendable {
    private var actions: [Key: Action]

    public init(_ bindings: [Key: Action]) { actions = bindings }

    /// The default keys: newsboat's where newsboat has the action (docs/ARCHITECTURE.md).
    public static let `default` = KeyMap(
        [
            .character("j"): .down, .down: .down, .character("k"): .up, .up: .up,
            .pageDown: .pageDown, .character(" "): .pageDown, .pageUp: .pageUp,
            .home: .top, .end: .bottom,
            .enter: .open, .right: .open,
            .character("q"): .quit, .left: .quit, .character("Q"): .hardQuit,
            .character("r"): .refreshFeed, .character("R"): .refreshAll,
            .character("n"): .nextUnread, .character("N"): .toggleRead, .character("*"): .toggleFlag,
            .character("A"): .markFeedRead, .character("C"): .markAllRead,
            .character("/"): .search, .character("o"): .openInBrowser,
            .character("a"): .addFeed, .character("d"): .deleteFeed,
            .character("["): .moveFeedUp, .character("]"): .moveFeedDown,
            .character("u"): .undo, .control("r"): .redo,
            .character("?"): .help, .control("l"): .redraw,
            .character("e"): .enqueue, .character("w"): .fullArticle,
        ].merging(KeyMap.newsboatNavigationKeys) { old, _ in old }.merging(KeyMap.newsboatCommandKeys) { old, _ in old })

    public func action(for key: Key) -> Action? { actions[key] }

    public mutating func bind(_ key: Key, to action: Action) { actions[key] = action }

    public mutating func unbind(_ key: Key) { actions[key] = nil }

    /// Unbinds every key (`unbind-key -a`), so that the config's own `bind-key` lines are all.
    ///
    /// ```swift
    /// var map = KeyMap.default
    /// map.unbindAll()
    /// map.action(for: .character("q"))   // nil
    /// ```
    public mutating func unbindAll() { actions = [:] }

    /// The keys bound to `action`, in a stable order (single characters first).
    public func keys(for action: Action) -> [Key] {
        actions.filter { $0.value == action }.map(\.key).sorted { a, b in
            let (na, nb) = (a.name, b.name)
            return na.count != nb.count ? na.count < nb.count : na < nb
        }
    }
}
