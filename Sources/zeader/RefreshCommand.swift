import ArgumentParser
import Foundation
import ObjectGraph
import Synchronization
import ZeaderConfig
import ZeaderKit

/// `zeader refresh [--jobs N] [FEED…]`: fetches feeds and stores their new items.
///
/// A progress bar on stderr when it is a terminal, one line per failed feed on stderr, one
/// summary line on stdout. Exit status 0 when every feed went well, 1 when any failed.
///
/// ```sh
/// zeader refresh --jobs 16 || echo "some feeds failed"
/// ```
struct RefreshCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Fetch feeds and store their new items.",
        discussion: """
            Without FEED, every enabled feed is refreshed. With a sync account, it is a sync (the server fetches \
            the feeds); when the sync fails, the feeds it does not cover are still refreshed here. Exit status 1 \
            when any feed or the sync failed.
            """)

    @Option(name: [.short, .long], help: ArgumentHelp("Feeds fetched at once (1-64).", valueName: "N"))
    var jobs = 8

    @Argument(help: ArgumentHelp("Only these feeds (their URLs); a disabled feed named here is retried.", valueName: "FEED"))
    var feeds: [String] = []

    @Flag(help: "Only the feeds whose reload-interval has passed since their last refresh (for cron).")
    var due = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        guard (1...64).contains(jobs) else { throw ValidationError("--jobs must be between 1 and 64, not \(jobs)") }
    }

    func run() async throws {
        let config = try ReaderConfig.loadOrExit(command: "refresh")
        let store = try self.store.openStore(command: "refresh", writes: true)
        let folderSync = FolderSyncCommand.refreshRun(store, before: nil)
        defer { FolderSyncCommand.refreshRun(store, before: folderSync) }
        // With an account the server fetches the feeds; if it cannot be reached, the feeds
        // it does not cover are still fetched here, and the exit status says the sync failed.
        var only: [ObjectID]?
        if feeds.isEmpty {
            switch try await SyncCommand.refreshThroughSync(store, config: config) {
            case .noAccount: break
            case .synced: return
            case .failed(let local):
                if local.isEmpty { throw ExitCode.failure }
                only = local
            }
        }
        var options = config.refreshOptions(RefreshOptions(jobs: jobs))
        options.ignoreRules = config.ignoreRules  // the config's killfile
        options.itemRules = config.itemRules
        options.retention = config.retention
        options.fullArticleScopes = config.fullArticleScopes
        options.articleSelectors = config.articleSelectors
        options.alwaysDownload = config.alwaysDownload
        options.feedSettings = config.feedSettings
        options.dueOnly = due
        let refresher = FeedRefresher(store: store, options: options)
        let drawsProgress = isatty(STDERR_FILENO) == 1
        let lastDraw = Mutex(ContinuousClock.now - .seconds(1))
        let columns = Self.terminalColumns()
        let summary: RefreshSummary
        do {
            let progress: @Sendable (RefreshEvent) -> Void = { event in
                guard drawsProgress else { return }
                let now = ContinuousClock.now
                let due = lastDraw.withLock { last in
                    guard now - last >= .milliseconds(50) || event.progress.completed == event.progress.total else {
                        return false
                    }
                    last = now
                    return true
                }
                if due { FileHandle.standardError.write(Data(ProgressBar.render(event.progress, columns: columns).utf8)) }
            }
            if let only {
                summary = try await refresher.refresh(servers: only, progress: progress)
            } else {
                summary = try await refresher.refresh(urls: feeds, progress: progress)
            }
        } catch {
            throw CommandOutput.fail("refresh", error)
        }
        if drawsProgress { FileHandle.standardError.write(Data(ProgressBar.clear.utf8)) }
        for failure in summary.failures {
            if let problem = failure.problem { CommandOutput.warn("zeader refresh: \(TerminalText.line(problem))") }
        }
        for result in summary.results {
            if let target = result.movedTo {
                CommandOutput.warn("zeader refresh: \(TerminalText.line(Messages.moved(url: result.url, to: target)))")
            }
        }
        await RuleEffects.report(summary.results.flatMap(\.firings), command: "refresh", config: config)
        CommandOutput.write(summary.line + "\n")
        if let path = config.behaviour.errorLog {
            do { try ErrorLog.append(summary, to: path) } catch { CommandOutput.warn("zeader refresh: \(error)") }
        }
        let feeds = (try? FeedLibrary(store: store).servers()) ?? []
        if let message = config.notify.message(
            NotifyCounts(summary, unreadPerFeed: feeds.map(\.unread), quiet: config.quietFeeds(feeds)))
        {
            // The bell and the window's title go to the terminal the command runs in, if any.
            let signals = config.notify.terminalSignals(for: message)
            if !signals.isEmpty, isatty(STDERR_FILENO) == 1 { FileHandle.standardError.write(Data(signals.utf8)) }
            if let problem = await RefreshNotifier.notify(configured: config.articleCommands.notifyProgram, message: message) {
                CommandOutput.warn("zeader refresh: \(TerminalText.line(problem.description))")
            }
        }
        if !summary.failures.isEmpty || only != nil { throw ExitCode.failure }
    }

    private static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
