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
    /// Whether the terminal says it reports the mouse (the `mouse` setting's default).
    var terminalHasMouse: Bool { get }
    /// Whether mouse reports are asked of the terminal (``setMouseReporting(_:)``).
    var mouseReporting: Bool { get }
    /// Asks the terminal for mouse reports (clicks and the wheel), or stops them so that the
    /// terminal's own selection works.
    func setMouseReporting(_ on: Bool)
    /// Draws pictures over the frame just drawn (ArticlePictures.swift; none by default).
    func drawPictures(_ pictures: [PlacedPicture])
    /// Frees the pictures the terminal keeps (kitty's images) on leaving the article.
    func releasePictures()
    /// Writes `sequence` to the terminal as it is: the bell, a window title (``NotifySettings``).
    func signal(_ sequence: String)
}

extension TerminalBackend {
    /// A backend that draws nowhere (a benchmark's) has no mouse.
    public var terminalHasMouse: Bool { false }
    public var mouseReporting: Bool { false }
    public func setMouseReporting(_ on: Bool) {}
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
    /// What the test's terminal says of its mouse.
    public var terminalHasMouse = true
    public private(set) var mouseReporting = false
    /// The pictures of each ``drawPictures(_:)``.
    public private(set) var pictureFrames: [[PlacedPicture]] = []

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
    public func setMouseReporting(_ on: Bool) { mouseReporting = on }
    public func drawPictures(_ pictures: [PlacedPicture]) { pictureFrames.append(pictures) }
    /// What ``signal(_:)`` was given, in order.
    public private(set) var signals: [String] = []
    public func signal(_ sequence: String) { signals.append(sequence) }
}
