import Feeds
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// tmux's passthrough (`allow-passthrough on`): a sequence wrapped in `ESC P tmux; … ESC \`,
/// each ESC in it doubled, reaches the terminal tmux runs in, which draws the pictures tmux
/// itself cannot. tmux does not move that terminal's cursor to the pane's before it, so the
/// wrapped sequence places the cursor itself, from the pane's place in tmux's window.
///
/// ```swift
/// let tmux = TmuxPassthrough(top: 0, left: 81)   // the right pane of a split window
/// let bytes = tmux.wrap(Array("\u{1B}[c".utf8))  // ESC P tmux; ESC ESC [ c ESC \
/// ```
public struct TmuxPassthrough: Sendable, Equatable, Hashable {
    /// The pane's top row and left column in the outer terminal (0-based).
    public var top: Int
    public var left: Int

    public init(top: Int, left: Int) {
        self.top = top
        self.left = left
    }

    /// Sequences are gathered into wraps of about this size. tmux writes its own sequences
    /// between two wraps, so a wrap ends where a sequence does (after `ESC \` or BEL).
    static let pieceSize = 1 << 16
    /// tmux drops a sequence longer than its input buffer (a megabyte): a longer one is cut.
    static let largestPiece = (1 << 20) - 4096

    /// `bytes` in passthrough wraps.
    ///
    /// ```swift
    /// TmuxPassthrough.wrap(Array("\u{1B}_Ga=q\u{1B}\\".utf8))
    /// // ESC P tmux; ESC ESC _Ga=q ESC ESC \ ESC \
    /// ```
    public static func wrap(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 32 + 16)
        var start = 0
        while start < bytes.count {
            var end = start
            var lastSequenceEnd = start
            while end < bytes.count, end - start < largestPiece {
                let byte = bytes[end]
                end += 1
                if byte == 0x07 || (byte == UInt8(ascii: "\\") && end >= 2 && bytes[end - 2] == 0x1B) {
                    lastSequenceEnd = end
                    if end - start >= pieceSize { break }
                }
            }
            if end < bytes.count, lastSequenceEnd > start { end = lastSequenceEnd }
            out += Array("\u{1B}Ptmux;".utf8)
            for byte in bytes[start..<end] {
                if byte == 0x1B { out.append(0x1B) }
                out.append(byte)
            }
            out += [0x1B, UInt8(ascii: "\\")]
            start = end
        }
        return out
    }

    /// `payload` drawn at the pane's cell (`x`, `y`) (0-based), the outer terminal's cursor
    /// saved and restored around it, all in one passthrough.
    public func wrap(_ payload: [UInt8], x: Int, y: Int) -> [UInt8] {
        Self.wrap(Array("\u{1B}7\u{1B}[\(top + y + 1);\(left + x + 1)H".utf8) + payload + Array("\u{1B}8".utf8))
    }

    /// The pane's place, asked of the tmux server in `$TMUX` (`display-message`) with its
    /// `allow-passthrough` option; nil outside tmux, with the passthrough off, or when tmux
    /// does not answer within `timeout` seconds.
    public static func pane(
        environment: [String: String] = ProcessInfo.processInfo.environment, timeout: TimeInterval = 0.5
    ) -> TmuxPassthrough? {
        guard let socket = environment["TMUX"] else { return nil }
        // tmux finds its server by $TMUX: the one given, whatever this process's own.
        var arguments = ["env", "TMUX=\(socket)", "tmux", "display-message", "-p"]
        if let pane = environment["TMUX_PANE"], !pane.isEmpty { arguments += ["-t", pane] }
        arguments.append("#{pane_top} #{pane_left} #{allow-passthrough}")
        let nullDevice = Glibc.open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if nullDevice >= 0 { Glibc.close(nullDevice) } }
        guard
            let outcome = try? Subprocess.run(
                arguments, standardError: nullDevice >= 0 ? nullDevice : 2, outputLimit: 4096,
                timeout: .milliseconds(Int64(timeout * 1000))),
            !outcome.timedOut, !outcome.outputTooLarge, case .exited(let status) = outcome.termination
        else { return nil }
        return parse(String(decoding: outcome.output, as: UTF8.self), status: status)
    }

    /// tmux's answer to `#{pane_top} #{pane_left} #{allow-passthrough}`: the pane's place
    /// when the passthrough is on (1, or 2 for `all`).
    ///
    /// ```swift
    /// TmuxPassthrough.parse("0 41 1\n")  // TmuxPassthrough(top: 0, left: 41)
    /// TmuxPassthrough.parse("0 41 0\n")  // nil: the passthrough is off
    /// ```
    public static func parse(_ answer: String, status: Int32 = 0) -> TmuxPassthrough? {
        let numbers = answer.split(whereSeparator: \.isWhitespace).map { Int($0) }
        guard status == 0, numbers.count == 3, let top = numbers[0], let left = numbers[1], let allowed = numbers[2],
            (0...10_000).contains(top), (0...10_000).contains(left), allowed > 0
        else { return nil }
        return TmuxPassthrough(top: top, left: left)
    }
}
