import Foundation

/// A URL as it may be shown: a password in it (`https://alice:secret@host/feed`) becomes
/// `***`, so that a feed's login never reaches a listing, an error line, a log or an export.
///
/// ```swift
/// RedactedURL.text("https://alice:secret@example.org/feed")   // "https://alice:***@example.org/feed"
/// ```
public enum RedactedURL {
    /// What stands in for a secret wherever one would be shown.
    public static let mask = "***"

    /// `url` with the password of its user information replaced by ``mask``; unchanged
    /// when it holds none.
    ///
    /// ```swift
    /// RedactedURL.text("https://example.org/feed")   // "https://example.org/feed"
    /// ```
    public static func text(_ url: String) -> String {
        guard let authority = authority(of: url), let at = authority.lastIndex(of: "@"),
            let colon = authority[..<at].firstIndex(of: ":")
        else { return url }
        return String(url[..<authority.index(after: colon)]) + mask + String(url[at...])
    }

    /// Whether `url` carries user information: a user name, a password or a token before `@`.
    ///
    /// ```swift
    /// RedactedURL.hasUserInfo("https://token@example.org/feed")   // true
    /// ```
    public static func hasUserInfo(_ url: String) -> Bool { authority(of: url)?.contains("@") ?? false }

    /// The part of `url` between `://` and the path, query or fragment; nil without a scheme.
    private static func authority(of url: String) -> Substring? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        return rest[..<(rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex)]
    }

    /// ``text(_:)`` of a URL.
    ///
    /// ```swift
    /// RedactedURL.text(URL(string: "https://alice:secret@example.org/feed")!)   // "https://alice:***@example.org/feed"
    /// ```
    public static func text(_ url: URL) -> String { text(url.absoluteString) }
}
