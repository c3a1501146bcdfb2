import Foundation

/// The one rule for a path or program the user wrote with a leading `~`: `~` and `~/…` start
/// at `$HOME`, or at the account's home folder when `$HOME` is unset or empty; `~user` and
/// every other path are left as written.
///
/// ```swift
/// HomePath.expanding("~/feeds/run", environment: ["HOME": "/home/ada"])   // "/home/ada/feeds/run"
/// HomePath.expanding("/usr/bin/true", environment: [:])                   // "/usr/bin/true"
/// ```
public enum HomePath {
    /// `path` with a leading `~` or `~/` replaced by the home folder.
    ///
    /// ```swift
    /// HomePath.expanding("~", environment: ["HOME": "/home/ada"])   // "/home/ada"
    /// ```
    public static func expanding(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        -> String
    {
        guard path == "~" || path.hasPrefix("~/") else { return path }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + path.dropFirst()
    }
}
