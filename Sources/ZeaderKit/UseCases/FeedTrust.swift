import Feeds
import Foundation
import ObjectGraph

/// The one rule for where a subscription may come from. A feed that runs a command
/// (`exec:`, `filter:`) or reads a file (`file:`) is created only from what the user types
/// or their own newsboat `urls` file; an imported OPML file, JSON backup or newsboat cache
/// lists such feeds and skips them unless the user allows them (`--allow-commands`); a
/// sync server may give only http(s) feeds. A refresh checks again: a command or file feed
/// whose ``FeedOrigin`` does not vouch for it fails instead of running.
///
/// ```swift
/// let url = try FeedTrust.importedURL(" EXEC:touch /tmp/x", allowCommands: false)   // throws .needsAllow
/// FeedTrust.webURL("file:///etc/passwd")   // nil
/// ```
public enum FeedTrust {
    /// What refreshing a subscription does, read as the fetcher reads its URL.
    ///
    /// ```swift
    /// if case .command(let text) = FeedTrust.reach(of: server.url) { print("runs", text) }
    /// ```
    public enum Reach: Sendable, Equatable {
        /// Fetches an http(s) URL (or nothing: a URL the fetcher refuses).
        case web
        /// Runs a program (`exec:`, `filter:`): the subscription's text.
        case command(String)
        /// Reads a local file: its path.
        case file(String)
    }

    /// Why an imported subscription was not stored (worded by ``Messages/importRefusal(_:source:what:)``).
    ///
    /// ```swift
    /// do { _ = try FeedTrust.importedURL(url, allowCommands: false) } catch .needsAllow { skipped += 1 } catch { rejected += 1 }
    /// ```
    public enum ImportRefusal: Error, Sendable, Equatable {
        /// A command or file feed, imported without `--allow-commands`.
        case needsAllow(url: String, reach: Reach)
        /// Not a URL Zeader can subscribe to at all (a `javascript:` or relative URL…).
        case invalid(ZeaderError)
    }

    /// What refreshing `url` (as stored) would do: the scheme the fetcher dispatches on,
    /// whatever its case.
    ///
    /// ```swift
    /// FeedTrust.reach(of: "Filter:tidy:https://a.example/feed")   // .command(…)
    /// ```
    public static func reach(of url: String) -> Reach {
        guard let request = CommandFeed.requestURL(url) else { return .web }
        switch request.scheme?.lowercased() {
        case "exec", "filter": return .command(url)
        case "file": return .file(request.path.isEmpty ? url : request.path)
        default: return .web
        }
    }

    /// `text` as a subscription a sync server (or any other source of data only) may give:
    /// checked as ``FeedSubscription/validatedURL(_:)`` checks, and http or https with a
    /// host; nil for anything else.
    ///
    /// ```swift
    /// FeedTrust.webURL(" HTTPS://a.example/feed")   // "https://a.example/feed"
    /// FeedTrust.webURL("exec:cat /etc/passwd")      // nil
    /// ```
    public static func webURL(_ text: String) -> String? {
        guard let url = try? FeedSubscription.validatedURL(text), !CommandFeed.isCommand(url),
            let parsed = URL(string: url), let scheme = parsed.scheme, scheme == "http" || scheme == "https",
            let host = parsed.host, !host.isEmpty
        else { return nil }
        return url
    }

    /// The URL an import may store for `text`, and the origin to record: an http(s) feed
    /// always (origin ``FeedOrigin/imported``), a command or file feed only when
    /// `allowCommands` (``FeedOrigin/allowedImport``).
    ///
    /// ```swift
    /// let (url, origin) = try FeedTrust.importedURL(outline.url, allowCommands: false)
    /// ```
    public static func importedURL(_ text: String, allowCommands: Bool) throws(ImportRefusal)
        -> (url: String, origin: FeedOrigin)
    {
        let url: String
        do {
            url = try FeedSubscription.validatedURL(text)
        } catch {
            throw .invalid(error)
        }
        if let web = webURL(url) { return (web, allowCommands ? .allowedImport : .imported) }
        let reach = reach(of: url)
        guard reach != .web else {
            throw .invalid(.invalidURL(text, reason: "not an http or https URL with a host"))
        }
        guard allowCommands else { throw .needsAllow(url: url, reach: reach) }
        return (url, .allowedImport)
    }

    /// Why a refresh must not fetch `url` of this origin: a command or file feed whose
    /// origin is known and does not vouch for it. Nil when it may (an http(s) feed, an origin
    /// that vouches, or an unknown origin: such stores' command feeds came from urls files).
    ///
    /// ```swift
    /// if let failure = FeedTrust.refusal(url: server.url, origin: server.origin) { fail(failure) }
    /// ```
    public static func refusal(url: String, origin: FeedOrigin?) -> RefreshFailure? {
        guard let origin, !origin.vouchesForCommands, reach(of: url) != .web else { return nil }
        return .notVouched(url: url, origin: origin)
    }

    /// A command or file feed no origin vouches for, as `zeader check` lists it.
    ///
    /// ```swift
    /// let feed = FeedTrust.UnvouchedFeed(url: "exec:x", title: nil, origin: .syncServer, reach: .command("exec:x"))
    /// ```
    public struct UnvouchedFeed: Sendable, Equatable {
        /// The feed's URL as stored.
        public var url: String
        /// The feed's title, if it has one.
        public var title: String?
        /// Nil when the store did not record it (a feed stored before origins were).
        public var origin: FeedOrigin?
        /// What refreshing it does.
        public var reach: Reach

        /// A feed of this URL, title, origin and reach.
        ///
        /// ```swift
        /// let feed = FeedTrust.UnvouchedFeed(url: "file:///tmp/f", title: "F", origin: nil, reach: .file("/tmp/f"))
        /// ```
        public init(url: String, title: String?, origin: FeedOrigin?, reach: Reach) {
            self.url = url
            self.title = title
            self.origin = origin
            self.reach = reach
        }
    }

    /// Every command or file feed whose origin is a server, an import or unknown, in the
    /// user's order.
    ///
    /// ```swift
    /// for feed in try FeedTrust.unvouchedFeeds(in: context) { print(Messages.unvouched(feed)) }
    /// ```
    public static func unvouchedFeeds(in context: ManagedObjectContext) throws -> [UnvouchedFeed] {
        try Server.findAll(sortedBy: "displayOrder", in: context).compactMap { server in
            let reach = reach(of: server.url)
            guard reach != .web, server.origin?.vouchesForCommands != true else { return nil }
            return UnvouchedFeed(url: server.url, title: server.title, origin: server.origin, reach: reach)
        }
    }

    /// Records that the user vouches for the subscribed feed `url` (`zeader trust`): its
    /// origin becomes ``FeedOrigin/typed``, so a refresh runs its command or reads its file.
    /// The caller saves.
    ///
    /// ```swift
    /// try FeedTrust.vouch(for: "exec:~/bin/feed", in: context)
    /// ```
    @discardableResult
    public static func vouch(for url: String, in context: ManagedObjectContext) throws -> Server {
        let server = try FeedEditing.server(url: url, in: context)
        if server.origin != .typed { server.origin = .typed }
        return server
    }
}
