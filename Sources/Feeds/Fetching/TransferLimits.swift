import Foundation

/// A ``FetcherConfiguration`` reduced to the numbers libcurl takes, each clamped to a range
/// where no conversion can trap: the configuration is public and may hold NaN, infinities,
/// negative or `Int.max` values.
///
/// ```swift
/// let limits = TransferLimits(FetcherConfiguration(version: "1.0", idleTimeout: .infinity))
/// limits.idleSeconds   // one year, not a crash
/// ```
struct TransferLimits: Sendable {
    /// The longest timeout libcurl is given: a year is forever for a feed fetch.
    static let longestTimeoutSeconds = 365 * 24 * 3600

    var userAgent: String
    var maxRedirects: Int
    var maxBodySize: Int
    /// The idle (connect and low-speed) timeout in whole seconds, at least 1: libcurl's
    /// low-speed check counts whole seconds.
    var idleSeconds: Int
    /// The whole-fetch timeout in milliseconds, at least 1 (0 would mean "none" to libcurl).
    var totalMilliseconds: Int
    /// The configured total timeout, as errors report it.
    var totalTimeout: TimeInterval
    /// Extra CA certificates (a PEM file), or `nil` for the system's only.
    var caFile: String?
    /// The configuration's proxy, login, cookies and certificate checks.
    var network: NetworkOptions

    init(_ configuration: FetcherConfiguration) {
        userAgent = HTTPHeaderValues.headerSafe(configuration.userAgent) ?? "zeader"
        maxRedirects = max(0, configuration.maxRedirects)
        maxBodySize = max(0, configuration.maxBodySize)
        idleSeconds = Self.clamped(configuration.idleTimeout.rounded(.up), scale: 1, minimum: 1)
        totalMilliseconds = Self.clamped(configuration.totalTimeout, scale: 1000, minimum: 1)
        totalTimeout = configuration.totalTimeout
        caFile = configuration.caFile
        network = configuration.network
    }

    /// `seconds × scale` as an Int in `minimum...longestTimeoutSeconds × scale`; NaN and
    /// values at or below zero give `minimum`.
    static func clamped(_ seconds: TimeInterval, scale: Int, minimum: Int) -> Int {
        let ceiling = longestTimeoutSeconds * scale
        guard seconds > 0 else { return minimum }  // also NaN
        let scaled = seconds * Double(scale)
        guard scaled < Double(ceiling) else { return ceiling }
        return max(minimum, Int(scaled.rounded(.up)))
    }
}
