import Feeds
import Foundation
import ZeaderKit

/// Reading a password without it showing up anywhere: from a command's first output line,
/// or typed at the terminal with echo off.
///
/// ```swift
/// let password = try PasswordInput.firstLine(of: "pass show rss")
/// ```
enum PasswordInput {
    /// The most a password command may print (its first line is the password).
    static let maxOutput = 64 * 1024

    /// Runs `command` with `/bin/sh -c` and returns the first line it prints; a command
    /// that fails or prints nothing is an error naming it.
    static func firstLine(of command: String) throws(ZeaderError) -> String {
        let outcome: Subprocess.Outcome
        do {
            outcome = try Subprocess.run(["/bin/sh", "-c", command], outputLimit: maxOutput)
        } catch {
            throw .password(.commandCouldNotRun(reason: error.description))
        }
        guard !outcome.outputTooLarge else { throw .password(.commandOutputTooLarge(limit: maxOutput)) }
        guard outcome.termination == .exited(0) else {
            throw .password(.commandFailed(outcome.termination))
        }
        let data = outcome.output
        // Any line break ends it: "\r\n" is one Character, so splitting on "\n" alone misses it.
        let line = String(decoding: data, as: UTF8.self).split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
            .first
        guard let line, !line.isEmpty else { throw .password(.commandPrintedNothing) }
        return String(line)
    }

    /// Asks on the terminal (`/dev/tty`) with echo off; no terminal is an error saying
    /// where else the password can come from.
    static func prompt(_ text: String) throws(ZeaderError) -> String {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            throw .password(.noTerminal)
        }
        defer { close(tty) }
        var saved = termios()
        let hasTerminal = tcgetattr(tty, &saved) == 0
        if hasTerminal {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(tty, TCSAFLUSH, &quiet)
        }
        defer { if hasTerminal { tcsetattr(tty, TCSAFLUSH, &saved) } }
        _ = text.withCString { write(tty, $0, strlen($0)) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while read(tty, &byte, 1) == 1, byte != UInt8(ascii: "\n") { bytes.append(byte) }
        _ = write(tty, "\n", 1)
        let password = String(decoding: bytes, as: UTF8.self)
        guard !password.isEmpty else { throw .password(.noneGiven) }
        return password
    }
}
