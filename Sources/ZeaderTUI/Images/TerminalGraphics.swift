import Foundation
import ZeaderConfig

/// What the terminal can draw, decided from the config's `image-display`, from how the
/// terminal answers the queries below, and from the environment (tmux, `$TERM`).
///
/// ```swift
/// let answers = TerminalGraphics.ask(input: 0, output: 1)   // before curses starts
/// let display = TerminalGraphics.choose(.auto, answers: answers, environment: env)  // .sixel in xterm -ti vt340
/// ```
public enum TerminalGraphics {
    /// kitty's graphics query (a 1 × 1 picture that is checked, not shown), XTSMGRAPHICS's
    /// question of the largest sixel picture, then DA1, which every terminal answers: the DA1
    /// reply ends the wait.
    public static let query = Array("\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[?2;1;0S\u{1B}[c".utf8)

    /// Inside tmux, the queries for the terminal tmux runs in, through tmux's passthrough:
    /// tmux answers DA1 itself and keeps the outer terminal's DA1 reply, so the wait ends on
    /// the reply to a status report (`ESC [ 5 n`, answered `ESC [ 0 n`), which tmux hands on
    /// as it does the kitty and XTSMGRAPHICS replies. With the passthrough off, nothing
    /// comes back.
    public static let tmuxQuery = TmuxPassthrough.wrap(
        Array("\u{1B}_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\u{1B}\\\u{1B}[?2;1;0S\u{1B}[5n".utf8))

    /// A size in pixels.
    public struct PixelSize: Sendable, Equatable {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }
    }

    /// What the terminal said to ``query``.
    public struct Answers: Sendable, Equatable {
        /// It answered the kitty graphics query with OK.
        public var kitty = false
        /// Its DA1 reply lists attribute 4 (sixel graphics).
        public var sixel = false
        /// A DA1 reply (or inside tmux, the status report) came at all: the wait ended on
        /// it, not on the timeout.
        public var answered = false
        /// The largest sixel picture, as XTSMGRAPHICS answered.
        public var sixelLimit: PixelSize?
        /// What came that is no answer: keys typed before the reader started, to be handled
        /// as keys (``keys(typedAhead:)``).
        public var typedAhead: [UInt8] = []

        public init(kitty: Bool = false, sixel: Bool = false, answered: Bool = false, sixelLimit: PixelSize? = nil) {
            self.kitty = kitty
            self.sixel = sixel
            self.answered = answered
            self.sixelLimit = sixelLimit
        }
    }

    /// Reads `reply` (what the terminal sent back) for the kitty OK and the DA1 attributes.
    ///
    /// ```swift
    /// TerminalGraphics.parse(Array("\u{1B}[?63;1;2;4;6;9;15;22c".utf8)).sixel  // true
    /// ```
    public static func parse(_ reply: [UInt8]) -> Answers {
        var answers = Answers()
        let text = String(decoding: reply, as: UTF8.self)
        if let start = text.range(of: "\u{1B}_Gi=31;") {
            answers.kitty = text[start.upperBound...].hasPrefix("OK")
        }
        answers.typedAhead = withoutReplies(reply)
        for reply in privateReplies(text) {
            switch reply.final {
            case "c":
                answers.answered = true
                answers.sixel = reply.parameters.dropFirst().contains(4)
            case "S" where reply.parameters.count == 4 && reply.parameters[0] == 2 && reply.parameters[1] == 0:
                if reply.parameters[2] > 0, reply.parameters[3] > 0 {
                    answers.sixelLimit = PixelSize(width: reply.parameters[2], height: reply.parameters[3])
                }
            default:
                break
            }
        }
        if text.contains("\u{1B}[0n") { answers.answered = true }
        return answers
    }

    /// `bytes` without the kitty replies (`ESC _ G … ESC \`) and the `ESC [ ? … c|S` replies.
    private static func withoutReplies(_ bytes: [UInt8]) -> [UInt8] {
        var kept: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x1B, index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "_"),
                bytes[index + 2] == UInt8(ascii: "G")
            {
                var end = index + 3
                while end + 1 < bytes.count, !(bytes[end] == 0x1B && bytes[end + 1] == UInt8(ascii: "\\")) { end += 1 }
                index = end + 2
                continue
            }
            if bytes[index] == 0x1B, index + 2 < bytes.count, bytes[index + 1] == UInt8(ascii: "["),
                bytes[index + 2] == UInt8(ascii: "?")
            {
                var end = index + 3
                while end < bytes.count, bytes[end] == UInt8(ascii: ";") || (0x30...0x39).contains(bytes[end]) { end += 1 }
                if end < bytes.count, bytes[end] == UInt8(ascii: "c") || bytes[end] == UInt8(ascii: "S") {
                    index = end + 1
                    continue
                }
            }
            if bytes[index] == 0x1B, bytes[index...].starts(with: Array("\u{1B}[0n".utf8)) {
                index += 4
                continue
            }
            kept.append(bytes[index])
            index += 1
        }
        return kept
    }

    /// The keys of `typedAhead` (characters and control keys; an escape sequence typed ahead
    /// arrives as its characters).
    ///
    /// ```swift
    /// TerminalGraphics.keys(typedAhead: Array("q".utf8))  // [.character("q")]
    /// ```
    public static func keys(typedAhead: [UInt8]) -> [Key] {
        String(decoding: typedAhead, as: UTF8.self).unicodeScalars.map { scalar in
            Key(controlByte: scalar.value) ?? .character(Character(scalar))
        }
    }

    /// The `ESC [ ?` replies in `text`: their numbers and final character.
    private static func privateReplies(_ text: String) -> [(parameters: [Int], final: Character)] {
        var replies: [(parameters: [Int], final: Character)] = []
        var rest = text[...]
        while let start = rest.range(of: "\u{1B}[?") {
            let body = rest[start.upperBound...]
            guard let end = body.firstIndex(where: { !($0.isASCII && ($0.isNumber || $0 == ";")) }) else { break }
            let numbers = body[..<end].split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
            replies.append((numbers, body[end]))
            rest = body[end...]
        }
        return replies
    }

    /// The protocol to draw with, or nil for none (the `[image: alt]` lines only).
    public static func choose(
        _ setting: PictureSettings.Display, answers: Answers, environment: [String: String]
    ) -> PictureProtocol? {
        switch setting {
        case .none: return nil
        case .kitty: return .kitty
        case .sixel: return .sixel
        case .iterm: return .iterm
        case .symbols: return .symbols
        case .auto: break
        }
        if environment["TMUX"] != nil {
            // The outer terminal's answers came through tmux's passthrough, or it is off: the
            // XTSMGRAPHICS reply stands for DA1's sixel attribute, which tmux keeps.
            guard answers.answered else { return .symbols }
            return answers.kitty ? .kitty : answers.sixel || answers.sixelLimit != nil ? .sixel : .symbols
        }
        if answers.kitty { return .kitty }
        let program = environment["TERM_PROGRAM"] ?? ""
        if ["iTerm.app", "WezTerm", "mintty"].contains(program) { return .iterm }
        if answers.sixel { return .sixel }
        return .symbols
    }

    /// Sends ``query`` (inside tmux, ``tmuxQuery``) on `output` and reads the answers from
    /// `input` (a terminal in raw mode) until the DA1 reply (the status report) or `timeout`
    /// seconds, whichever comes first. Every terminal answers DA1, so the bound is met only by
    /// a silent one, or by tmux with its passthrough off; it is long enough for a remote
    /// terminal's answer, which arriving after it would reach curses as keys.
    public static func ask(input: Int32, output: Int32, timeout: TimeInterval = 0.5, tmux: Bool = false) -> Answers {
        guard isatty(input) == 1, isatty(output) == 1 else { return Answers() }
        var saved = termios()
        guard tcgetattr(input, &saved) == 0 else { return Answers() }
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        tcsetattr(input, TCSANOW, &raw)
        defer { tcsetattr(input, TCSANOW, &saved) }
        _ = (tmux ? tmuxQuery : query).withUnsafeBufferPointer { write(output, $0.baseAddress, $0.count) }
        var reply: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while reply.count < 4096 {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, Int32(left * 1000) + 1) > 0 else { break }
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = read(input, &buffer, buffer.count)
            guard count > 0 else { break }
            reply += buffer.prefix(count)
            if parse(reply).answered { break }
        }
        return parse(reply)
    }

    /// A cell's size in pixels as the terminal reports it (the window's pixels over its cells),
    /// or nil when it reports none (then 8 × 16 is assumed).
    public static func cellPixels(of terminal: Int32) -> (width: Int, height: Int)? {
        var size = winsize()
        guard ioctl(terminal, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 else { return nil }
        let width = Int(size.ws_xpixel) / Int(size.ws_col)
        let height = Int(size.ws_ypixel) / Int(size.ws_row)
        // A cell smaller than 2 × 4 or larger than 64 × 128 pixels is not a cell size but noise.
        guard (2...64).contains(width), (4...128).contains(height) else { return nil }
        return (width, height)
    }

    /// What the terminal draws pictures with, asked before curses starts: outside tmux, the
    /// answers to ``query`` (for `auto`); inside tmux, first tmux itself (the pane's place and
    /// whether its passthrough is on, ``TmuxPassthrough/pane(environment:timeout:)``), then,
    /// with the passthrough on, the outer terminal through it (``tmuxQuery``). With it off,
    /// pictures are mosaics and no question waits for an answer that cannot come.
    ///
    /// ```swift
    /// let graphics = TerminalGraphics.detect(.auto, input: 0, output: 1, environment: env)
    /// app.pictures.display = graphics.display; app.pictures.passthrough = graphics.passthrough
    /// ```
    public static func detect(
        _ setting: PictureSettings.Display, input: Int32, output: Int32, environment: [String: String]
    ) -> (display: PictureProtocol?, passthrough: TmuxPassthrough?, answers: Answers) {
        let inTmux = environment["TMUX"] != nil
        let wantsPixels = ![.none, .symbols].contains(setting)
        let pane = inTmux && wantsPixels ? TmuxPassthrough.pane(environment: environment) : nil
        var answers = Answers()
        if setting == .auto, !inTmux || pane != nil {
            answers = ask(input: input, output: output, tmux: inTmux)
        }
        let display = choose(setting, answers: answers, environment: environment)
        guard inTmux, let display, display != .symbols else { return (display, nil, answers) }
        // A pixel protocol inside tmux needs the passthrough and the pane's place.
        guard let pane else { return (.symbols, nil, answers) }
        return (display, pane, answers)
    }
}
