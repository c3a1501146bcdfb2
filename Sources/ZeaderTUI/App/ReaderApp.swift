import Dispatch
import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The reader: keys become actions, actions change ``AppState`` (through
/// ``ReaderModel`` for edits), and every change ends in one render of the pure views
/// into a buffer that the backend draws.
///
/// Everything runs on `queue`, the view context's queue: key handling, model changes
/// (ObjectsDidChange from merges of background and other-process saves), refresh
/// progress. Programs, tasks and timers are effects handed to ``effects``
/// (``ReaderEffects``): fetching a new feed, refreshing and pushing run as tasks that
/// report back with `queue.async`; a program that takes the terminal (browser, editor,
/// pipe-to) holds the reader until it exits, as it holds the terminal.
///
/// ```swift
/// let app = ReaderApp(model: model, backend: TestBackend(width: 80, height: 24), config: config, queue: queue)
/// queue.sync { app.start(); app.handle(.character("j")) }
/// ```
// Unchecked sendability is sound: every property is used only on `queue` (a serial queue); the
// closures that cross threads (observers, tasks) hop onto it with `queue.async` first.
public final class ReaderApp: @unchecked Sendable {
    public internal(set) var state: AppState
    let model: ReaderModel
    let backend: TerminalBackend
    let config: ReaderConfig
    let queue: DispatchQueue
    let refresher: ReaderRefresher?
    let fetcher: FeedFetcher?
    private var observation: ObservationToken?
    private var otherProcessObservation: ObservationToken?
    var modelChanged = false
    var itemsChanged = false
    private var redrawScheduled = false
    private var smartCountsScheduled = false
    /// Runs the programs, tasks and timers the update asks for (``ReaderEffects``).
    let effects: any ReaderEffects
    private var refreshTimer: EffectTimer?
    /// Syncs with the account every `sync-interval` (``ReaderConfig/syncIntervalSeconds``).
    var syncTimer: EffectTimer?
    /// The push waiting for the edits to pause (ReaderApp+Sync.swift).
    var pushWork: EffectTimer?
    /// Seconds after the last edit before its change is pushed.
    var pushDelay: TimeInterval = 3
    /// Seconds quitting waits for a push before it gives up and keeps the changes.
    var quitPushTimeout: TimeInterval = 5
    /// A push (not a whole sync) is running; one sync or push of the store at a time.
    var pushRunning = false
    /// An edit's push came while a sync or push ran: pushed once it ends.
    var pushWanted = false
    /// A refresh the user asked for while a push ran: started once it ends.
    var queuedRefresh: [ObjectID]?
    /// Quitting waits for the running sync and the push of the changes made here.
    var quitting = false
    var quitPushTried = false
    var quitDeadline: EffectTimer?
    /// Why the last push failed, for the line printed after quitting.
    var lastPushError: String?
    /// The line to print on standard error once the terminal is restored (changes a quit
    /// could not push), or nil:
    /// `if let line = app.quitNotice { FileHandle.standardError.write(Data("zeader: \(line)\n".utf8)) }`.
    public internal(set) var quitNotice: String?
    /// The add-feed preview (a scratch context) until the user decides.
    private var preview: FeedPreview?
    /// The feeds the last page added names, while the user chooses one by number.
    private var discoveredFeeds: [DiscoveredFeed] = []
    /// The browser links open with: the config's, until a `set browser` (a macro, `:set`).
    var browser: String?
    /// The podcast queue's downloads and plays (ReaderApp+Podcasts.swift).
    var podcastDownloads = PodcastDownloads()
    /// The searches and command lines typed, for Up and Down in their prompts (`history-limit`).
    lazy var promptHistory = PromptHistory(
        limit: config.behaviour.historyLimit, folder: config.viewStateURL?.deletingLastPathComponent())
    /// The last mouse press, to tell a double click (ReaderApp+Mouse.swift).
    var lastClick: MouseClick?
    /// The article's pictures: how they are drawn, the loaded ones (ReaderApp+Pictures.swift).
    public internal(set) lazy var pictures = ArticlePictures(config: config)
    /// Called when the user quits.
    public var onQuit: (() -> Void)?
    public internal(set) var hasQuit = false

    public init(
        model: ReaderModel, backend: TerminalBackend, config: ReaderConfig, queue: DispatchQueue,
        refresher: ReaderRefresher? = nil, fetcher: FeedFetcher? = nil, effects: any ReaderEffects = LiveEffects()
    ) {
        self.effects = effects
        self.model = model
        self.backend = backend
        self.config = config
        self.queue = queue
        self.refresher = refresher
        self.fetcher = fetcher
        state = AppState(width: backend.size.width, height: backend.size.height)
        state.colors = config.useColor
        state.highlights = config.paintedHighlights
        model.itemHighlights = ReaderModel.articleHighlightPredicates(config)
        state.formats = config.formats
        state.scrolling = config.scrolling
        state.views = config.views
        state.showsKeymapHint = config.behaviour.showKeymapHint
        browser = config.browser
    }

    /// Loads the feed list, starts watching the model, draws the first frame. On `queue`.
    public func start() {
        loadFirstFeedScreen()
        state.clampPositions()
        applyMouseSetting()
        if let first = config.warnings.first {
            state.say(.reader(.configWarning(first.description, more: config.warnings.count - 1)))
        }
        observation = model.store.container.bus.observeObjectsDidChange(in: model.context) { [weak self] note in
            // Runs on the view context's queue, which is `queue`.
            guard let self else { return }
            self.modelChanged = true
            // The open list keeps its items through this reader's own edits (a read item stays in an
            // unread-only list, so the cursor and `n` never skip); merges and inserts/deletes reload it.
            if note.isMerge || (note.inserted + note.deleted).contains(where: { $0.entity.name == "FeedItem" }) {
                self.itemsChanged = true
            }
            self.scheduleRedraw()
        }
        // Another process's commit may touch nothing this context has registered (a new
        // feed): reload after the view context has merged it (queued before this).
        // This reader's own saves (its batch updates too: mark feed or all read) are pushed
        // once they pause.
        let ownContext = ObjectIdentifier(model.context)
        otherProcessObservation = model.store.container.bus.observeDidSave { [weak self] note in
            guard let self else { return }
            if note.contextID == ownContext {
                self.queue.async { self.schedulePush() }
                return
            }
            guard note.isFromOtherProcess else { return }
            self.queue.async {
                self.modelChanged = true
                self.itemsChanged = true
                self.scheduleRedraw()
            }
        }
        if let minutes = refreshTimerMinutes(), refresher != nil {
            refreshTimer = backgroundRefreshTimer(seconds: min(minutes, ReaderConfig.longestIntervalSeconds / 60) * 60)
        }
        if config.syncIntervalSeconds > 0, refresher?.syncs == true {
            syncTimer = backgroundRefreshTimer(seconds: min(config.syncIntervalSeconds, ReaderConfig.longestIntervalSeconds))
        }
        if refresher?.refreshesOnStart == true || (refresher != nil && config.refreshesAtStart) { perform(.refreshAll) }
        runStartupSteps()  // run-on-startup (ReaderApp+Macros.swift)
        redraw()
        if state.feedSummary != nil { queue.async { [self] in completeFeedListAndRedraw() } }
    }

    /// Stops watching; the caller restores the terminal.
    public func stop() {
        observation?.cancel()
        observation = nil
        otherProcessObservation?.cancel()
        otherProcessObservation = nil
        refreshTimer?.cancel()
        refreshTimer = nil
        syncTimer?.cancel()
        syncTimer = nil
        pushWork?.cancel()
        pushWork = nil
    }

    private func scheduleRedraw() {
        guard !redrawScheduled else { return }
        redrawScheduled = true
        queue.async { [self] in
            redrawScheduled = false
            redraw()
        }
    }

    /// Brings the state up to date with the model if it changed, then renders and draws.
    public func redraw() {
        if modelChanged { reloadFromModel() }
        let size = backend.size
        if size.width != state.width || size.height != state.height {
            state.width = size.width
            state.height = size.height
            state.clampPositions()
        }
        loadRestOfItemListIfNear()
        prepareVisibleRows()
        backend.draw(ReaderView.render(state, keyMap: config.keyMap))
        drawArticlePictures()
    }

    /// Re-reads the feed rows (stored counts) and, when items came or went, the item list
    /// (keeping the cursor on the same item).
    func reloadFromModel() {
        modelChanged = false
        reloadPodcastQueue()  // when open (ReaderApp+Podcasts.swift)
        state.feedSummary = nil  // the whole list is read below
        let selected = state.selectedFeed
        do {
            // Subscriptions now (stored counts); smart feeds, whose counts may scan every
            // item, right after this frame is drawn.
            state.feeds = arrangedFeeds(try model.feedRows(countingSmartFeeds: false, previous: state.feeds))
            if state.feeds.contains(where: { $0.serverID == nil }) && !smartCountsScheduled {
                smartCountsScheduled = true
                queue.async { [self] in
                    smartCountsScheduled = false
                    if let rows = try? arrangedFeeds(model.feedRows()), rows != state.feeds {
                        state.feeds = rows
                        state.clampPositions()
                        redraw()
                    }
                }
            }
        } catch {
            state.say(.cannotReadFeeds("\(error)"))
        }
        if let selected, let index = state.feeds.firstIndex(where: { $0.kind == selected.kind }) {
            state.feedPosition.cursor = index
        }
        if itemsChanged, var list = state.items {
            itemsChanged = false
            let selectedID = list.selectedID
            if let (ids, complete) = try? model.itemPage(
                list.source, views: state.views, filter: list.filter, atLeast: list.position.cursor + 2 * state.listHeight)
            {
                list.ids = ids
                list.isComplete = complete
                if let selectedID, let index = ids.firstIndex(of: selectedID) { list.position.cursor = index }
            }
            state.items = list
        }
        state.items?.rows = [:]
        if let article = state.article, model.item(article.itemID) == nil {
            // The article's item was deleted (its feed removed elsewhere).
            state.stack.removeAll { $0.kind == .article }
        }
        state.clampPositions()
    }

    /// Loads the rows of the visible window of the item list, and renders the article at
    /// the current width.
    private func prepareVisibleRows() {
        if var list = state.items {
            let end = min(list.ids.count, list.position.top + state.listHeight)
            if list.position.top < end {
                for id in list.ids[list.position.top..<end] where list.rows[id] == nil {
                    list.rows[id] = model.itemRow(id)
                }
            }
            if list.rows.count > 4 * state.listHeight + 100 {
                let visible = Set(list.ids[list.position.top..<end])
                list.rows = list.rows.filter { visible.contains($0.key) }
            }
            state.items = list
        }
        if var article = state.article, article.renderedWidth != state.width {
            let width = state.formats.articleWidth(terminalColumns: state.width - 1)
            (article.lines, article.links, article.spans, article.pictures) = articleBodyWithPictures(
                article, width: max(10, width))
            article.renderedWidth = state.width
            state.article = article
        }
    }

    // MARK: Input

    /// Handles the keys the backend has, then redraws once; returns whether there were any.
    @discardableResult
    public func handleInput() -> Bool {
        let keys = backend.readKeys()
        guard !keys.isEmpty else { return false }
        for key in keys where !hasQuit { handle(key, draw: false) }
        if !hasQuit { redraw() }
        return true
    }

    /// Handles one key (and redraws unless `draw` is false).
    public func handle(_ key: Key, draw: Bool = true) {
        if case .mouse(let event) = key {
            handleMouse(event)
            if draw && !hasQuit { redraw() }
            return
        }
        // Quitting waits for a push: a key says not to wait (the changes stay queued).
        if quitting, key != .resize { return finishQuit() }
        completeFeedList()
        if key == .resize {
            backend.updateSize()
        } else if let prompt = state.prompt {
            handlePromptKey(key, prompt)
        } else if state.awaitingMacroKey {
            runMacro(key)
        } else if state.screen == .article, articleKey(key) {
            // taken by the article view (a link number)
        } else if let steps = config.keyMap.steps(for: key, in: state.keyView) {
            state.message = nil
            run(steps)  // newsboat's `bind KEY CONTEXT OP; OP…`
        } else if let action = pickerEnter(key) ?? config.keyMap.action(for: key, in: state.keyView) {
            state.message = nil
            perform(action)
        } else if key == .escape, state.screen != .feeds {
            perform(.quit)
        } else {
            state.say(.keyNotBound(key.name))
        }
        if draw && !hasQuit { redraw() }
    }

    /// ENTER picks in every list, whatever it is bound to.
    private func pickerEnter(_ key: Key) -> Action? {
        state.screen == .picker && key == .enter ? .open : nil
    }

    /// Runs a model edit, showing its error on the status line.
    func attempt(_ body: () throws -> Void) {
        do { try body() } catch { state.say(.failed("\(error)")) }
    }

    func showItems(_ source: ItemSource, title: String) {
        do {
            let (ids, complete) = try model.itemPage(source, views: state.views, filter: nil, atLeast: 0)
            var list = ItemListState(source: source, title: title, ids: ids)
            list.isComplete = complete
            state.stack = [.feeds, .items(list)]
            if config.behaviour.gotoFirstUnread { selectFirstUnread() }
            markHoveredItemRead()
        } catch {
            state.say(.cannotList(title: title, "\(error)"))
        }
    }

    func showArticle(_ id: ObjectID) {
        guard let article = model.article(id).map({ withDescription($0, id) }) else { return }
        state.pendingLinkNumber = ""
        if state.screen == .article { state.stack.removeLast() }
        state.stack.append(.article(article))
        highlightSearchedWords()
        attempt { try model.setRead(id, true) }
        if showInPager(article) { state.stack.removeLast() }  // pager (ReaderApp+ArticleViewers.swift)
        renderWithHTMLRenderer()
    }

    func back() {
        if state.stack.count > 1 {
            // The screen's state goes with it.
            if state.stack.removeLast().kind == .items {
                // The feed kept listed while open may hide now (hidden read feeds).
                modelChanged = true
            }
        } else {
            quitAsking()
        }
    }

    /// Quits; with a sync account, first pushes the changes made here (bounded by
    /// ``quitPushTimeout``; asked again, quits at once). See ReaderApp+Sync.swift.
    public func quit() {
        guard !hasQuit else { return }
        if quitting || refresher?.syncs != true {
            finishQuit()
            return
        }
        startQuitPush()
    }

    /// `C`: every item read, as one undo step.
    func markAllRead() {
        attempt { state.say(.markedItemsRead(try model.markRead(nil))) }
    }

    // MARK: Prompts

    /// Lists the items matching `text` in every feed.
    func search(_ text: String) {
        let started = Date()
        showItems(.search(text), title: "Search: \(text)")
        if let count = state.items?.ids.count {
            state.say(.searchMatches(count: count, milliseconds: Int(Date().timeIntervalSince(started) * 1000)))
        }
    }

    /// Lists the items matching `text` in one feed.
    func search(_ text: String, in server: ObjectID, title: String) {
        let started = Date()
        showItems(.feedSearch(text, server: server), title: "Search \(title): \(text)")
        if let count = state.items?.ids.count {
            state.say(.searchMatches(count: count, milliseconds: Int(Date().timeIntervalSince(started) * 1000)))
        }
    }

    /// The add-feed preview's answer: keep the feed (and push it) or discard it.
    func decidePreview(keep: Bool, title: String) {
        guard let preview else { return }
        self.preview = nil
        guard keep else {
            preview.discard()
            state.say(.discarded(title))
            return
        }
        do {
            try preview.keep()
            state.say(.added(title))
            // Saved from a scratch context: a merge here, so asked for explicitly.
            schedulePush()
        } catch {
            state.say(.cannotAdd(url: preview.url, "\(error)"))
        }
    }

    /// Fetches and parses `url` off the queue, then fills a scratch context and asks keep
    /// or discard (``FeedPreview``).
    func startPreview(url text: String) {
        let url: String
        let choice = Int(text.trimmingCharacters(in: .whitespaces)).flatMap {
            discoveredFeeds.indices.contains($0 - 1) ? $0 - 1 : nil
        }
        let typed = choice.map { discoveredFeeds[$0].url } ?? text
        if choice != nil, state.screen == .picker, state.picker?.kind == .discoveredFeeds { back() }
        discoveredFeeds = []
        do {
            url = try FeedSubscription.validatedURL(typed)
            if try FeedSubscription.isSubscribed(url, in: model.context) { throw ZeaderError.alreadySubscribed(url) }
        } catch {
            state.say(.failed("\(error)"))
            return
        }
        guard let fetcher else {
            state.say(.addingNotAvailable)
            return
        }
        state.say(.fetching(url))
        effects.task { [self] in
            let discovery = await FeedPreview.discover(url, with: fetcher)
            queue.async { [self] in
                switch discovery {
                case .fetched(let found, let input): showPreview(input, url: found)
                case .choose(let feeds):
                    discoveredFeeds = feeds
                    showDiscoveredFeeds(feeds, page: url)
                }
                redraw()
            }
        }
    }

    private func showPreview(_ input: FeedImporter.Input, url: String) {
        do {
            let preview = try FeedPreview(url: url, input: input, store: model.store)
            self.preview = preview
            state.message = nil
            state.prompt = .addFeedPreview(
                url: url, title: DisplayWidth.sanitizeForTerminal(preview.title), itemCount: preview.itemCount)
        } catch {
            state.say(.failed("\(error)"))
        }
    }

    // MARK: Refresh

    func refresh(_ servers: [ObjectID]) {
        guard let refresher else {
            state.say(.refreshNotAvailable)
            return
        }
        guard state.refreshProgress == nil else {
            state.say(.refreshRunning)
            return
        }
        guard !pushRunning else {
            // Started as soon as the push ends: one sync of the store at a time.
            // An empty list is every feed, and stays so.
            queuedRefresh = queuedRefresh.map { $0.isEmpty || servers.isEmpty ? [] : $0 + servers } ?? servers
            return
        }
        state.refreshProgress = (0, max(servers.count, 1))
        state.refreshIsSync = refresher.syncs
        effects.task { [self] in
            let outcome: Result<RefreshSummary, ZeaderError>
            do throws(ZeaderError) {
                outcome = .success(
                    try await refresher.refresh(servers: servers) { [self] event in
                        queue.async { [self] in
                            apply(event)
                            redraw()
                        }
                    })
            } catch {
                outcome = .failure(error)
            }
            queue.async { [self] in
                finishRefresh(outcome)
                redraw()
            }
        }
    }

    /// Shows a refresh event on the status line: progress, and a feed's problem.
    func apply(_ event: RefreshEvent) {
        state.refreshProgress = (event.progress.completed, event.progress.total)
        if case .failed(let result, _) = event, let problem = result.problem { state.say(.refreshProblem(problem)) }
    }

    /// Shows how the refresh ended.
    func finishRefresh(_ outcome: Result<RefreshSummary, ZeaderError>) {
        state.refreshProgress = nil
        state.refreshIsSync = false
        switch outcome {
        case .success(let summary):
            let ended =
                summary.sync.map(StatusMessage.synced)
                ?? .refreshed(summary.progress, firstProblem: summary.failures.first?.problem)
            if let problem = summary.folderSyncProblems.first {
                state.say(.withFolderSync(ended, problem: problem, more: summary.folderSyncProblems.count - 1))
            } else {
                state.say(ended)
            }
            applyRules(summary)  // rules that act (ReaderApp+Rules.swift)
            notifyNewItems(summary)  // notify-program (RefreshNotifier.swift)
        case .failure(let error): state.say(.cannotRefresh("\(error)"))
        }
        backgroundWorkEnded()
    }

    // MARK: Links

    func open(link: String) {
        let argv: [String]
        do { argv = try LinkOpener.command(for: link, browser: browser, throughShell: config.runThroughShell) } catch {
            state.say(.failed(error.description))
            return
        }
        let program = ProgramRun(argv: argv, purpose: .browser(link: link))
        state.say(ArticleCommands.outcome(program, effects.run(program, backend: backend)))
    }
}
