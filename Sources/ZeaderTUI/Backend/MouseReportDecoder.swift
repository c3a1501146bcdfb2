import ZeaderConfig

/// One unit of what curses reads: a key, or the start of a mouse report that curses itself
/// recognised (`KEY_MOUSE`, when the terminal's terminfo entry names the report's first bytes).
///
/// ```swift
/// let input: [CursesInput] = [.mouseIntroducer, .key(.character("0"))]
/// ```
enum CursesInput: Equatable {
    case key(Key)
    case mouseIntroducer
}

/// Turns the terminal's mouse reports in the stream of keys into ``Key/mouse(_:)`` keys, so
/// that their bytes never reach the reader as typed characters. Reads SGR reports
/// (`ESC [ < b ; x ; y M`, release `m`; mode 1006, which the backend asks for) and, for a
/// terminal that ignores 1006, the older `ESC [ M b x y`. curses hands these over either as
/// `KEY_MOUSE` and the rest as characters, or byte by byte from the escape on, depending on
/// the terminfo entry; both are read here. A report split between two reads is held until
/// the rest comes; anything that stops being a report is given back as the keys it was.
///
/// ```swift
/// var decoder = MouseReportDecoder()
/// let keys = decoder.decode("\u{1B}[<0;5;3M".map { CursesInput.key($0 == "\u{1B}" ? .escape : .character($0)) })
/// // [.mouse(MouseEvent(kind: .press(.left), column: 4, row: 2))]
/// ```
struct MouseReportDecoder {
    /// The start of a report whose end has not been read yet.
    private var held: [CursesInput] = []

    /// The longest SGR report's parameters (three numbers of up to four digits and two
    /// semicolons, with room to spare): longer is not a report.
    private static let longestParameters = 20

    /// Whether the start of a report is waiting for the rest.
    var isHolding: Bool { !held.isEmpty }

    /// The keys of `input` (after what was held), with every complete report as one mouse key.
    mutating func decode(_ input: [CursesInput]) -> [Key] {
        let stream = held + input
        held = []
        var keys: [Key] = []
        var index = 0
        while index < stream.count {
            switch Self.report(in: stream, at: index) {
            case .complete(let event, let length):
                if let event { keys.append(.mouse(event)) }
                index += length
            case .incomplete:
                held = Array(stream[index...])
                return keys
            case .none:
                if case .key(let key) = stream[index] { keys.append(key) }
                index += 1
            }
        }
        return keys
    }

    private enum Match {
        /// A whole report, `length` units long; nil for a report of nothing the reader reads.
        case complete(MouseEvent?, length: Int)
        /// The input ends inside what may still be a report.
        case incomplete
        case none
    }

    /// The report starting at `start`, if one does.
    private static func report(in stream: [CursesInput], at start: Int) -> Match {
        var index = start
        func character(at position: Int) -> Character? {
            guard position < stream.count, case .key(.character(let c)) = stream[position] else { return nil }
            return c
        }
        // The introducer: curses' KEY_MOUSE (which stands for `ESC [ <` or `ESC [ M`, as the
        // terminfo entry says), or the bytes themselves.
        var isOldStyle = false
        switch stream[index] {
        case .mouseIntroducer:
            index += 1
            guard index < stream.count else { return .incomplete }
            isOldStyle = character(at: index).map { !$0.isASCII || !$0.isNumber } ?? false
        case .key(.escape):
            guard index + 1 < stream.count else { return .none }  // a lone escape is the key
            guard character(at: index + 1) == "[" else { return .none }
            guard index + 2 < stream.count else { return .incomplete }
            switch character(at: index + 2) {
            case "<": index += 3
            case "M":
                index += 3
                isOldStyle = true
            default: return .none
            }
        default: return .none
        }
        if isOldStyle { return oldStyleReport(in: stream, from: index, start: start) }
        var parameters = ""
        while index < stream.count {
            guard let c = character(at: index) else { return .none }
            index += 1
            if c == "M" || c == "m" {
                let numbers = parameters.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
                guard numbers.count == 3, let button = numbers[0], let x = numbers[1], let y = numbers[2] else {
                    return .none
                }
                return .complete(event(button: button, column: x, row: y, released: c == "m"), length: index - start)
            }
            guard (c.isASCII && c.isNumber) || c == ";", parameters.count < longestParameters else { return .none }
            parameters.append(c)
        }
        return .incomplete
    }

    /// `ESC [ M` and three characters: the button and the 1-based column and row, each plus 32.
    private static func oldStyleReport(in stream: [CursesInput], from index: Int, start: Int) -> Match {
        var values: [Int] = []
        for position in index..<min(index + 3, stream.count) {
            guard case .key(let key) = stream[position] else { return .none }
            let value: Int
            switch key {
            case .character(let c): value = Int(c.unicodeScalars.first!.value)
            // Curses reads a `ESC [ M` with the button 32 + 3 (release) as `#`, but 32 + 0 as a
            // space: both are characters; a byte under 32 is never part of such a report.
            default: return .none
            }
            guard value >= 32 else { return .none }
            values.append(value - 32)
        }
        guard values.count == 3 else { return .incomplete }
        let button = values[0]
        let released = button & 3 == 3 && button & 64 == 0
        return .complete(event(button: button, column: values[1], row: values[2], released: released), length: index + 3 - start)
    }

    /// The event of a report's button number (xterm's encoding: the low two bits the button,
    /// 32 motion, 64 the wheel, 128 buttons past the wheel; 4, 8 and 16 the modifiers) at a
    /// 1-based column and row; nil outside the screen.
    static func event(button: Int, column: Int, row: Int, released: Bool) -> MouseEvent? {
        guard column >= 1, row >= 1 else { return nil }
        let kind: MouseEvent.Kind
        let low = button & 3
        if button & 128 != 0 {
            kind = .other
        } else if button & 64 != 0 {
            kind = released ? .other : [.wheelUp, .wheelDown, .other, .other][low]
        } else if button & 32 != 0 {
            kind = .other
        } else if released || low == 3 {
            kind = .release
        } else {
            kind = .press([.left, .middle, .right][low])
        }
        return MouseEvent(kind: kind, column: column - 1, row: row - 1)
    }
}
