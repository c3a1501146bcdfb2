import Feeds
import Foundation

extension FeedSettingsError: CustomStringConvertible {
    /// One line naming the setting at fault; a secret's value is never repeated.
    ///
    /// ```swift
    /// FeedSettingsError.unknownKey("colour").description   // "unknown feed setting 'colour' (one of: reload-interval, …)"
    /// ```
    public var description: String {
        switch self {
        case .unknownKey(let key):
            let keys = FeedSettingKey.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown feed setting '\(key)' (one of: \(keys))"
        case .missingValue(let key): return "\(key.rawValue) needs a value"
        case .badValue(let key, let value, let expected):
            let shown = key.isSecret || key == .proxy ? "" : " '\(value)'"
            return "\(key.rawValue)\(shown): expected \(expected)"
        case .unterminatedQuote: return "feed settings: a quote is not closed"
        }
    }
}

extension Messages {
    /// A urls-file line whose settings cannot be read: the feed keeps the ones it had.
    ///
    /// ```swift
    /// Messages.feedSettingsKept(url: url, .unknownKey("colour"))
    /// ```
    static func feedSettingsKept(url: String, _ error: FeedSettingsError) -> String {
        "\(RedactedURL.text(url)): settings not changed: \(error.description)"
    }

    /// A setting that runs a program, left out of an imported file's line (``FeedSettingsEditing``).
    ///
    /// ```swift
    /// Messages.feedSettingProgramSkipped(url: url, .passwordCommand)
    /// ```
    static func feedSettingProgramSkipped(url: String, _ key: FeedSettingKey) -> String {
        "\(RedactedURL.text(url)): \(key.rawValue) not taken from an imported file: it runs a program "
            + "(import with --allow-commands, or `zeader set`)"
    }

    /// A backup's settings a restore left out (``BackupSettings``).
    ///
    /// ```swift
    /// Messages.backupSettingsWithheld(url: url, [.proxy])   // "…: settings proxy not restored: …"
    /// ```
    static func backupSettingsWithheld(url: String, _ keys: [FeedSettingKey]) -> String {
        let needs = keys.contains(where: \.runsProgram) ? "--trust-settings and --allow-commands" : "--trust-settings"
        return "\(RedactedURL.text(url)): settings \(keys.map(\.rawValue).joined(separator: ", ")) not restored: "
            + "a backup's settings that reach the network or run a program need \(needs)"
    }
}
