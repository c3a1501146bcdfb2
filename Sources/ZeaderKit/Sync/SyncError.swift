import Feeds
import Foundation

/// Why a sync, a login or an account operation failed, in one line that ends with what to
/// do next.
///
/// ```swift
/// catch let error as SyncError { print("zeader sync: \(error)") }
/// ```
public enum SyncError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server could not be reached (or the transfer failed).
    case unreachable(FetchError)
    /// ClientLogin refused the user name or password.
    case loginRefused(user: String, url: String)
    /// The server no longer accepts the stored login token.
    case tokenRejected(url: String)
    /// The URL given for the account answered the login as something other than a Google
    /// Reader API does (`saw`: "an HTML page", "HTTP 404"…): most often the site's own URL.
    case notTheAPI(url: String, saw: String)
    /// The server answered a request with an error status.
    case server(status: Int, request: String)
    /// The server's answer could not be understood.
    case badResponse(request: String, reason: String)
    /// The server answered `request` with a redirect to another origin (`to`: scheme, host
    /// and port), where the login is not sent.
    case redirectedElsewhere(request: String, to: String)
    /// A paginated answer (`stream/items/ids`) went past a bound: see ``PaginationProblem``.
    case pagination(request: String, PaginationProblem)
    /// The store has no sync account.
    case noAccount
    /// The store has an account but its token file is missing or unreadable.
    case noToken(path: String)
    /// The store already has an account (another server or user than the one asked for).
    case accountExists(url: String, user: String)
    /// Removing the account would drop `count` changes not yet pushed to the server.
    case unpushedChanges(count: Int)
    /// The server lists only `listed` of the `synced` feeds this device synced: a sync would
    /// remove most of them (an account reset or recreated empty), so it stopped first.
    case serverForgotFeeds(listed: Int, synced: Int)
    /// The server lists `renamed` of the `synced` feeds this device synced under their ids
    /// but with other URLs (those ids now name other feeds: an account reset and filled again
    /// from another device), and `listed` as they were: a sync would join different feeds,
    /// so it stopped first.
    case serverRenamedFeeds(renamed: Int, listed: Int, synced: Int)
    /// The store is in memory: nothing to keep an account in.
    case inMemoryStore
    /// The token file could not be written.
    case cannotWriteToken(path: String, reason: String)

    /// How a server's pages went past what a real list needs.
    ///
    /// ```swift
    /// if case .pagination(_, .repeatedContinuation) = error { print("the server loops") }
    /// ```
    public enum PaginationProblem: Sendable, Equatable {
        /// A continuation token came back that an earlier page of the same list gave.
        case repeatedContinuation(String)
        /// More than `limit` pages.
        case tooManyPages(limit: Int)
        /// More than `limit` item ids in the list.
        case tooManyIDs(limit: Int)
        /// A continuation token longer than `limit` bytes.
        case continuationTooLong(limit: Int)
    }

    public var description: String {
        switch self {
        case .unreachable(let error):
            return "cannot reach the sync server: \(error); nothing was lost, run `zeader sync` again later"
        case .loginRefused(let user, let url):
            return "\(url): login refused for user \(user) (wrong user name or password); "
                + "check them, and the API URL, and log in again"
        case .tokenRejected(let url):
            return "\(url): the server no longer accepts the login token; log in again with `zeader sync login` "
                + "(changes not yet pushed are kept)"
        case .notTheAPI(let url, let saw):
            return "\(url) is not a Google Reader API (its login answered with \(saw)); give the Google Reader API URL "
                + "of your server: for FreshRSS https://HOST/api/greader.php, with API access allowed in its "
                + "settings (Authentication) and an API password set in the user's profile; for Miniflux, enable "
                + "the Google Reader API (and its user name and password) in Settings > Integrations"
        case .server(let status, let request):
            return "the sync server answered HTTP \(status) to \(request); changes not yet pushed are kept, "
                + "run `zeader sync` again later"
        case .badResponse(let request, let reason):
            return "the sync server's answer to \(request) is not understood: \(reason); "
                + "check that the account's URL is the server's Google Reader API (`zeader sync status`)"
        case .redirectedElsewhere(let request, let to):
            return "the sync server sent \(request) to another origin, \(to), where the login is not sent; "
                + "check the account's API URL (`zeader sync status`): if the service has moved there, "
                + "add the account again with the new URL"
        case .pagination(let request, let problem):
            let what: String
            switch problem {
            case .repeatedContinuation(let token):
                what = "repeated the continuation \"\(token.prefix(80))\" (its pages would never end)"
            case .tooManyPages(let limit): what = "went on past \(limit) pages"
            case .tooManyIDs(let limit): what = "listed more than \(limit) items"
            case .continuationTooLong(let limit): what = "gave a continuation longer than \(limit) bytes"
            }
            return "the sync server's answer to \(request) \(what); stopped there, nothing stored was lost: "
                + "report it to the server's administrator"
        case .noAccount: return "no sync account (add one with `zeader sync add API_URL --user NAME`)"
        case .noToken(let path): return "the sync login token is missing (\(path)); log in again with `zeader sync login`"
        case .accountExists(let url, let user):
            return "a sync account is set already (\(user) at \(url)); `zeader sync login` logs it in again, "
                + "`zeader sync remove` removes it"
        case .unpushedChanges(let count):
            return "\(count) change\(count == 1 ? "" : "s") made here not yet pushed to the server would be lost; "
                + "run `zeader sync` first, or `zeader sync remove --force` to drop \(count == 1 ? "it" : "them")"
        case .serverForgotFeeds(let listed, let synced):
            return "the sync server lists \(listed) of the \(synced) feeds this device synced (an account reset "
                + "or recreated?); stopped before changing anything, nothing was removed: `zeader sync --upload` "
                + "subscribes the account to them again, `zeader sync --detach` keeps them here as local feeds, "
                + "`zeader sync --accept-removals` removes them here too"
        case .serverRenamedFeeds(let renamed, let listed, let synced):
            return "the sync server gives \(renamed) of the \(synced) feeds this device synced to other feeds (their ids "
                + "now name other URLs) and lists \(listed) as they were (an account reset and filled again from another "
                + "device?); stopped before changing anything, nothing was removed or joined: `zeader sync --upload` "
                + "subscribes the account to them again, `zeader sync --detach` keeps them here as local feeds, "
                + "`zeader sync --accept-removals` removes them here"
        case .inMemoryStore: return "an in-memory store cannot keep a sync account; name a store file with --db PATH"
        case .cannotWriteToken(let path, let reason):
            return "cannot write the sync token to \(path): \(reason); check that its directory is writable"
        }
    }
}
