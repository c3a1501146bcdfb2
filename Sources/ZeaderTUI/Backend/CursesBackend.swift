import CNCurses
import Foundation
import ZeaderConfig

/// The terminal through ncursesw: the only file of Zeader that talks to curses. Draws
/// only the rows that changed; maps style roles to colour pairs and attributes through a
/// ``Palette`` (the config's `color` lines over the built-in colours) unless colours are off
/// (`NO_COLOR`, `color no`, or a terminal without colours), when bold and reverse carry
/// the meaning instead.
///
/// ```swift
/// let backend = CursesBackend(useColor: ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
/// defer { backend.end() }
/// ```
public final class CursesBackend: TerminalBackend {
    public private(set) var size: (width: Int, height: Int)
    private var previous: ScreenBuffer?
    /// The colour pairs and attributes of each role (``Palette``).
    private var palette = Palette(rules: [], hasColor: false)
    private var isEnded = false
    /// Mouse reports in the input, turned into mouse keys (``MouseReportDecoder``).
    private var mouseReports = MouseReportDecoder()
    public private(set) var mouseReporting = false
    /// The pictures over the screen, drawn behind curses' back (``drawPictures(_:)``).
    private var shownPictures: [PlacedPicture] = []
    /// kitty's images the terminal has the data of, with the tmux passthrough they went through.
    private var kittyImages: [UInt32: TmuxPassthrough?] = [:]

    /// `colorRules` (the config's newsboat `color` lines) replace the default palette's colours
    /// and attributes.
    public init(useColor: Bool, colorRules: [ColorRule] = [], highlightRules: [HighlightRule] = []) {
        setlocale(LC_ALL, "")
        // Escape alone must not wait a second for a sequence that never comes.
        setenv("ESCDELAY", "25", 0)
        // A crash (a Swift trap is SIGILL/SIGTRAP) must not leave the terminal raw.
        installCrashRestore()
        initscr()
        cbreak()
        noecho()
        nonl()
        keypad(zc_stdscr(), true)
        nodelay(zc_stdscr(), true)
        curs_set(0)
        var hasDefaultColors = false
        if useColor && has_colors() {
            start_color()
            hasDefaultColors = use_default_colors() == OK
        }
        palette = Palette(
            rules: colorRules, highlights: highlightRules, hasColor: useColor && has_colors(),
            colorCount: Int(zc_colors()), hasDefaultColors: hasDefaultColors, colorPairs: Int(zc_color_pairs()))
        if palette.hasColor {
            for (role, colors) in palette.pairs {
                init_pair(Int16(role.rawValue), colors.foreground, colors.background)
            }
            for (index, highlight) in palette.highlights.enumerated() {
                init_pair(
                    Int16(Palette.firstHighlightPair + index), highlight.colors.foreground, highlight.colors.background)
            }
            if let colors = palette.defaultColors {
                init_pair(Palette.plainPair, colors.foreground, colors.background)
                zc_background(zc_color_pair(Int32(Palette.plainPair)))
            }
        }
        size = (Int(zc_getmaxx(zc_stdscr())), Int(zc_getmaxy(zc_stdscr())))
    }

    private func attributes(_ style: Style) -> Int32 {
        let look = palette.look(style)
        var value: Int32 = look.pair > 0 ? zc_color_pair(Int32(look.pair)) : 0
        let bits: [(TextAttributes, Int32)] = [
            (.bold, zc_a_bold()), (.underline, zc_a_underline()), (.reverse, zc_a_reverse()),
            (.standout, zc_a_standout()), (.blink, zc_a_blink()), (.dim, zc_a_dim()), (.invisible, zc_a_invis()),
            (.protect, zc_a_protect()),
        ]
        for (attribute, bit) in bits where look.attributes.contains(attribute) { value |= bit }
        return value
    }

    public func draw(_ buffer: ScreenBuffer) {
        guard !isEnded else { return }
        let full = previous == nil || previous!.width != buffer.width || previous!.height != buffer.height
        if full {
            erase()
            // Clearing the screen removes kitty's placements, and may free their images.
            shownPictures = []
            kittyImages = [:]
        }
        for y in 0..<buffer.height {
            if !full, let previous, (0..<buffer.width).allSatisfy({ previous[$0, y] == buffer[$0, y] }) { continue }
            var x = 0
            while x < buffer.width {
                let style = buffer[x, y].style
                var run: [wchar_t] = []
                let start = x
                while x < buffer.width && buffer[x, y].style == style {
                    for scalar in buffer[x, y].text.unicodeScalars { run.append(wchar_t(bitPattern: scalar.value)) }
                    x += 1
                }
                // The bottom-right cell cannot be written without scrolling: leave it out.
                if y == buffer.height - 1 && x == buffer.width && buffer[x - 1, y].width == 1 && !run.isEmpty {
                    run.removeLast()
                }
                zc_attrset(attributes(style))
                _ = run.withUnsafeBufferPointer { zc_mvaddnwstr(Int32(y), Int32(start), $0.baseAddress, Int32($0.count)) }
            }
        }
        zc_attrset(0)
        refresh()
        previous = buffer
    }

    public func readKeys() -> [Key] {
        var input: [CursesInput] = []
        var character: wint_t = 0
        while true {
            let result = zc_get_wch(&character)
            if result == ERR { break }
            if result == zc_key_code_yes() {
                if Int32(character) == KEY_MOUSE {
                    input.append(.mouseIntroducer)
                } else if let key = Self.functionKey(Int32(character)) {
                    input.append(.key(key))
                }
            } else if let key = Key(controlByte: UInt32(character)) {
                input.append(.key(key))
            } else if let scalar = Unicode.Scalar(UInt32(character)) {
                input.append(.key(.character(Character(scalar))))
            }
        }
        return mouseReports.decode(input)
    }

    private static func functionKey(_ code: Int32) -> Key? {
        switch code {
        case KEY_UP: return .up
        case KEY_DOWN: return .down
        case KEY_LEFT: return .left
        case KEY_RIGHT: return .right
        case KEY_NPAGE: return .pageDown
        case KEY_PPAGE: return .pageUp
        case KEY_HOME: return .home
        case KEY_END: return .end
        case KEY_ENTER: return .enter
        case KEY_BACKSPACE: return .backspace
        case KEY_DC: return .delete
        case zc_key_resize(): return .resize
        case (KEY_F0 + 1)...(KEY_F0 + 12): return .function(Int(code - KEY_F0))
        default: return nil
        }
    }

    public func updateSize() {
        var rows: Int32 = 0
        var columns: Int32 = 0
        zc_terminal_size(STDOUT_FILENO, &rows, &columns)
        if rows > 0 && columns > 0 { resizeterm(rows, columns) }
        size = (Int(zc_getmaxx(zc_stdscr())), Int(zc_getmaxy(zc_stdscr())))
        previous = nil
    }

    public func suspend() {
        def_prog_mode()
        endwin()
        // The program that takes the terminal gets it without mouse reports.
        if mouseReporting { writeMouseModes(on: false) }
    }

    public func resume() {
        reset_prog_mode()
        if mouseReporting { writeMouseModes(on: true) }
        previous = nil
        updateSize()
    }

    /// Written after curses has flushed its frame, so it lands between two frames.
    public func signal(_ sequence: String) {
        var bytes = Array(sequence.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            bytes = bytes.dropFirst(written)
        }
    }

    public func end() {
        guard !isEnded else { return }
        isEnded = true
        if !kittyImages.isEmpty { writeToTerminal(KittyGraphics.release(kittyImages)) }
        endwin()
        if mouseReporting { writeMouseModes(on: false) }
    }

    // MARK: - Mouse

    /// Whether the terminal's terminfo entry has a mouse (`kmous`): the terminals that send
    /// mouse reports say so there.
    public var terminalHasMouse: Bool {
        guard let capability = tigetstr("kmous"), Int(bitPattern: capability) != -1 else { return false }
        return capability.pointee != 0
    }

    /// Asks the terminal for mouse reports or stops them. Curses' own mouse support is left off:
    /// it picks the reports' format from terminfo (the old one, limited to 223 columns, in
    /// tmux's and screen's entries); the reader asks for SGR reports itself and decodes them.
    public func setMouseReporting(_ on: Bool) {
        guard on != mouseReporting, !isEnded else { return }
        mouseReporting = on
        writeMouseModes(on: on)
    }

    /// Button presses, releases and the wheel (1000), reported in SGR's form (1006). Written
    /// straight to the terminal: curses has flushed its own output after each frame.
    private func writeMouseModes(on: Bool) {
        let modes = on ? Self.mouseOn : Self.mouseOff
        _ = modes.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
    }

    private static let mouseOn = "\u{1B}[?1000h\u{1B}[?1006h"
    private static let mouseOff = "\u{1B}[?1006l\u{1B}[?1000l"
    /// Curses does not know the pictures' cells. kitty's pictures lie over the text: each is
    /// sent once and then only placed, moved or removed. The others are drawn into the cells:
    /// when they change, the whole screen is repainted (leaving no mark of the old ones) and
    /// they are drawn again.
    public func drawPictures(_ pictures: [PlacedPicture]) {
        guard !isEnded, pictures != shownPictures else { return }
        let others = pictures.filter { $0.kitty == nil }
        let shownOthers = shownPictures.filter { $0.kitty == nil }
        if others != shownOthers {
            if !shownOthers.isEmpty {
                clearok(zc_stdscr(), true)
                refresh()
            }
            for picture in others { writeToTerminal(picture.bytes) }
        }
        writeToTerminal(
            KittyGraphics.changes(
                from: shownPictures.filter { $0.kitty != nil }, to: pictures.filter { $0.kitty != nil }, sent: &kittyImages))
        shownPictures = pictures
    }

    /// Frees kitty's images: the terminal keeps their data until then.
    public func releasePictures() {
        guard !isEnded else { return }
        if !kittyImages.isEmpty {
            writeToTerminal(KittyGraphics.release(kittyImages))
            kittyImages = [:]
        }
        if shownPictures.contains(where: { $0.kitty != nil }) { shownPictures.removeAll { $0.kitty != nil } }
    }

    private func writeToTerminal(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBufferPointer { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written <= 0 {
                if written < 0 && errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

// The terminal modes from before curses started, put back (with the normal screen and a
// visible cursor) if the program dies on a fatal signal; the handler makes only
// async-signal-safe calls (tcsetattr, write, signal, raise).
// Unsafe nonisolation is sound: written once, before the handlers that read them are installed.
nonisolated(unsafe) private var savedTerminalModes = termios()
// Unsafe nonisolation is sound, as above: set right after savedTerminalModes, before the handlers exist.
nonisolated(unsafe) private var hasSavedTerminalModes = false

private func installCrashRestore() {
    hasSavedTerminalModes = tcgetattr(STDIN_FILENO, &savedTerminalModes) == 0
    for fatal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
        signal(fatal) { number in
            if hasSavedTerminalModes { tcsetattr(STDIN_FILENO, TCSANOW, &savedTerminalModes) }
            let reset: StaticString = "\u{1B}[0m\u{1B}[?25h\u{1B}[?1006l\u{1B}[?1000l\u{1B}[?1049l\r\n"
            _ = write(STDOUT_FILENO, reset.utf8Start, reset.utf8CodeUnitCount)
            signal(number, SIG_DFL)
            raise(number)
        }
    }
}
