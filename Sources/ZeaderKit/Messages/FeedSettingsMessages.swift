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
}
