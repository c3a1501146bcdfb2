import Feeds
import Foundation

/// Why a sync, a login or an account operation failed, in one line.
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
    /// The server answered a request with an error status.
    case server(status: Int, request: String)
    /// The server's answer could not be understood.
    case badResponse(request: String, reason: String)
    /// The store has no sync account.
    case noAccount
    /// The store has an account but its token file is missing or unreadable.
    case noToken(path: String)
    /// The store already has an account.
    case accountExists(url: String, user: String)
    /// The store is in memory: nothing to keep an account in.
    case inMemoryStore
    /// The token file could not be written.
    case cannotWriteToken(path: String, reason: String)

    public var description: String {
        switch self {
        case .unreachable(let error): return "cannot reach the sync server: \(error)"
        case .loginRefused(let user, let url): return "\(url): login refused for user \(user) (wrong user name or password)"
        case .tokenRejected(let url):
            return "\(url): the server no longer accepts the login token; log in again with `zeader sync add`"
        case .server(let status, let request): return "the sync server answered HTTP \(status) to \(request)"
        case .badResponse(let request, let reason): return "the sync server's answer to \(request) is not understood: \(reason)"
        case .noAccount: return "no sync account (add one with `zeader sync add API_URL --user NAME`)"
        case .noToken(let path): return "the sync login token is missing (\(path)); log in again with `zeader sync add`"
        case .accountExists(let url, let user):
            return "a sync account is set already (\(user) at \(url)); `zeader sync remove` it first"
        case .inMemoryStore: return "an in-memory store cannot keep a sync account"
        case .cannotWriteToken(let path, let reason): return "cannot write the sync token to \(path): \(reason)"
        }
    }
}
