import Feeds
import Foundation

/// The podcast settings of the config file: where episodes go, how large one may be, what
/// plays them.
///
/// ```text
/// download-path ~/Podcasts        # default $XDG_DATA_HOME/zeader/podcasts; podboat's %n, %h
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
    /// podboat's `max-downloads`: downloads at once when `zeader podcasts download` is not given
    /// `--jobs`; nil = the command's default.
    ///
    /// ```swift
    /// let jobs = settings.maxDownloads ?? 2
    /// ```
    public var maxDownloads: Int?
    /// podboat's `delete-played-files`: `zeader podcasts remove` deletes the episode's downloaded
    /// file too (only a file inside the download folder).
    ///
    /// ```swift
    /// if settings.deletePlayedFiles { try FileManager.default.removeItem(atPath: file) }
    /// ```
    public var deletePlayedFiles = false
    /// podboat's `download-filename-format` (``PodcastFileName/formatted(_:for:)``); nil = the
    /// enclosure's own file name.
    ///
    /// ```swift
    /// settings.fileNameFormat = "%F-%t.%e"
    /// ```
    public var fileNameFormat: String?

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

    /// The folder every download goes under: ``downloadDirectory(environment:)`` up to its first
    /// component holding one of podboat's placeholders (`%n`, `%h`).
    ///
    /// ```swift
    /// settings.downloadPath = "~/Podcasts/%h/%n"
    /// settings.downloadRoot().path   // "/home/u/Podcasts"
    /// ```
    public func downloadRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let folder = downloadDirectory(environment: environment)
        let components = folder.pathComponents.prefix { !$0.contains("%") }
        return URL(fileURLWithPath: NSString.path(withComponents: Array(components)), isDirectory: true)
    }

    /// The folder an episode of the feed titled `feedTitle` at `feedURL` goes to: with podboat's
    /// placeholders in `download-path`, `%n` the feed's title and `%h` its URL's host (each made
    /// one safe path component, so a feed cannot pick the folder); without them, a folder per
    /// feed inside ``downloadDirectory(environment:)``.
    ///
    /// ```swift
    /// settings.downloadPath = "~/Podcasts/%h/%n"
    /// settings.episodeFolder(feedTitle: "Cast", feedURL: "https://x.example/feed").path   // "/home/u/Podcasts/x.example/Cast"
    /// ```
    public func episodeFolder(
        feedTitle: String, feedURL: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL {
        guard let downloadPath, downloadPath.contains("%n") || downloadPath.contains("%h") else {
            return downloadDirectory(environment: environment).appendingPathComponent(
                PodcastFileName.folder(feedTitle), isDirectory: true)
        }
        let host = URL(string: feedURL)?.host ?? ""
        let path = HomePath.expanding(downloadPath, environment: environment)
            .replacingOccurrences(of: "%n", with: PodcastFileName.folder(feedTitle))
            .replacingOccurrences(of: "%h", with: PodcastFileName.folder(host))
        return URL(fileURLWithPath: path, isDirectory: true)
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
