import ArgumentParser
import Foundation
import Synchronization
import ZeaderConfig
import ZeaderKit

/// `zeader podcasts [list|add|remove|download|play]`: the podcast queue (newsboat's `e`
/// and podboat). One command with an action word, so `--db` works before or after it as
/// for every other command.
///
/// ```sh
/// zeader podcasts add 'episode-42' && zeader podcasts download --jobs 2 && zeader podcasts play 'episode-42'
/// ```
struct PodcastsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "podcasts", abstract: "The podcast queue: list, add, remove, download, play.",
        usage: """
            zeader podcasts [list] [--json]
            zeader podcasts add|remove <id> ... [--feed <url>]
            zeader podcasts download [--jobs <n>]
            zeader podcasts play <id> [--feed <url>]
            """,
        discussion: """
            Episodes are the enclosures of items (`zeader items --json` shows them; the reader's `e` queues
            one). Downloads go to download-path (default $XDG_DATA_HOME/zeader/podcasts), one folder per
            feed, named after the enclosure (or by download-filename-format), are resumed from their .part file (only with the same URL and file on the server,
            checked with If-Range), and stop at podcast-max-size; play runs the player
            command of the config file with the file as its last argument, without a shell. With
            delete-played-files yes, remove deletes the downloaded file too.
            """)

    enum Verb: String, CaseIterable, ExpressibleByArgument {
        case list, add, remove, download, play
    }

    @Argument(help: ArgumentHelp("list (the default), add, remove, download or play.", valueName: "action"))
    var action: Verb = .list

    @Argument(help: ArgumentHelp("Item ids, as `zeader items --json` prints them (a guid is taken too).", valueName: "id"))
    var ids: [String] = []

    @Option(help: ArgumentHelp("Only items of this feed.", valueName: "URL"))
    var feed: String?

    @Option(help: ArgumentHelp("Downloads at once (1-16; default: max-downloads of the config, else 2).", valueName: "N"))
    var jobs: Int?

    @Flag(help: "list: print one JSON array of {feed, id, title, url, type, length, downloaded, file}.")
    var json = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if let jobs, !(1...16).contains(jobs) { throw ValidationError("--jobs must be between 1 and 16, not \(jobs)") }
        switch action {
        case .add, .remove:
            if ids.isEmpty { throw ValidationError("podcasts \(action.rawValue) needs item ids") }
        case .play:
            if ids.count != 1 { throw ValidationError("podcasts play needs one item id") }
        case .list, .download:
            if !ids.isEmpty { throw ValidationError("podcasts \(action.rawValue) takes no item ids") }
        }
    }

    func run() async throws {
        switch action {
        case .list: try PodcastsList(json: json, store: store).run()
        case .add, .remove: try setQueued(action == .add)
        case .download: try await PodcastsDownload(jobs: jobs, store: store).run()
        case .play: try play()
        }
    }

    private func setQueued(_ queued: Bool) throws {
        let command = "podcasts \(action.rawValue)"
        // podboat's delete-played-files: a removed episode's file goes too, when it is Zeader's to delete.
        let settings = queued ? nil : try ReaderConfig.loadOrExit(command: command).podcasts
        let downloads = settings?.deletePlayedFiles == true ? settings?.downloadRoot() : nil
        let library = FeedLibrary(store: try store.openStore(command: command, writes: true))
        do {
            var files: [String] = []
            if let downloads {
                for episode in try library.podcasts()
                where ids.contains(where: episode.isNamed(by:)) && (feed == nil || episode.feed == feed) {
                    if let file = episode.enclosure.file, case .success(let path) = PodboatQueue.resolve(file, in: downloads) {
                        files.append(path)
                    }
                }
            }
            let count = try library.setQueued(queued, ids: ids, feed: feed)
            for file in files {
                do { try FileManager.default.removeItem(atPath: file) } catch {
                    CommandOutput.warn(
                        "zeader \(command): cannot delete \(TerminalText.line(file)): \(error.localizedDescription)")
                }
            }
            let noun = "episode\(count == 1 ? "" : "s")"
            CommandOutput.write(queued ? "queued \(count) \(noun)\n" : "removed \(count) \(noun) from the queue\n")
        } catch {
            throw CommandOutput.fail(command, error)
        }
    }

    private func play() throws {
        let config = try ReaderConfig.loadOrExit(command: "podcasts play")
        do {
            let library = FeedLibrary(store: try store.openStore(command: "podcasts play"))
            guard
                let episode = try library.podcasts().first(where: { $0.isNamed(by: ids[0]) && (feed == nil || $0.feed == feed) })
            else {
                // What the user mistyped is said before what is not there.
                if let feed { _ = try FeedSubscription.validatedURL(feed) }
                throw ItemID.problem(with: ids[0]).map { ZeaderError.invalidItemID(ids[0], $0) }
                    ?? ZeaderError.notQueued(id: ids[0])
            }
            let status = try PodcastPlayer.play(episode, player: config.podcasts.player)
            if status != 0 { throw ExitCode(status) }
        } catch let error as ZeaderError {
            throw CommandOutput.fail("podcasts play", error)
        }
    }
}

/// `zeader podcasts [list] [--json]`: the queue, oldest first.
struct PodcastsList {
    var json: Bool
    var store: StoreOptions

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "podcasts"))
        do {
            let episodes = try library.podcasts()
            CommandOutput.write(json ? Self.json(episodes) : Self.text(episodes))
        } catch {
            throw CommandOutput.fail("podcasts", error)
        }
    }

    static func text(_ episodes: [PodcastEpisode]) -> String {
        var out = ""
        for episode in episodes {
            let state = episode.isDownloaded ? "downloaded" : "queued    "
            out += "\(state)  \(TerminalText.line(episode.feedTitle))  \(TerminalText.line(episode.title ?? episode.id))\n"
            out += "            id \(TerminalText.line(episode.id))  \(TerminalText.line(episode.enclosure.headerLine))\n"
            if episode.isDownloaded, let file = episode.enclosure.file { out += "            \(TerminalText.line(file))\n" }
        }
        return out
    }

    static func json(_ episodes: [PodcastEpisode]) -> String {
        var out = "["
        for (index, episode) in episodes.enumerated() {
            out += index == 0 ? "\n{\"feed\":" : ",\n{\"feed\":"
            JSONText.appendString(episode.feed, to: &out)
            out += ",\"id\":"
            JSONText.appendString(episode.id, to: &out)
            out += ",\"title\":"
            JSONText.appendString(episode.title, to: &out)
            out += ",\"url\":"
            JSONText.appendString(episode.enclosure.url, to: &out)
            out += ",\"type\":"
            JSONText.appendString(episode.enclosure.type, to: &out)
            out += ",\"length\":" + (episode.enclosure.length.map { String($0) } ?? "null")
            out += ",\"downloaded\":\(episode.isDownloaded),\"file\":"
            JSONText.appendString(episode.isDownloaded ? episode.enclosure.file : nil, to: &out)
            out += "}"
        }
        return out + (episodes.isEmpty ? "]\n" : "\n]\n")
    }
}

/// `zeader podcasts download [--jobs N]`.
/// Downloads the queued episodes not downloaded yet.
struct PodcastsDownload {
    var jobs: Int?
    var store: StoreOptions

    func run() async throws {
        let config = try ReaderConfig.loadOrExit(command: "podcasts download")
        let jobs = jobs ?? config.podcasts.maxDownloads ?? 2
        let library = FeedLibrary(store: try store.openStore(command: "podcasts download", writes: true))
        let downloader = PodcastDownloader(library: library, settings: config.podcasts, version: zeaderVersion, jobs: jobs)
        let onTerminal = isatty(STDERR_FILENO) == 1
        let lastDraw = Mutex(ContinuousClock.now - .seconds(1))
        let report: PodcastDownloader.Report
        do {
            report = try await downloader.downloadQueued(jobs: jobs) { event in
                switch event {
                case .started(let episode, let file):
                    CommandOutput.warn(
                        "downloading \(TerminalText.line(episode.title ?? episode.id)) to \(TerminalText.line(file))")
                case .progress(let episode, let progress):
                    guard onTerminal else { return }
                    let now = ContinuousClock.now
                    guard
                        lastDraw.withLock({ last in
                            guard now - last >= .milliseconds(200) else { return false }
                            last = now
                            return true
                        })
                    else { return }
                    let total = progress.total.map { " of " + ByteCount.text($0) } ?? ""
                    let title = String(TerminalText.line(episode.title ?? episode.id).prefix(40))
                    FileHandle.standardError.write(
                        Data("\r\u{1B}[K\(title): \(ByteCount.text(progress.received))\(total)".utf8))
                case .finished(let episode, _, let bytes, let resumedFrom):
                    if onTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                    let resumed = resumedFrom > 0 ? ", resumed at \(ByteCount.text(resumedFrom))" : ""
                    CommandOutput.warn(
                        "downloaded \(TerminalText.line(episode.title ?? episode.id)) (\(ByteCount.text(bytes))\(resumed))"
                    )
                case .failed(_, let message):
                    if onTerminal { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
                    CommandOutput.warn("zeader podcasts download: \(TerminalText.line(message))")
                }
            }
        } catch {
            throw CommandOutput.fail("podcasts download", error)
        }
        CommandOutput.write(
            "\(report.downloaded) downloaded (\(ByteCount.text(report.bytes))), \(report.failed) failed\n")
        if report.failed > 0 { throw ExitCode.failure }
    }
}
