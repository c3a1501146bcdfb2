import Dispatch
import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// What the reader's podcast queue knows besides the store: this session's downloads (their
/// progress, a failure, a cancel), the episodes played or marked finished, and podboat's
/// automatic download with its number of downloads at a time.
struct PodcastDownloads {
    /// One episode's download or playing in this session.
    enum State: Equatable {
        case downloading(received: Int64, total: Int64?, started: Date, startBytes: Int64, bytesPerSecond: Double)
        case failed(String)
        case canceled
        case played
        case finished
    }

    var states: [ObjectID: State] = [:]
    /// The running downloads, to cancel (pb-cancel).
    var tasks: [ObjectID: Task<Void, Never>] = [:]
    /// The queue as listed, in the rows' order.
    var episodes: [PodcastEpisode] = []
    /// podboat's automatic download (pb-toggle-download-all).
    var automatic = false
    var maxDownloads = 1

    var inProgress: Int {
        states.values.filter { if case .downloading = $0 { true } else { false } }.count
    }
}

/// podboat's view in the reader: the podcast queue (`P`, or the `podcasts` action), one row
/// per episode in `podlist-format`, with podboat's actions on the episode selected (keys of
/// the `podboat` view of bind-key). Downloads run as tasks through the one downloader
/// (``PodcastDownloader``), into download-path; the player runs as the other programs do.
extension ReaderApp {
    /// Opens the queue.
    func showPodcasts() {
        if state.screen == .picker, state.picker?.kind == .podcasts { return notHere(.podcasts) }
        if podcastDownloads.episodes.isEmpty, podcastDownloads.states.isEmpty {
            podcastDownloads.maxDownloads = config.podcasts.maxDownloads ?? 1
        }
        state.stack.append(.picker(PickerState(kind: .podcasts, title: "", entries: [], values: [])))
        reloadPodcastQueue()
    }

    /// Rebuilds the queue's rows and title from the store and this session's downloads.
    func reloadPodcastQueue() {
        guard var picker = state.picker, picker.kind == .podcasts else { return }
        let episodes: [PodcastEpisode]
        do { episodes = try model.podcastEpisodes() } catch {
            return state.say(.failed("\(error)"))
        }
        podcastDownloads.episodes = episodes
        picker.entries = episodes.enumerated().map { index, episode in
            PodcastRows.line(podcastRow(episode), index: index, format: config.formats.podList, width: state.width)
        }
        picker.values = episodes.map(\.id)
        picker.title = PodcastMessage.queueTitle(
            inProgress: podcastDownloads.inProgress, total: episodes.count, automatic: podcastDownloads.automatic,
            maxDownloads: podcastDownloads.maxDownloads)
        picker.position.set(picker.position.cursor, count: episodes.count, height: state.listHeight)
        state.picker = picker
    }

    /// A pb- action: on the queue's selected episode, or a word that it works in the queue.
    func onPodcasts(_ action: Action) {
        guard state.screen == .picker, state.picker?.kind == .podcasts else { return notHere(action) }
        // The store may have changed since the rows were made (a download, another process).
        reloadPodcastQueue()
        guard let picker = state.picker else { return }
        let episodes = podcastDownloads.episodes
        let selected = episodes.indices.contains(picker.position.cursor) ? episodes[picker.position.cursor] : nil
        switch action {
        case .pbToggleDownloadAll:
            podcastDownloads.automatic.toggle()
            state.say(.reader(.podcast(.automaticDownload(podcastDownloads.automatic, at: podcastDownloads.maxDownloads))))
            startAutomaticDownloads()
        case .pbIncreaseMaxDownloads, .pbDecreaseMaxDownloads:
            let step = action == .pbIncreaseMaxDownloads ? 1 : -1
            podcastDownloads.maxDownloads = min(16, max(1, podcastDownloads.maxDownloads + step))
            state.say(.reader(.podcast(.maxDownloads(podcastDownloads.maxDownloads))))
            startAutomaticDownloads()
        case .pbPurge: purgeFinishedEpisodes()
        default:
            guard let selected else { return state.say(.reader(.podcast(.queueEmpty))) }
            onEpisode(action, selected)
        }
        reloadPodcastQueue()
    }

    /// The actions on one episode.
    private func onEpisode(_ action: Action, _ episode: PodcastEpisode) {
        let title = DisplayWidth.sanitizeForTerminal(episode.title ?? episode.id)
        let current = podcastDownloads.states[episode.objectID]
        var isDownloading = false
        if case .downloading = current { isDownloading = true }
        switch action {
        case .pbDownload:
            if isDownloading { return state.say(.reader(.podcast(.alreadyDownloading(title)))) }
            if episode.isDownloaded { return state.say(.reader(.podcast(.alreadyDownloaded(title)))) }
            startDownload(episode)
        case .pbCancel:
            guard isDownloading else { return state.say(.reader(.podcast(.notDownloading(title)))) }
            podcastDownloads.states[episode.objectID] = .canceled
            podcastDownloads.tasks[episode.objectID]?.cancel()
            state.say(.reader(.podcast(.canceled(title))))
        case .pbDelete:
            if isDownloading { return state.say(.reader(.podcast(.cancelFirst(title)))) }
            deleteEpisodes([episode])
            state.say(.reader(.podcast(.removed(title))))
        case .pbPlay: playEpisode(episode, title: title)
        case .pbMarkAsFinished:
            guard current == .played else { return state.say(.reader(.podcast(.notPlayed(title)))) }
            podcastDownloads.states[episode.objectID] = .finished
        default: notHere(action)
        }
    }

    /// The row's values for `podlist-format`.
    private func podcastRow(_ episode: PodcastEpisode) -> PodcastRow {
        let length = episode.enclosure.length ?? 0
        var row = PodcastRow(
            status: episode.isDownloaded ? .ready : .queued, received: 0, total: length, bytesPerSecond: 0,
            url: episode.enclosure.url, file: episode.enclosure.file ?? "")
        if episode.isDownloaded, let file = episode.enclosure.file {
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? nil
            row.received = size ?? length
            row.total = max(length, row.received)
        }
        switch podcastDownloads.states[episode.objectID] {
        case .downloading(let received, let total, _, _, let speed)?:
            row.status = .downloading
            row.received = received
            row.total = total ?? length
            row.bytesPerSecond = speed
        case .failed?: row.status = .failed
        case .canceled?: row.status = episode.isDownloaded ? .ready : .canceled
        case .played?: row.status = .played
        case .finished?: row.status = .finished
        case nil: break
        }
        return row
    }

    // MARK: Downloading

    /// Downloads `episode` in the background; its events come back on `queue`.
    private func startDownload(_ episode: PodcastEpisode) {
        let id = episode.objectID
        podcastDownloads.states[id] = .downloading(
            received: 0, total: episode.enclosure.length, started: Date(), startBytes: 0, bytesPerSecond: 0)
        let downloader = PodcastDownloader(
            library: FeedLibrary(store: model.store), settings: config.podcasts, version: zeaderVersion, jobs: 1)
        effects.task { [self] in
            let work = Task {
                _ = await downloader.download([episode], jobs: 1) { [self] event in
                    queue.async { [self] in podcastEvent(event) }
                }
            }
            queue.async { [self] in
                // A cancel pressed before the task was known.
                if podcastDownloads.states[id] == .canceled { work.cancel() }
                podcastDownloads.tasks[id] = work
            }
            await work.value
            queue.async { [self] in
                podcastDownloads.tasks[id] = nil
                if case .downloading = podcastDownloads.states[id] { podcastDownloads.states[id] = nil }
                startAutomaticDownloads()
                reloadPodcastQueue()
                redraw()
            }
        }
    }

    /// One download's event, on `queue`.
    private func podcastEvent(_ event: PodcastDownloader.Event) {
        switch event {
        case .started: break
        case .progress(let episode, let progress):
            guard
                case .downloading(_, _, let started, var startBytes, _) = podcastDownloads.states[episode.objectID]
            else { break }
            if startBytes == 0 { startBytes = progress.received }
            let seconds = Date().timeIntervalSince(started)
            let speed = seconds > 0 ? Double(progress.received - startBytes) / seconds : 0
            podcastDownloads.states[episode.objectID] = .downloading(
                received: progress.received, total: progress.total, started: started, startBytes: startBytes,
                bytesPerSecond: max(0, speed))
        case .finished(let episode, _, _, _):
            podcastDownloads.states[episode.objectID] = nil
            state.say(.reader(.podcast(.downloaded(DisplayWidth.sanitizeForTerminal(episode.title ?? episode.id)))))
        case .failed(let episode, let message):
            // A cancel ends the transfer with an error of its own: the cancel is what is shown.
            guard podcastDownloads.states[episode.objectID] != .canceled else { break }
            podcastDownloads.states[episode.objectID] = .failed(message)
            state.say(
                .reader(
                    .podcast(
                        .downloadFailed(
                            DisplayWidth.sanitizeForTerminal(episode.title ?? episode.id),
                            DisplayWidth.sanitizeForTerminal(message)))))
        }
        reloadPodcastQueue()
        redraw()
    }

    /// With automatic download on, starts queued episodes until max-downloads run.
    func startAutomaticDownloads() {
        guard podcastDownloads.automatic else { return }
        for episode in podcastDownloads.episodes
        where podcastDownloads.inProgress < podcastDownloads.maxDownloads && !episode.isDownloaded
            && podcastDownloads.states[episode.objectID] == nil
        {
            startDownload(episode)
        }
    }

    // MARK: Deleting and playing

    /// Takes episodes out of the queue (one undo step); with delete-played-files, their files
    /// inside download-path go too, as podboat's.
    private func deleteEpisodes(_ episodes: [PodcastEpisode]) {
        attempt { _ = try model.dequeue(episodes.map(\.objectID)) }
        for episode in episodes { podcastDownloads.states[episode.objectID] = nil }
        guard config.podcasts.deletePlayedFiles else { return }
        let root = config.podcasts.downloadRoot()
        for episode in episodes {
            guard let file = episode.enclosure.file, case .success(let path) = PodboatQueue.resolve(file, in: root) else {
                continue
            }
            do { try FileManager.default.removeItem(atPath: path) } catch {
                state.say(.reader(.podcast(.cannotDeleteFile(path, error.localizedDescription))))
            }
        }
    }

    /// pb-purge: the finished episodes leave the queue.
    private func purgeFinishedEpisodes() {
        guard podcastDownloads.inProgress == 0 else { return state.say(.reader(.podcast(.downloadsRunning))) }
        let finished = podcastDownloads.episodes.filter { podcastDownloads.states[$0.objectID] == .finished }
        if !finished.isEmpty { deleteEpisodes(finished) }
        state.say(.reader(.podcast(.purged(finished.count))))
    }

    /// pb-play (and ENTER): the player on the downloaded file.
    private func playEpisode(_ episode: PodcastEpisode, title: String) {
        guard episode.isDownloaded else { return state.say(.reader(.podcast(.notDownloaded(title)))) }
        let argv: [String]
        do { argv = try PodcastPlayer.command(for: episode, player: config.podcasts.player) } catch {
            return state.say(.failed(error.description))
        }
        let program = ProgramRun(argv: argv, purpose: .player(file: argv.last ?? ""))
        let result = effects.run(program, backend: backend)
        if case .success = result { podcastDownloads.states[episode.objectID] = .played }
        state.say(ArticleCommands.outcome(program, result))
    }
}
