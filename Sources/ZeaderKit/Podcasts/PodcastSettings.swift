import Feeds
import Foundation

/// The podcast settings of the config file: where episodes go, how large one may be, what
/// plays them.
///
/// ```text
/// download-path ~/Podcasts        # default $XDG_DATA_HOME/zeader/podcasts
/// podcast-max-size 500M           # bytes, or with K, M, G (powers of 1000) or KiB, MiB, GiB; default 2G
/// player "mpv --no-video"         # split into words, run without a shell, the file last
/// ```
///
/// ```swift
/// let folder = settings.downloadDirectory()
/// ```
public struct PodcastSettings: Sendable, Equatable {
    /// The folder for downloads (`~` expanded); nil = `$XDG_DATA_HOME/zeader/podcasts`.
    public var downloadPath: String?
    /// The largest file downloaded, in bytes.
    public var maxSize: Int64 = 2_000_000_000
    /// The player's argv (the file is appended); nil = none configured.
    public var player: [String]?

    /// The defaults.
    public init() {}

    /// The folder episodes are downloaded into, one folder per feed inside it.
    ///
    /// ```swift
    /// PodcastSettings().downloadDirectory(environment: ["XDG_DATA_HOME": "/d"]).path   // "/d/zeader/podcasts"
    /// ```
    public func downloadDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        guard let downloadPath, !downloadPath.isEmpty else {
            return ZeaderPaths.dataDirectory(environment: environment).appendingPathComponent("podcasts")
        }
        return URL(fileURLWithPath: HomePath.expanding(downloadPath, environment: environment))
    }

    /// Applies one config directive of the podcast family; returns false for a directive
    /// that is not one of them, throws a message for a bad argument.
    ///
    /// ```swift
    /// _ = try settings.apply("podcast-max-size", ["500M"])
    /// ```
    public mutating func apply(_ directive: String, _ arguments: [String]) throws(PodcastSettingsError) -> Bool {
        switch directive {
        case "download-path":
            guard arguments.count == 1, !arguments[0].isEmpty else {
                throw PodcastSettingsError("download-path needs one folder")
            }
            downloadPath = arguments[0]
        case "podcast-max-size":
            guard arguments.count == 1, let size = ByteCount.parse(arguments[0]), size > 0 else {
                throw PodcastSettingsError(
                    "podcast-max-size needs a size in bytes, or with K, M or G (powers of 1000: 500M) or KiB, MiB or GiB")
            }
            maxSize = size
        case "player":
            guard arguments.count == 1 else { throw PodcastSettingsError("player needs one command (quote it)") }
            let words = CommandWords.split(arguments[0])
            guard !words.isEmpty else { throw PodcastSettingsError("player needs one command (quote it)") }
            player = words
        default:
            return false
        }
        return true
    }
}

/// A bad podcast directive's message.
public struct PodcastSettingsError: Error, Equatable {
    public let message: String
    init(_ message: String) { self.message = message }
}
