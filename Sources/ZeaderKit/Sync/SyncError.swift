import Feeds
import Foundation

/// Why a sync, a login or an account operation failed, in one line that ends with what to
/// do next.
///
/// ```swift
/// catch let error as SyncError { print("zeader sync: \(error)") }
/// ```
public enum SyncError: Error, Sendable, Equatable {
    /// The API URL given for an account is not an http or https URL with a host.
    case invalidAPIURL(String)
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
    /// The answer of `service`'s server to `request` could not be understood (the Google
    /// Reader API's unless named: its clients throw most of these).
    case badResponse(request: String, reason: String, service: SyncServiceKind = .googleReader)
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
    /// The account's service has no call for `operation` (Fever cannot subscribe): the
    /// change stays on this device.
    case unsupported(service: SyncServiceKind, SyncOperation)
    /// The server does not allow this user its API (Tiny Tiny RSS's `API_DISABLED`).
    case apiAccessDisabled(service: SyncServiceKind, url: String)
    /// `--service` named no protocol Zeader speaks.
    case unknownService(String)
    /// No account of the store has this name.
    case unknownAccount(String)
    /// The store has several accounts (`names`) and the operation works on one: name it.
    case accountNeeded(names: [String])
    /// The name is not one an account may have (``SyncAccounts/isValidName(_:)``).
    case invalidAccountName(String)
    /// Another account of the store has this name.
    case accountNameTaken(String)

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

    /// True for an error in what the user typed (an API URL that is not one): exit status 2.
    ///
    /// ```swift
    /// SyncError.invalidAPIURL("ftp://x").isUsageError   // true
    /// ```
    public var isUsageError: Bool {
        switch self {
        case .invalidAPIURL, .unknownService, .unknownAccount, .accountNeeded, .invalidAccountName, .accountNameTaken:
            return true
        case .unreachable, .loginRefused, .tokenRejected, .notTheAPI, .server, .badResponse, .redirectedElsewhere,
            .pagination, .noAccount, .noToken, .accountExists, .unpushedChanges, .serverForgotFeeds, .serverRenamedFeeds,
            .inMemoryStore, .cannotWriteToken, .unsupported, .apiAccessDisabled:
            return false
        }
    }
}
