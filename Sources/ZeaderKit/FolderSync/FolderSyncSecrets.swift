import Feeds
import Foundation

/// What of a feed's address may leave the device through a sync folder, which a sync tool
/// copies to other machines and may keep on a server (Dropbox, a git remote). A login in a
/// feed's URL (`https://user:password@host/feed`) never does: the other devices get the URL
/// without it, and learn that the feed needs a login there (``FolderSyncChange/login(feed:_:)``).
/// The URL without its login is also what names the feed and its items in the folder, so a
/// device that adds its own login to the feed still matches the others'.
///
/// ```swift
/// FolderSyncFeedURL.shared("https://alice:pw@example.org/feed.xml")   // "https://example.org/feed.xml"
/// FolderSyncFeedURL.shared("exec:fetch-feed")                         // nil: not sent at all
/// FolderSyncFeedURL.hasLogin("https://alice:pw@example.org/feed.xml") // true
/// ```
public enum FolderSyncFeedURL {
    /// The URL other devices get for the feed at `url`: an http(s) URL without its login;
    /// nil for a command or file feed, which means nothing on another device.
    public static func shared(_ url: String) -> String? {
        guard FeedTrust.webURL(url) == url else { return nil }
        guard hasLogin(url), var parts = URLComponents(string: url) else { return url }
        parts.user = nil
        parts.password = nil
        guard let stripped = parts.string, FeedTrust.webURL(stripped) == stripped, !hasLogin(stripped) else { return nil }
        return stripped
    }

    /// Whether `url` carries user information (a user name, a password or a token before `@`).
    public static func hasLogin(_ url: String) -> Bool { RedactedURL.hasUserInfo(url) }

    /// Whether `text` (a smart feed's query, an ignore rule) names a URL with a login in it:
    /// such a text is held back from the folder, named by the run.
    public static func textHasLogin(_ text: String) -> Bool { redacted(text) != text }

    /// `text` with the login of every URL in it replaced by `***`, to name it safely.
    ///
    /// ```swift
    /// FolderSyncFeedURL.redacted("feed:https://a:pw@example.org/x")   // "feed:https://***@example.org/x"
    /// ```
    public static func redacted(_ text: String) -> String {
        var out = ""
        var rest = text[...]
        while let schemeEnd = rest.range(of: "://") {
            out += rest[..<schemeEnd.upperBound]
            let after = rest[schemeEnd.upperBound...]
            let end = after.firstIndex(where: { "/?#\"' \t\n)".contains($0) }) ?? after.endIndex
            if let at = after[..<end].lastIndex(of: "@") {
                out += RedactedURL.mask
                rest = after[at...]
            } else {
                rest = after
            }
        }
        return out + rest
    }
}
