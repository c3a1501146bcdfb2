import Foundation
import Testing

@testable import Feeds

/// A fetcher with short limits, so failure paths finish quickly. Its hosts' shares change
/// only by their answers unless `hostPatience` is given, so tests that count transfers to a
/// host see `maxPerHost` however slowly a loaded machine runs them.
func makeTestFetcher(
    maxConcurrent: Int = 8, maxPerHost: Int = 4, maxRedirects: Int = 5, idleTimeout: TimeInterval = 5,
    totalTimeout: TimeInterval = 10, maxBodySize: Int = 1024 * 1024, maxHostConnections: Int? = nil,
    hostPatience: TimeInterval? = nil
) -> FeedFetcher {
    var configuration = FetcherConfiguration(
        version: "9.9-test", maxConcurrent: maxConcurrent, maxPerHost: maxPerHost, maxRedirects: maxRedirects,
        idleTimeout: idleTimeout, totalTimeout: totalTimeout, maxBodySize: maxBodySize)
    configuration.maxHostConnections = maxHostConnections
    configuration.hostPatience = hostPatience
    return FeedFetcher(configuration: configuration)
}

extension FetchOutcome {
    var body: Data? {
        if case .fetched(let body, _) = self { return body }
        return nil
    }

    var metadata: FetchMetadata? {
        switch self {
        case .fetched(_, let metadata), .notModified(let metadata), .gone(let metadata): metadata
        case .deferred(_, let metadata): metadata
        case .failed: nil
        }
    }

    var error: FetchError? {
        if case .failed(let error) = self { return error }
        return nil
    }
}

/// Seconds `body` took.
func measure<T>(_ body: () async throws -> T) async rethrows -> (T, TimeInterval) {
    let start = Date()
    let value = try await body()
    return (value, Date().timeIntervalSince(start))
}
