import Feeds
import Foundation
import ZeaderKit

/// newsboat's `error-log`: each refresh's failures, one line per feed, added to the end of a
/// file the user names, as `YYYY-MM-DD HH:MM:SS URL: problem` (a password in the URL masked,
/// ``RedactedURL``). A server's words go in without their control characters, so that the
/// file reads as plain lines.
///
/// ```swift
/// try ErrorLog.append(summary, to: "~/.newsboat/error.log")   // the number of lines added
/// ```
public enum ErrorLog {
    /// Adds `summary`'s failures to the file at `path` (created, mode 0600, if missing);
    /// returns how many lines it added. Throws ``Failure`` when the file cannot be written.
    @discardableResult
    public static func append(
        _ summary: RefreshSummary, to path: String, now: Date = Date(), timeZone: TimeZone = .current
    ) throws(Failure) -> Int {
        let failures = summary.failures
        guard !failures.isEmpty else { return 0 }
        let file = HomePath.expanding(path)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: now)
        let stamp = String(
            format: "%04d-%02d-%02d %02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0,
            c.second ?? 0)
        // A login in a feed's URL stays out of the file, as out of every listing.
        let lines = failures.map {
            "\(stamp) \(plain(RedactedURL.text($0.url))): \(plain($0.problem ?? "failed"))\n"
        }.joined()
        let fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(path: file, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes = Array(lines.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(path: file, reason: String(cString: strerror(errno))) }
            bytes = bytes.dropFirst(written)
        }
        return failures.count
    }

    /// Why the error log could not be written: `error-log /x/y: No such file or directory`.
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "error-log \(path): \(reason)" }
    }

    private static func plain(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || (0x7F..<0xA0).contains($0.value) ? " " : $0 }))
    }
}
