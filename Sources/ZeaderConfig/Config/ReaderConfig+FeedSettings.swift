import Feeds
import Foundation
import ZeaderKit

/// Settings per feed and per tag, and the fetcher's network settings as newsboat names them.
///
/// ```
/// proxy 127.0.0.1:1080
/// proxy-type socks5h
/// feed tag:slow < reload-interval 240; max-items 100
/// feed https://example.org/feed.xml < user-agent "Mozilla/5.0 (X11; Linux x86_64)"; cookie session=abc
/// ```
extension ReaderConfig {
    /// The global directives that are also feed settings (``FeedSettingKey``), with newsboat's
    /// two names of certificate checks, which both mean `ssl-verify`.
    static let networkDirectives: Set<String> = [
        "proxy", "proxy-type", "proxy-auth", "use-proxy", "http-auth-method", "cookie-cache", "ssl-verify",
        "ssl-verifypeer", "ssl-verifyhost", "max-download-speed",
    ]

    /// Whether `directive` is read here.
    static func isFeedSettingsDirective(_ directive: String) -> Bool {
        directive == "feed" || networkDirectives.contains(directive)
    }

    /// Applies a `feed SCOPE < key value; …` line or a global network directive.
    mutating func applyFeedSettings(
        _ directive: String, _ arguments: [String], rawLine: String, fail: (String) -> ReaderConfigError
    ) throws {
        guard directive == "feed" else {
            let key = directive.hasPrefix("ssl-verify") ? "ssl-verify" : directive
            guard arguments.count == 1, let settingKey = FeedSettingKey(rawValue: key) else {
                throw fail("\(directive) needs one value")
            }
            // newsboat's two certificate switches: either one off turns the checks off.
            if settingKey == .sslVerify, networkSettings.flag(.sslVerify) == false { return }
            do { try networkSettings.set(settingKey, arguments[0]) } catch { throw fail(error.description) }
            return
        }
        let skipped = arguments.count >= 2 && arguments[1] == "<" ? 3 : 2
        guard arguments.count >= 2, let text = Self.rawRemainder(of: rawLine, afterWords: skipped) else {
            throw fail("feed needs a feed URL, tag:NAME or *, then < and settings: feed tag:news < reload-interval 60")
        }
        do {
            feedSettings.add(FeedScope(parsing: arguments[0]), try FeedSettings(parsing: text))
        } catch {
            throw fail(error.description)
        }
    }
}

extension ReaderConfig {
    /// The URLs of `feeds` whose settings say `notify no`: their new items are not counted
    /// in `notify-program`'s message.
    ///
    /// ```swift
    /// NotifyCounts(summary, unreadPerFeed: feeds.map(\.unread), quiet: config.quietFeeds(feeds))
    /// ```
    public func quietFeeds(_ feeds: [ServerSummary]) -> Set<String> {
        Set(
            feeds.filter { feed in
                feedSettings.effective(url: feed.url, tags: FeedTags.normalized(feed.tags), stored: feed.settings.text)
                    .flag(.notify) == false
            }.map(\.url))
    }
}
