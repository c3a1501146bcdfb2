import Feeds
import Foundation
import ObjectGraph

/// `zeader podcasts download`: every queued episode not downloaded yet, `jobs` at a time,
/// through the fetcher's libcurl downloads (``FeedFetcher/download(_:to:progress:)``):
/// streamed to `NAME.part` in the feed's folder, resumed from that part by a later run,
/// renamed to `NAME` when complete and recorded as the item's `enclosureFile`.
///
/// Folders and names come from ``PodcastFileName`` (feed text is hostile); a name taken
/// by another episode's file gets ` (2)`, ` (3)` ….
///
/// ```swift
/// let downloader = PodcastDownloader(library: library, settings: config.podcasts, version: zeaderVersion)
/// let report = await downloader.downloadQueued(jobs: 2) { event in print(event) }
/// ```
public struct PodcastDownloader: Sendable {
    /// What happens to one episode, as it happens.
    public enum Event: Sendable {
        case started(PodcastEpisode, file: String)
        case progress(PodcastEpisode, DownloadProgress)
        case finished(PodcastEpisode, file: String, bytes: Int64, resumedFrom: Int64)
        case failed(PodcastEpisode, message: String)
    }

    /// How a run went.
    public struct Report: Sendable, Equatable {
        public var downloaded = 0
        public var failed = 0
        public var bytes: Int64 = 0
    }

    public let library: FeedLibrary
    public let settings: PodcastSettings
    private let fetcher: FeedFetcher
    private let environment: [String: String]

    /// A downloader writing to `settings`' folder, with the size cap of `settings`. Downloads
    /// may take hours: only the idle timeout (no byte for `idleTimeout` seconds) ends one.
    public init(
        library: FeedLibrary, settings: PodcastSettings, version: String, jobs: Int = 2, idleTimeout: TimeInterval = 30,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.library = library
        self.settings = settings
        self.environment = environment
        let jobs = max(1, jobs)
        fetcher = FeedFetcher(
            configuration: FetcherConfiguration(
                version: version, maxConcurrent: jobs, maxPerHost: jobs, idleTimeout: idleTimeout,
                totalTimeout: 7 * 24 * 3600, maxBodySize: Int(clamping: settings.maxSize)))
    }

    /// Downloads what the queue holds and is not downloaded yet; `onEvent` is called from
    /// the download tasks (several at once with more than one job). An episode that cannot
    /// be planned (its folder cannot be made) fails alone, reported as `.failed`; the rest
    /// download.
    public func downloadQueued(jobs: Int, onEvent: @escaping @Sendable (Event) -> Void) async throws(ZeaderError) -> Report {
        await download(try library.podcasts().filter { !$0.isDownloaded }, jobs: jobs, onEvent: onEvent)
    }

    /// Downloads `pending` (episodes of the queue), `jobs` at a time, as ``downloadQueued(jobs:onEvent:)``
    /// does; the reader's podcast queue downloads the episode selected. Cancelling the task
    /// stops the downloads, keeping their part files for a later resume.
    ///
    /// ```swift
    /// let report = await downloader.download([episode], jobs: 1) { event in print(event) }
    /// ```
    public func download(_ pending: [PodcastEpisode], jobs: Int, onEvent: @escaping @Sendable (Event) -> Void) async
        -> Report
    {
        var report = Report()
        var planned: [(PodcastEpisode, URL)] = []
        for (episode, destination) in plan(pending) {
            switch destination {
            case .success(let file):
                planned.append((episode, file))
            case .failure(let error):
                onEvent(.failed(episode, message: error.description))
                report.failed += 1
            }
        }
        await withTaskGroup(of: (Bool, Int64).self) { group in
            var next = 0
            func addNext() {
                guard next < planned.count else { return }
                let (episode, file) = planned[next]
                next += 1
                group.addTask { await self.download(episode, to: file, onEvent: onEvent) }
            }
            for _ in 0..<max(1, jobs) { addNext() }
            for await (succeeded, bytes) in group {
                if succeeded {
                    report.downloaded += 1
                    report.bytes += bytes
                } else {
                    report.failed += 1
                }
                addNext()
            }
        }
        return report
    }

    /// Each episode's final path, `folder/feed title/file name` (or as `download-path`'s
    /// placeholders say), or why it has none. A path
    /// is unique among existing files, this run's episodes and the part files of other
    /// enclosures (their ``DownloadResumeRecord`` names another URL); names are compared
    /// ignoring case, for downloads to a file system that does. The same queue gives the
    /// same paths on the next run, so a `.part` left by an interrupted run is found again.
    func plan(_ episodes: [PodcastEpisode]) -> [(PodcastEpisode, Result<URL, ZeaderError>)] {
        var claimed = Set<String>()
        var planned: [(PodcastEpisode, Result<URL, ZeaderError>)] = []
        for episode in episodes {
            let folder = settings.episodeFolder(feedTitle: episode.feedTitle, feedURL: episode.feed, environment: environment)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                let reason = ZeaderError.cannotCreateDownloadFolder(path: folder.path, reason: error.localizedDescription)
                planned.append((episode, .failure(reason)))
                continue
            }
            let name =
                settings.fileNameFormat.map { PodcastFileName.formatted($0, for: episode) }
                ?? PodcastFileName.episode(url: episode.enclosure.url, title: episode.title)
            var candidate = folder.appendingPathComponent(name)
            var counter = 2
            while claimed.contains(candidate.path.lowercased()) || isTaken(candidate, by: episode) {
                candidate = folder.appendingPathComponent(PodcastFileName.numbered(name, counter))
                counter += 1
            }
            claimed.insert(candidate.path.lowercased())
            planned.append((episode, .success(candidate)))
        }
        return planned
    }

    /// Whether `file` belongs to something else than `episode`: the file exists, or its
    /// part file holds another enclosure's bytes.
    private func isTaken(_ file: URL, by episode: PodcastEpisode) -> Bool {
        if FileManager.default.fileExists(atPath: file.path) { return true }
        let part = file.appendingPathExtension("part")
        guard let record = DownloadResumeRecord.read(forPartFile: part) else { return false }
        return record.url != episode.enclosure.url
    }

    private func download(_ episode: PodcastEpisode, to file: URL, onEvent: @escaping @Sendable (Event) -> Void) async
        -> (Bool, Int64)
    {
        guard let url = URL(string: episode.enclosure.url) else {
            onEvent(.failed(episode, message: "\(episode.enclosure.url): invalid URL"))
            return (false, 0)
        }
        onEvent(.started(episode, file: file.path))
        let part = file.appendingPathExtension("part")
        let outcome = await fetcher.download(url, to: part) { progress in onEvent(.progress(episode, progress)) }
        switch outcome {
        case .failed(.tooLarge(let url, let limit)):
            onEvent(.failed(episode, message: Messages.episodeTooLarge(url: url.absoluteString, limit: Int64(limit))))
            return (false, 0)
        case .failed(let error):
            onEvent(.failed(episode, message: error.description))
            return (false, 0)
        case .completed(let bytes, let resumedFrom):
            do {
                try FileManager.default.moveItem(at: part, to: file)
                try library.recordDownload(of: episode.objectID, at: file.path)
            } catch {
                onEvent(.failed(episode, message: "\(file.path): \(error)"))
                return (false, 0)
            }
            onEvent(.finished(episode, file: file.path, bytes: bytes, resumedFrom: resumedFrom))
            return (true, bytes - resumedFrom)
        }
    }
}

/// Playing a downloaded episode with the configured player: argv, never a shell; the
/// file is the last argument.
///
/// ```swift
/// try PodcastPlayer.play(episode, player: ["mpv", "--no-video"])
/// ```
public enum PodcastPlayer {
    /// The argv that plays `episode`, or an error saying what is missing.
    public static func command(for episode: PodcastEpisode, player: [String]?) throws(ZeaderError) -> [String] {
        guard let player, !player.isEmpty else {
            throw ZeaderError.noPlayer
        }
        guard episode.isDownloaded, let file = episode.enclosure.file else {
            throw ZeaderError.notDownloaded(id: episode.id)
        }
        return player + [file]
    }

    /// Runs the player and waits for it; returns its exit status (128 plus the signal that
    /// ended it, as a shell says).
    public static func play(_ episode: PodcastEpisode, player: [String]?) throws(ZeaderError) -> Int32 {
        let argv = try command(for: episode, player: player)
        // As from a shell: the terminal, and no other descriptor or blocked signal of ours.
        do throws(Subprocess.Failure) {
            switch Subprocess.wait(try Subprocess.spawn(argv)) {
            case .exited(let status): return status
            case .signalled(let signal): return 128 + signal
            }
        } catch {
            throw ZeaderError.cannotRun(error)
        }
    }
}
