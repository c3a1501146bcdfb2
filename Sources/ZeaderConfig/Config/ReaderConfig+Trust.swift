import Feeds
import Foundation
import ZeaderKit

/// `ca-file PATH`: a PEM file of CA certificates that every fetch trusts besides the
/// system's (a self-hosted FreshRSS or feed server with a private CA).
///
/// ```
/// ca-file ~/.config/zeader/home-ca.pem
/// ```
extension ReaderConfig {
    /// The checked path of a `ca-file` line (`~/` expanded), or why it cannot be used.
    static func trustedCAFile(_ arguments: [String]) -> Result<String, TrustedCAFileError> {
        guard arguments.count == 1, var path = arguments.first, !path.isEmpty else {
            return .failure(TrustedCAFileError("ca-file needs one path, a PEM file of CA certificates"))
        }
        path = HomePath.expanding(path)
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(TrustedCAFileError("ca-file \(path): cannot be read"))
        }
        defer { try? handle.close() }
        // A certificate bundle shows its first certificate within a few kilobytes.
        let head = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        guard String(decoding: head, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") else {
            return .failure(TrustedCAFileError("ca-file \(path): not a PEM file of certificates (no BEGIN CERTIFICATE line)"))
        }
        return .success(path)
    }

    /// Makes the config file's `ca-file` (if any) trusted by every fetcher made from now on
    /// (``FetcherConfiguration/defaultCAFile``). A config that cannot be read changes
    /// nothing here: the commands that read it report why.
    ///
    /// ```swift
    /// ReaderConfig.applyTrustSettings()   // at start-up, before any fetcher exists
    /// ```
    public static func applyTrustSettings(from url: URL? = nil) {
        guard let config = try? load(from: url) else { return }
        if let caFile = config.caFile { FetcherConfiguration.defaultCAFile = caFile }
        // newsboat's user-agent names every fetch, as ca-file trusts for every fetch.
        if let userAgent = config.behaviour.userAgent { FetcherConfiguration.defaultUserAgent = userAgent }
        // The proxy, cookie file and certificate checks of every fetch (ReaderConfig+FeedSettings.swift).
        FetcherConfiguration.defaultNetwork = config.networkSettings.network
    }

    /// A refresh's options with the config's `download-timeout` and `download-retries`
    /// (newsboat's) and `max-host-connections`, for the reader's refresh and `zeader refresh` alike.
    ///
    /// ```swift
    /// let options = config.refreshOptions(RefreshOptions(jobs: 8))
    /// ```
    public func refreshOptions(_ options: RefreshOptions) -> RefreshOptions {
        var options = options
        options.downloadAttempts = behaviour.downloadRetries
        options.fetcherConfiguration.maxHostConnections = behaviour.maxHostConnections
        if let seconds = behaviour.downloadTimeoutSeconds {
            options.fetcherConfiguration.totalTimeout = TimeInterval(seconds)
            options.fetcherConfiguration.idleTimeout = min(options.fetcherConfiguration.idleTimeout, TimeInterval(seconds))
        }
        return options
    }
}

/// Why a `ca-file` line cannot be used.
struct TrustedCAFileError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}
