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
    /// `bind-key KEY ACTION VIEW` and `unbind-key KEY VIEW`: a view's own bindings, looked up
    /// before the general ones; nil unbinds the key in that view only.
    private var viewActions: [KeyView: [Key: Action?]] = [:]
    /// newsboat's `bind KEY CONTEXT OP; OP…`: keys that run several steps, in a view (nil:
    /// every view). A key has steps or an action in a view, never both.
    private var stepBindings: [KeyView?: [Key: [MacroStep]]] = [:]

    public init(_ bindings: [Key: Action]) { actions = bindings }

    /// The default keys: newsboat's where newsboat has the action (docs/ARCHITECTURE.md).
    public static let `default`: KeyMap = {
        var map = defaultGeneral
        // newsboat's j and k in an item list go to the next and previous feed; elsewhere
        // newsboat gives them nothing to do, and they move the cursor.
        map.bind(.character("j"), to: .nextFeed, in: .articlelist)
        map.bind(.character("k"), to: .prevFeed, in: .articlelist)
        map.bindPodboatKeys()
        return map
    }()

    /// The default keys of every view.
    private static let defaultGeneral = KeyMap(
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
            .character("z"): .undo, .character("Z"): .redo,
            .character("?"): .help, .control("l"): .redraw,
            .character("e"): .enqueue, .character("w"): .fullArticle, .character("T"): .editTags,
            .character("i"): .renameFeed,
        ].merging(KeyMap.newsboatNavigationKeys) { old, _ in old }.merging(KeyMap.newsboatCommandKeys) { old, _ in old }
            .merging(KeyMap.newsboatPositionKeys) { old, _ in old })

    public func action(for key: Key) -> Action? { actions[key] }

    /// The action of `key` in `view`: the view's own binding (or its unbinding), else the
    /// general one.
    ///
    /// ```swift
    /// map.bind(.character("j"), to: .next, in: .article)
    /// map.action(for: .character("j"), in: .article)    // .next
    /// map.action(for: .character("j"), in: .feedlist)   // .down
    /// ```
    public func action(for key: Key, in view: KeyView?) -> Action? {
        var view = view
        while let current = view {
            if let own = viewActions[current]?[key] { return own }
            view = current.inherits
        }
        return actions[key]
    }

    public mutating func bind(_ key: Key, to action: Action) {
        actions[key] = action
        stepBindings[nil]?[key] = nil
    }

    /// Binds `key` in `view` only (nil: in every view).
    public mutating func bind(_ key: Key, to action: Action, in view: KeyView?) {
        guard let view else { return bind(key, to: action) }
        viewActions[view, default: [:]][key] = .some(action)
        stepBindings[view]?[key] = nil
    }

    /// Binds `key` in `view` (nil: every view) to steps run in order, as a macro's.
    ///
    /// ```swift
    /// map.bind(.character("o"), toSteps: [.action(.openInBrowser), .action(.down)], in: .articlelist)
    /// map.steps(for: .character("o"), in: .articlelist)   // [.action(.openInBrowser), .action(.down)]
    /// ```
    public mutating func bind(_ key: Key, toSteps steps: [MacroStep], in view: KeyView?) {
        if let view { viewActions[view, default: [:]][key] = .some(nil) } else { actions[key] = nil }
        stepBindings[view, default: [:]][key] = steps
    }

    /// The steps `key` runs in `view` (``bind(_:toSteps:in:)``), nil when it runs an action
    /// or nothing there.
    public func steps(for key: Key, in view: KeyView?) -> [MacroStep]? {
        var view = view
        while let current = view {
            if let steps = stepBindings[current]?[key] { return steps }
            if viewActions[current]?[key] != nil { return nil }
            view = current.inherits
        }
        return stepBindings[nil]?[key]
    }

    public mutating func unbind(_ key: Key) {
        actions[key] = nil
        for view in viewActions.keys { viewActions[view]?[key] = nil }
        for view in stepBindings.keys { stepBindings[view]?[key] = nil }
    }

    /// Unbinds `key` in `view` only (nil: in every view).
    public mutating func unbind(_ key: Key, in view: KeyView?) {
        guard let view else { return unbind(key) }
        viewActions[view, default: [:]][key] = .some(nil)
        stepBindings[view]?[key] = nil
    }

    /// Unbinds every key (`unbind-key -a`), so that the config's own `bind-key` lines are all.
    ///
    /// ```swift
    /// var map = KeyMap.default
    /// map.unbindAll()
    /// map.action(for: .character("q"))   // nil
    /// ```
    public mutating func unbindAll() {
        actions = [:]
        viewActions = [:]
        stepBindings = [:]
    }

    /// The keys bound to `action` (in `view`, when given), in a stable order (single characters first).
    public func keys(for action: Action, in view: KeyView? = nil) -> [Key] {
        var bound = actions
        var chain: [KeyView] = []
        var next = view
        while let current = next {
            chain.insert(current, at: 0)
            next = current.inherits
        }
        for view in chain {
            for (key, action) in viewActions[view] ?? [:] { bound[key] = action }
        }
        return bound.compactMap { $0.value == action ? $0.key : nil }.sorted { a, b in
            let (na, nb) = (a.name, b.name)
            return na.count != nb.count ? na.count < nb.count : na < nb
        }
    }
}

/// newsboat's contexts of `bind-key KEY ACTION CONTEXT`: the screen a binding holds in.
///
/// ```swift
/// KeyView(rawValue: "articlelist")   // .articlelist
/// ```
public enum KeyView: String, CaseIterable, Sendable {
    case feedlist, articlelist, article, help, tagselection, filterselection, urlview, dialogs, searchresultslist
    /// podboat's: the podcast queue. newsboat's file and folder browsers: Zeader has no such screen.
    case podboat, filebrowser, dirbrowser

    /// The view whose bindings hold here unless this one binds the key: search results are an
    /// item list.
    public var inherits: KeyView? { self == .searchresultslist ? .articlelist : nil }
}
