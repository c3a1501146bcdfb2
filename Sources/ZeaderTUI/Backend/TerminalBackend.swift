import ZeaderConfig

/// What the reader needs from a terminal: its size, drawing a buffer, reading keys, and
/// handing the terminal to another program for a while. ``CursesBackend`` is the real one
/// (the only code that talks to curses); ``TestBackend`` records frames for tests.
///
/// ```swift
/// backend.draw(ReaderView.render(state, keyMap: .default))
/// for key in backend.readKeys() { … }
/// ```
public protocol TerminalBackend: AnyObject {
    /// Columns and rows.
    var size: (width: Int, height: Int) { get }
    /// Shows `buffer`, writing only the cells that changed since the last frame.
    func draw(_ buffer: ScreenBuffer)
    /// The keys typed so far, without waiting.
    func readKeys() -> [Key]
    /// Re-reads the terminal's size after SIGWINCH.
    func updateSize()
    /// Gives the terminal back to the shell (before running a terminal browser).
    func suspend()
    /// Takes the terminal again and redraws everything at the next ``draw(_:)``.
    func resume()
    /// Restores the terminal for good.
    func end()
    /// Writes `sequence` to the terminal as it is: the bell, a window title (``NotifySettings``).
    func signal(_ sequence: String)
}

/// A backend for tests: a fixed-size screen, keys fed by the test, every frame kept.
///
/// ```swift
/// let backend = TestBackend(width: 80, height: 24)
/// backend.pendingKeys = [.character("j")]
/// ```
public final class TestBackend: TerminalBackend {
    public var size: (width: Int, height: Int)
    public var pendingKeys: [Key] = []
    public private(set) var frames: [ScreenBuffer] = []
    public private(set) var suspendCount = 0
    /// How many times the reader asked for the size again (`redraw`, a resize).
    public private(set) var sizeUpdates = 0
    public private(set) var ended = false

    public init(width: Int, height: Int) { size = (width, height) }

    /// The last frame drawn.
    public var screen: ScreenBuffer? { frames.last }

    public func draw(_ buffer: ScreenBuffer) { frames.append(buffer) }

    public func readKeys() -> [Key] {
        defer { pendingKeys = [] }
        return pendingKeys
    }

    public func updateSize() { sizeUpdates += 1 }
    public func suspend() { suspendCount += 1 }
    public func resume() {}
    public func end() { ended = true }
    /// What ``signal(_:)`` was given, in order.
    public private(set) var signals: [String] = []
    public func signal(_ sequence: String) { signals.append(sequence) }
}
