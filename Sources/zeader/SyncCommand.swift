import ArgumentParser
import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// `zeader sync [add API_URL --user NAME [--service fever] | status [--json] | remove [--force] | login]`:
/// two-way sync through a Google Reader API server (FreshRSS, Miniflux, Inoreader, The Old Reader…) or
/// a Fever API one.
///
/// ```sh
/// ZEADER_SYNC_PASSWORD=… zeader sync add https://rss.example.org/api/greader.php --user alice
/// zeader sync            # push local changes, pull the server's
/// zeader sync status --json
/// ```
struct SyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract:
            "Sync feeds, read and flagged states through a Google Reader API, Fever API or Tiny Tiny RSS server, "
            + "or a shared folder.",
        usage: """
            zeader sync [--account <name>] [--upload | --detach | --accept-removals] [--db <PATH>]
            zeader sync add <api-url> --user <name> [--name <name>] [--service greader|fever|ttrss] [--password-command <cmd>]
            zeader sync status [--account <name>] [--json]
            zeader sync login [--account <name>] [--password-command <cmd>]
            zeader sync move <feed-url> <account>|local
            zeader sync move --all-local <account>
            zeader sync remove [<account>] [--force]
            zeader sync add folder:<path>
            zeader sync status folder [--json]
            zeader sync remove folder
            zeader sync --account folder
            """,
        discussion: """
            A store holds local feeds (refreshed here) and any number of accounts, each named (--name with \
            add; by default the server's host) and each feed in one of them. `add` adds an account and leaves \
            the local feeds local (one line says how many); `move FEED ACCOUNT` puts a feed in an account \
            (queued for subscription there), `move --all-local ACCOUNT` every local http(s) feed, `move FEED \
            local` takes one out (queued for removal there). Without an action, syncs every \
            account one after the other, then the sync folder if there is one (--account NAME: that account \
            only; --account folder: the folder only): an account or folder that fails (server away, login \
            refused, folder missing) is named on stderr and the others sync all the same; the exit status is 1 \
            when any failed. For each account it pushes the changes made here (read, unread, flag, unflag, add, remove, tags, item tags) and \
            pulls the server's (feeds, tags, new items, read and starred states). A change made here and not yet \
            pushed wins over the server's state; everything else takes the server's. The password comes from \
            $ZEADER_SYNC_PASSWORD, else the first line printed by --password-command, else a prompt on the \
            terminal; only the login token is kept, in <store>.sync.NAME (mode 0600), never printed. `login` logs in again \
            (a new password, or a token the server no longer accepts), keeping the changes not yet pushed; \
            `add` with the account's own URL and user does the same. `remove` refuses while changes made \
            here are not pushed (it says how many); --force drops them. Requests that carry the login \
            follow a redirect only within the server's own origin. A sync that would remove at least two of \
            the feeds this device synced, and more than half of them (the server no longer lists them: an \
            account reset or recreated empty), stops before changing anything and says so; then --upload \
            subscribes the account to them again, --detach keeps them here as local feeds no longer synced, \
            --accept-removals removes them here too. So does a sync whose server gives most of those feeds' ids \
            to other feeds (the URL decides which feed an id is; a feed whose id names another is kept here as a \
            local one). Every tag of a feed is a label; a pull removes a tag only when the server held it at the \
            last sync, and the feed order is not synced. An item's own tags are labels on the item: each \
            one added or removed here is pushed, a new item pulled takes its labels (not its feed's folder). A command or file feed is never sent to the server; \
            one the server refuses stays a local feed (`list` marks it [local]), refreshed here by \
            `zeader refresh`. The protocol is the Google Reader API unless the URL ends in fever.php or \
            --service fever says so. Fever syncs items, read, unread, starred and the server's feeds and \
            groups (as tags), but cannot subscribe, unsubscribe, rename, file feeds in folders or tag items: such a \
            change made here is refused with one line naming the service (exit status 1) and stays here; \
            a feed removed here comes back at the next sync unless it is removed on the server too. \
            Tiny Tiny RSS (a URL ending in /api/, or --service ttrss) syncs items, states, subscribe and \
            unsubscribe, and pulls categories as tags; it cannot rename feeds, file them in categories or tag items \
            (refused in one line, as Fever's). Its API has no lasting token: the session is kept with the \
            user name and password, to log in again when the session expires (use a TT-RSS app password). \
            Exit status 1 when the sync failed; what was not pushed stays queued. \
            `add folder:PATH` syncs without a server, through a folder the devices share (Syncthing, Dropbox, \
            git): each device appends its changes (feeds, titles, tags, read, flagged, deleted, smart feeds, \
            ignore rules) to files of its own under PATH/zeader-sync/ and applies the others'; the later change \
            wins, a tag stays while one addition of it is unseen by a removal, a deletion is final; a feed's \
            move (a 301 a refresh followed) is sent, so the other devices' feed and its marks follow it. A \
            login in a feed's URL never goes to the folder: the others get the URL without it, and their \
            `sync status` says the feed needs a login there. Another device's command or file feed is refused \
            and named by `sync status`. `refresh` syncs the folder too.
            """)

    @Argument(help: ArgumentHelp("add, status, login, move or remove; none: sync now.", valueName: "action"))
    var action: String?

    @Argument(
        help: ArgumentHelp(
            "With add: the server's Google Reader API, Fever API or Tiny Tiny RSS API URL; with move: the feed's URL; with remove: the account.",
            valueName: "api-url"))
    var apiURL: String?

    @Argument(help: ArgumentHelp("With move: the account's name, or local.", valueName: "account"))
    var target: String?

    @Option(help: ArgumentHelp("With add: the account's name (by default the server's host).", valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("Sync, show or log in only the account named so (folder: the sync folder).", valueName: "name"))
    var account: String?

    @Option(help: ArgumentHelp("The user name on the server (with add).", valueName: "name"))
    var user: String?

    @Option(
        help: ArgumentHelp(
            "With add: the protocol, greader (the Google Reader API), fever or ttrss (Tiny Tiny RSS); by default fever for a URL ending in fever.php, ttrss for one ending in /api/, else greader.",
            valueName: "name"))
    var service: String?

    @Option(help: ArgumentHelp("A command whose first output line is the password.", valueName: "cmd"))
    var passwordCommand: String?

    @Flag(
        help:
            "With status: print one JSON array of {\"name\",\"url\",\"user\",\"lastSync\",\"pending\",\"service\"}, one object with --account."
    )
    var json = false

    @Flag(help: "With move: move every local http(s) feed into the account named (sync move --all-local ACCOUNT).")
    var allLocal = false

    @Flag(help: "With remove: remove the account even with changes not yet pushed (they are dropped).")
    var force = false

    @Flag(help: "When the server no longer lists most of this device's synced feeds: subscribe the account to them again.")
    var upload = false

    @Flag(help: "When the server no longer lists most of this device's synced feeds: keep them as local feeds.")
    var detach = false

    @Flag(help: "When the server no longer lists most of this device's synced feeds: remove them here too.")
    var acceptRemovals = false

    @OptionGroup var store: StoreOptions

    func validate() throws {
        if FolderSyncCommand.names(action: action, argument: apiURL, account: account) {
            guard user == nil, service == nil, passwordCommand == nil, !force, !upload, !detach, !acceptRemovals else {
                throw ValidationError("a sync folder takes no --user, --service, --password-command or other flag")
            }
            if json && action != "status" { throw ValidationError("--json goes with sync status") }
            if name != nil { throw ValidationError("--name goes with sync add") }
            if allLocal { throw ValidationError("--all-local goes with sync move") }
            return
        }
        if account?.lowercased() == FolderSyncCommand.name {
            throw ValidationError("--account folder goes with sync, sync status or sync remove")
        }
        switch action {
        case nil:
            break
        case "add":
            guard apiURL != nil else { throw ValidationError("sync add needs the server's API URL") }
            guard let user, !user.isEmpty else { throw ValidationError("sync add needs --user NAME") }
        case "status", "login":
            if let apiURL { throw ValidationError("unexpected argument '\(apiURL)'") }
        case "remove":
            if let target { throw ValidationError("unexpected argument '\(target)'") }
            if apiURL != nil, account != nil { throw ValidationError("name the account once: sync remove NAME") }
        case "move" where allLocal:
            guard apiURL != nil else { throw ValidationError("sync move --all-local needs ACCOUNT") }
            if let target { throw ValidationError("unexpected argument '\(target)' (sync move --all-local ACCOUNT)") }
        case "move":
            guard apiURL != nil, target != nil else { throw ValidationError("sync move needs FEED_URL and ACCOUNT (or local)") }
        case let other?:
            throw ValidationError("unknown sync action '\(other)' (expected add, status, login, move or remove)")
        }
        if let target, action != "move" { throw ValidationError("unexpected argument '\(target)'") }
        if name != nil && action != "add" { throw ValidationError("--name goes with sync add") }
        if account != nil && (action == "add" || action == "move") {
            throw ValidationError("--account goes with sync, status, login or remove")
        }
        if json && action != "status" { throw ValidationError("--json goes with sync status") }
        if user != nil && action != "add" { throw ValidationError("--user goes with sync add") }
        if service != nil && action != "add" { throw ValidationError("--service goes with sync add") }
        if allLocal && action != "move" { throw ValidationError("--all-local goes with sync move") }
        if force && action != "remove" { throw ValidationError("--force goes with sync remove") }
        let choices = [("--upload", upload), ("--detach", detach), ("--accept-removals", acceptRemovals)].filter(\.1)
        if choices.count > 1 { throw ValidationError("choose one of --upload, --detach and --accept-removals") }
        if let choice = choices.first, action != nil {
            throw ValidationError("\(choice.0) goes with a sync (zeader sync \(choice.0)), not sync \(action ?? "")")
        }
    }

    func run() async throws {
        if FolderSyncCommand.names(action: action, argument: apiURL, account: account) {
            let opened = try store.openStore(command: "sync", writes: action != "status")
            return try FolderSyncCommand.run(action: action, argument: apiURL, json: json, store: opened)
        }
        do {
            // A URL that cannot be the API is refused before a password is asked for.
            let kind = try serviceKind()
            if action == "add" {
                do throws(SyncError) { try GReaderClient.checkAPIURL(apiURL ?? "") } catch { throw ZeaderError.sync(error) }
                if let name, !SyncAccounts.isValidName(name) { throw ZeaderError.sync(.invalidAccountName(name)) }
            }
            // A login that fails leaves nothing behind, not even a new store.
            let token =
                action == "add"
                ? try await FeedSync.login(apiURL: apiURL ?? "", user: user ?? "", password: try password(), service: kind)
                : ""
            let config = action == nil ? try ReaderConfig.loadOrExit(command: "sync") : ReaderConfig()
            let opened = try store.openStore(command: "sync", writes: action != "status")
            // A store that syncs through a folder only: its status, its removal, its sync.
            if account == nil, action != "add" && action != "login" && action != "move",
                FolderSyncCommand.isFolderOnly(opened)
            {
                return try FolderSyncCommand.run(action: action, argument: nil, json: json, store: opened)
            }
            let chosen = action == "remove" ? apiURL ?? account : account
            let sync = FeedSync(store: opened, ignoreRules: config.ignoreRules, itemRules: config.itemRules, account: chosen)
            switch action {
            case "add":
                let what = try sync.addAccount(
                    apiURL: apiURL ?? "", user: user ?? "", token: token, service: kind, name: name, localFeeds: .keep)
                let account = "\(TerminalText.line(user ?? "")) at \(TerminalText.line(apiURL ?? ""))"
                switch what {
                case .added(let name):
                    CommandOutput.write("sync account \(name) added: \(account)\n")
                    let waiting = try FeedLibrary(store: opened).movableLocalFeedCount()
                    if waiting > 0 { CommandOutput.write(Messages.localFeedsStayLocal(count: waiting, account: name) + "\n") }
                case .loggedInAgain(let name):
                    CommandOutput.write("logged in again: \(name), \(account) (changes not yet pushed kept)\n")
                }
            case "move" where allLocal:
                let moved = try FeedLibrary(store: opened).moveAllLocal(toAccount: apiURL ?? "")
                CommandOutput.write(
                    "moved to \(TerminalText.line(apiURL ?? "")): \(moved.count) local feed\(moved.count == 1 ? "" : "s")\n")
            case "move":
                let feed = apiURL ?? ""
                let moved = try FeedLibrary(store: opened).move(feed: feed, toAccount: target)
                let place = target ?? SyncAccounts.localName
                CommandOutput.write(
                    moved ? "moved to \(place): \(TerminalText.line(RedactedURL.text(feed)))\n" : "already in \(place)\n")
            case "login":
                try await sync.renewLogin(password: try password())
                CommandOutput.write("logged in again\n")
            case "status":
                if account != nil {
                    guard let status = try sync.status() else { throw ZeaderError.sync(.noAccount) }
                    CommandOutput.write(Self.render(status, json: json))
                } else {
                    let all = try sync.statuses()
                    guard !all.isEmpty else { throw ZeaderError.sync(.noAccount) }
                    CommandOutput.write(Self.render(all, json: json))
                }
            case "remove":
                let dropped = try sync.removeAccount(force: force)
                let lost = dropped == 0 ? "" : ", \(dropped) change\(dropped == 1 ? "" : "s") not pushed dropped"
                CommandOutput.write("sync account removed (its feeds and items kept as local feeds\(lost))\n")
            default:
                // Every account, then the folder (so the marks the accounts pulled reach the
                // other devices); one failing does not stop the others.
                // A store that cannot say whether a folder is set up is reported by the folder's
                // own run below, not skipped.
                let withFolder = account == nil && (try? FolderSyncEngine(store: opened).settings()) != nil
                var synced = try await Self.syncAccounts(
                    opened, only: account, missingFeeds: missingFeeds, config: config, namesEach: withFolder)
                if account == nil { synced = FolderSyncCommand.syncAlongside(opened) && synced }
                if !synced { throw ExitCode.failure }
            }
        } catch let error as ZeaderError {
            throw CommandOutput.fail("sync", error)
        }
    }

    /// Syncs every account (or `only`), each one's lines prefixed with its name when the
    /// store has several (or `namesEach`: a folder syncs too); an account that fails is named
    /// on stderr and the next one syncs. Returns false when one failed or its server refused a feed.
    static func syncAccounts(
        _ store: ZeaderStore, only: String?, missingFeeds: FeedSync.MissingFeeds, config: ReaderConfig,
        command: String = "sync", localFeeds: Int? = nil, namesEach: Bool = false
    ) async throws(ZeaderError) -> Bool {
        let outcomes: [SyncAccounts.Outcome]
        do {
            outcomes = try await SyncAccounts.syncAll(store: store, only: only, missingFeeds: missingFeeds) { name in
                FeedSync(store: store, ignoreRules: config.ignoreRules, itemRules: config.itemRules, account: name)
            }
        } catch .sync(.noAccount) {
            throw .syncFailed(.sync(.noAccount), pending: 0, localFeeds: nil)
        }
        let named = outcomes.count > 1 || only != nil || namesEach
        var succeeded = true
        for outcome in outcomes {
            let prefix = named ? "\(outcome.name): " : ""
            switch outcome.result {
            case .success(let report):
                for line in report.refused + report.notStored {
                    CommandOutput.warn("zeader \(command): \(prefix)\(TerminalText.line(line))")
                }
                await RuleEffects.report(report.firings, command: command, config: config, store: store)
                CommandOutput.write(prefix + report.line + "\n")
                if !report.refused.isEmpty { succeeded = false }
            case .failure(let error):
                let pending = (try? FeedSync(store: store, account: outcome.name).status()?.pending) ?? 0
                let line = Messages.syncFailed(error.description, pending: pending, localFeeds: localFeeds)
                CommandOutput.warn("zeader \(command): \(prefix)\(TerminalText.line(line))")
                succeeded = false
            }
        }
        return succeeded
    }

    /// What to do with synced feeds the server no longer lists (``FeedSync/MissingFeeds``).
    var missingFeeds: FeedSync.MissingFeeds {
        upload ? .upload : detach ? .detach : acceptRemovals ? .remove : .stop
    }

    /// What `zeader refresh` does with a sync account.
    enum RefreshBySync {
        /// The store has no account: a plain refresh.
        case noAccount
        /// The sync ran (its lines printed), then a refresh here of the feeds it does not sync.
        case synced
        /// The sync failed (its line printed): `localFeeds`, the feeds it does not cover,
        /// are refreshed here all the same.
        case failed(localFeeds: [ObjectID])
    }

    /// With a sync account, `zeader refresh` is a sync (the server fetches the feeds), then a
    /// refresh here of the feeds the account does not sync (``FeedSync/localFeeds()``); exits 1
    /// when the server refused a feed or a local feed failed. The config gives the killfile and
    /// the rules that act.
    static func refreshThroughSync(_ store: ZeaderStore, config: ReaderConfig) async throws -> RefreshBySync {
        guard (try? FeedSync(store: store).hasAccount()) == true else { return .noAccount }
        let context = store.container.newBackgroundContext()
        let before = context.performAndWait { (try? SyncQueue.localFeeds(in: context)) ?? [] }
        let synced: Bool
        do {
            synced = try await syncAccounts(
                store, only: nil, missingFeeds: .stop, config: config, command: "refresh", localFeeds: before.count)
        } catch {
            throw CommandOutput.fail("refresh", error)
        }
        let local = context.performAndWait { (try? SyncQueue.localFeeds(in: context)) ?? [] }
        // An account that failed: the local feeds are refreshed all the same, by the caller.
        guard synced else { return .failed(localFeeds: local) }
        let summary: RefreshSummary?
        do {
            var options = RefreshOptions()
            options.ignoreRules = config.ignoreRules
            options.itemRules = config.itemRules
            // No feeds named would mean every feed: only ask when there are local ones.
            summary = local.isEmpty ? nil : try await FeedRefresher(store: store, options: options).refresh(servers: local)
        } catch {
            throw CommandOutput.fail("refresh", error)
        }
        for problem in summary?.failures.compactMap(\.problem) ?? [] {
            CommandOutput.warn("zeader refresh: \(TerminalText.line(problem))")
        }
        await RuleEffects.report(summary?.results.flatMap(\.firings) ?? [], command: "refresh", config: config)
        if let summary { CommandOutput.write("local feeds: " + summary.line + "\n") }
        if summary?.failures.isEmpty == false { throw ExitCode.failure }
        return .synced
    }

    /// `--service` as a protocol (any case), nil when not given.
    private func serviceKind() throws(ZeaderError) -> SyncServiceKind? {
        guard let service else { return nil }
        let name = service.trimmingCharacters(in: .whitespaces).lowercased()
        guard let kind = SyncServiceKind(rawValue: name) else { throw .sync(.unknownService(service)) }
        return kind
    }

    /// `$ZEADER_SYNC_PASSWORD`, else `--password-command`'s first line, else a prompt.
    private func password() throws(ZeaderError) -> String {
        if let value = ProcessInfo.processInfo.environment["ZEADER_SYNC_PASSWORD"], !value.isEmpty { return value }
        if let passwordCommand { return try PasswordInput.firstLine(of: passwordCommand) }
        return try PasswordInput.prompt("Password for the sync server: ")
    }

    /// Every account: a JSON array of ``render(_:json:)``'s objects, else their text one after another.
    static func render(_ statuses: [FeedSync.Status], json: Bool) -> String {
        guard json else { return statuses.map { render($0, json: false) }.joined(separator: "\n") }
        let objects = statuses.map { render($0, json: true).trimmingCharacters(in: .newlines) }
        return "[" + objects.joined(separator: ",") + "]\n"
    }

    static func render(_ status: FeedSync.Status, json: Bool) -> String {
        let lastSync = status.lastSync.map(JSONText.timestamp)
        if json {
            var out = "{\"name\":"
            JSONText.appendString(status.name, to: &out)
            out += ",\"url\":"
            JSONText.appendString(status.apiURL, to: &out)
            out += ",\"user\":"
            JSONText.appendString(status.user, to: &out)
            out += ",\"lastSync\":"
            JSONText.appendDate(status.lastSync, to: &out)
            return out + ",\"pending\":\(status.pending),\"service\":\"\(status.service.rawValue)\"}\n"
        }
        return "\(TerminalText.line(status.name)): \(TerminalText.line(status.user)) at \(TerminalText.line(status.apiURL)) "
            + "(\(Messages.serviceName(status.service)))\n"
            + "last sync: \(lastSync ?? "never")\npending changes: \(status.pending)\n"
    }
}
