import Feeds
import Foundation
import ObjectGraph

// The words of every message ZeaderKit hands to a person, in one place: errors are data
// (``ZeaderError``, ``RefreshFailure``, ``FeedRefreshStatus``), this file turns them into
// one line each, as swift-argument-parser keeps `ParserError` apart from `MessageInfo`.
// The command line prefixes them with `zeader COMMAND: `; the reader shows them on its
// status line; `Server.lastError` stores a refresh's.

extension ZeaderError: CustomStringConvertible {
    /// Why a rule that acts cannot be read (``ItemRules/Problem``).
    static func rule(_ problem: ItemRules.Problem) -> String {
        switch problem {
        case .missingArrow: "write it as PREDICATE -> ACTION…"
        case .noPredicate: "no predicate before ->"
        case .noActions:
            "no action after -> (mark-read, flag, tag NAME, untag NAME, notify, full-article, ignore, exec PROGRAM ARG…)"
        case .unknownAction(let word):
            "unknown action '\(word)' (one of: mark-read, flag, tag NAME, untag NAME, notify, full-article, ignore, exec PROGRAM ARG…)"
        case .tagWithoutName(let action): "\(action) needs a tag: \(action) NAME"
        case .ignoreNotAlone: "ignore must be the rule's only action: an ignored item is never stored"
        case .execWithoutProgram: "exec needs a program"
        case .programFromItem(let program):
            "exec's program '\(program)' may not hold a field: an item's fields go in its arguments only"
        case .unknownField(let field, let argument):
            "\(field) in '\(argument)' is not a field (%t title, %l link, %a author, %f feed, %i id, %d date, %% a percent sign)"
        case .lineBreak: "a rule is one line"
        case .predicate(let message): message
        }
    }

    /// One line naming the feed, file or argument at fault.
    ///
    /// ```swift
    /// ZeaderError.notSubscribed("https://example.org/feed").description   // "not subscribed: https://example.org/feed"
    /// ```
    public var description: String {
        switch self {
        case .invalidURL(let url, let reason): return "invalid feed URL '\(url)': \(reason)"
        case .alreadySubscribed(let url): return "already subscribed: \(url)"
        case .notSubscribed(let url): return "not subscribed: \(url)"
        case .unreadableFile(let path, let reason): return "\(path): \(reason)"
        case .notTheFileAsked(let path, let reason): return "\(path): \(reason)"
        case .storeIsAFolder(let path):
            return "the store \(path) is a folder; --db names the store's file (such as \(path)/zeader.sqlite)"
        case .invalidPredicate(let message): return "invalid --where predicate: \(message)"
        case .predicateTimedOut(let seconds):
            let shown = seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
            return "the --where predicate took longer than \(shown) s and was stopped"
        case .store(.damaged(let path, let detail)):
            return
                "the store \(path) is damaged (\(detail)); save what can still be read with `zeader export --json > backup.json`, then restore it into a new store with `zeader --db NEW.sqlite import backup.json` (`zeader check` lists the damage)"
        case .store(.readOnlyStore(let path)):
            return "the store \(path) is read-only: it can be listed and read, not changed"
        case .store(let error): return "store: \(error)"
        case .cannotCreateFolder(let path, let reason): return "cannot create the store's folder \(path): \(reason)"
        case .cannotCreateDownloadFolder(let path, let reason): return "cannot create the download folder \(path): \(reason)"
        case .invalidSmartPredicate(let message): return "invalid --smart predicate: \(message)"
        case .smartFeedNeedsTitle: return "a smart feed needs a --title"
        case .smartFeedExists(let title): return "a smart feed named '\(title)' exists already"
        case .noItemsNamed(let flagging): return "name the items to \(flagging ? "flag" : "unflag"): their ids, or --feed URL"
        case .noSuchItem(let id, let feed): return "no item with id '\(id)'" + (feed.map { " in \($0)" } ?? "")
        case .invalidItemID(let id, let problem):
            let reason: String
            switch problem {
            case .empty: reason = "empty"
            case .notAServerNumber: reason = "greader: needs the sync server's item number (1 to 18446744073709551615)"
            case .notSixteenHexDigits: reason = "the long form needs 16 hex digits after tag:google.com,2005:reader/item/"
            }
            return "invalid item id '\(id)': \(reason) (ids are as `zeader items --json` prints them)"
        case .invalidIgnoreRuleNumber(let number):
            return "ignore rules are numbered from 1, not \(number) (see `zeader ignore list`)"
        case .notAFeedInStore(let url): return "\(url) is not a feed in this store"
        case .feedUnavailable(let failure): return failure.description
        case .invalidIgnoreRule(let message): return "invalid ignore rule: \(message)"
        case .noSuchIgnoreRule(let number): return "no stored ignore rule \(number) (see `zeader ignore list`)"
        case .invalidRule(let text, let problem): return "invalid rule '\(text)': \(Self.rule(problem))"
        case .noSuchRule(let number): return "no stored rule \(number) (see `zeader rule list`)"
        case .unknownSortField(let text):
            let fields = ItemSortOrder.Field.allCases.map(\.rawValue).joined(separator: ", ")
            return "unknown sort order '\(text)' (one of: \(fields), optionally -asc or -desc)"
        case .unknownSortDirection(let direction, let order):
            return "unknown sort direction '\(direction)' in '\(order)' (asc or desc)"
        case .backupFromStandardInput:
            return "a JSON backup must be given as a file (it is read in place and can be resumed)"
        case .urlsWithoutNewsboatCache(let path): return "--urls and --queue go with a newsboat cache.db, and \(path) is not one"
        case .sync(let error): return error.description
        case .syncFailed(let problem, let pending, let localFeeds):
            return Messages.syncFailed(problem.description, pending: pending, localFeeds: localFeeds)
        case .accountsFailed(let failures):
            return failures.map { "\($0.name): \($0.error.description)" }.joined(separator: "; ")
        case .withFolderSync(let error, let problem): return error.description + "; " + problem
        case .password(let problem): return problem.description
        case .noEnclosure(let id): return "item '\(id)' has no enclosure to download"
        case .notQueued(let id): return "'\(id)' is not in the podcast queue"
        case .noPlayer: return "no player configured (add a line such as 'player mpv' to the config file)"
        case .notDownloaded(let id): return "'\(id)' is not downloaded yet (zeader podcasts download)"
        case .cannotRun(let failure): return failure.description
        case .cancelled: return "cancelled"
        case .feedSetting(let error): return error.description
        case .folderSync(let error): return error.description
        case .unexpected(let type, let detail): return "unexpected error (\(type)): \(detail)"
        }
    }
}

extension ZeaderError.PasswordProblem: CustomStringConvertible {
    /// One line saying why there is no sync password, and where else it can come from.
    ///
    /// ```swift
    /// ZeaderError.PasswordProblem.commandPrintedNothing.description   // "--password-command printed no password"
    /// ```
    public var description: String {
        switch self {
        case .commandCouldNotRun(let reason): return "--password-command could not run: \(reason)"
        case .commandOutputTooLarge(let limit): return "--password-command printed more than \(limit) bytes"
        case .commandFailed(let termination): return "--password-command failed (\(termination.description))"
        case .commandPrintedNothing: return "--password-command printed no password"
        case .noTerminal:
            return "no terminal to ask for the password: set $ZEADER_SYNC_PASSWORD or use --password-command"
        case .noneGiven: return "no password given"
        }
    }
}

extension SyncError: CustomStringConvertible {
    /// One line saying what went wrong with the sync account or its server, and what to do.
    ///
    /// ```swift
    /// SyncError.noAccount.description   // "no sync account (add one with `zeader sync add API_URL --user NAME`)"
    /// ```
    public var description: String {
        switch self {
        case .invalidAPIURL(let url):
            return "invalid sync API URL '\(url)': give the server's Google Reader API URL, http or https "
                + "(for FreshRSS https://HOST/api/greader.php)"
        case .unreachable(let error):
            return "cannot reach the sync server: \(error); nothing was lost, run `zeader sync` again later"
        case .loginRefused(let user, let url):
            return "\(url): login refused for user \(user) (wrong user name or password); "
                + "check them, and the API URL, and log in again"
        case .tokenRejected(let url):
            return "\(url): the server no longer accepts the login token; log in again with `zeader sync login` "
                + "(changes not yet pushed are kept)"
        case .notTheAPI(let url, let saw) where SyncServiceKind(apiURL: url) == .fever:
            return "\(url) is not a Fever API (its login answered with \(saw)); give the Fever API URL of your "
                + "server: for FreshRSS https://HOST/api/fever.php, with API access allowed in its settings "
                + "(Authentication) and an API password set in the user's profile"
        case .notTheAPI(let url, let saw) where SyncServiceKind(apiURL: url) == .ttrss:
            return "\(url) is not Tiny Tiny RSS's API (its login answered with \(saw)); check the URL: "
                + "Tiny Tiny RSS's is its web address followed by api/ (https://HOST/tt-rss/api/); for a Google "
                + "Reader API or Fever server, add --service greader or fever"
        case .notTheAPI(let url, let saw):
            return "\(url) is not a Google Reader API (its login answered with \(saw)); give the Google Reader API URL "
                + "of your server: for FreshRSS https://HOST/api/greader.php, with API access allowed in its "
                + "settings (Authentication) and an API password set in the user's profile; for Miniflux, enable "
                + "the Google Reader API (and its user name and password) in Settings > Integrations"
        case .server(let status, let request):
            return "the sync server answered HTTP \(status) to \(request); changes not yet pushed are kept, "
                + "run `zeader sync` again later"
        case .badResponse(let request, let reason, let service):
            return "the sync server's answer to \(request) is not understood: \(reason); "
                + "check that the account's URL is \(Messages.serverAPIName(service)) (`zeader sync status`)"
        case .redirectedElsewhere(let request, let to):
            return "the sync server sent \(request) to another origin, \(to), where the login is not sent; "
                + "check the account's API URL (`zeader sync status`): if the service has moved there, "
                + "add the account again with the new URL"
        case .pagination(let request, let problem):
            let what: String
            switch problem {
            case .repeatedContinuation(let token):
                what = "repeated the continuation \"\(token.prefix(80))\" (its pages would never end)"
            case .tooManyPages(let limit): what = "went on past \(limit) pages"
            case .tooManyIDs(let limit): what = "listed more than \(limit) items"
            case .continuationTooLong(let limit): what = "gave a continuation longer than \(limit) bytes"
            }
            return "the sync server's answer to \(request) \(what); stopped there, nothing stored was lost: "
                + "report it to the server's administrator"
        case .noAccount: return "no sync account (add one with `zeader sync add API_URL --user NAME`)"
        case .noToken(let path): return "the sync login token is missing (\(path)); log in again with `zeader sync login`"
        case .accountExists(let url, let user):
            return "a sync account is set already (\(user) at \(url)); `zeader sync login` logs it in again, "
                + "`zeader sync remove` removes it"
        case .unpushedChanges(let count):
            return "\(count) change\(count == 1 ? "" : "s") made here not yet pushed to the server would be lost; "
                + "run `zeader sync` first, or `zeader sync remove --force` to drop \(count == 1 ? "it" : "them")"
        case .serverForgotFeeds(let listed, let synced):
            return "the sync server lists \(listed) of the \(synced) feeds this device synced (an account reset "
                + "or recreated?); stopped before changing anything, nothing was removed: `zeader sync --upload` "
                + "subscribes the account to them again, `zeader sync --detach` keeps them here as local feeds, "
                + "`zeader sync --accept-removals` removes them here too"
        case .serverRenamedFeeds(let renamed, let listed, let synced):
            return "the sync server gives \(renamed) of the \(synced) feeds this device synced to other feeds (their ids "
                + "now name other URLs) and lists \(listed) as they were (an account reset and filled again from another "
                + "device?); stopped before changing anything, nothing was removed or joined: `zeader sync --upload` "
                + "subscribes the account to them again, `zeader sync --detach` keeps them here as local feeds, "
                + "`zeader sync --accept-removals` removes them here"
        case .inMemoryStore: return "an in-memory store cannot keep a sync account; name a store file with --db PATH"
        case .cannotWriteToken(let path, let reason):
            return "cannot write the sync token to \(path): \(reason); check that its directory is writable"
        case .unsupported(let service, let operation):
            return "\(Messages.serviceName(service)) cannot \(Messages.operationName(operation)); "
                + "make that change on the server itself"
        case .apiAccessDisabled(let service, let url):
            return "\(url): \(Messages.serviceName(service)) is not enabled for this user; allow it in the server's "
                + "settings (Tiny Tiny RSS: Preferences > General > Enable API), then log in again"
        case .unknownService(let name):
            return "unknown sync service '\(name)' (expected "
                + SyncServiceKind.allCases.map(\.rawValue).joined(separator: " or ") + ")"
        case .unknownAccount(let name):
            return "no sync account named '\(name)' (`zeader sync status` lists them)"
        case .accountNeeded(let names):
            return "this store has several sync accounts (\(names.joined(separator: ", "))); name one with --account NAME"
        case .invalidAccountName(let name) where name.lowercased() == SyncAccounts.folderName:
            return "'\(name)' cannot name an account: it stands for folder sync (sync --account folder, "
                + "sync status folder, sync remove folder); choose another with --name NAME"
        case .invalidAccountName(let name):
            return "'\(name)' cannot name an account: use 1 to 64 letters, digits, '.', '_' or '-' "
                + "(not first), and not 'local'"
        case .accountNameTaken(let name):
            return "a sync account is named '\(name)' already; choose another with --name NAME"
        }
    }
}

extension Messages {
    /// A sync protocol's name in a sentence.
    ///
    /// ```swift
    /// Messages.serviceName(.fever)   // "the Fever API"
    /// ```
    public static func serviceName(_ service: SyncServiceKind) -> String {
        switch service {
        case .googleReader: return "the Google Reader API"
        case .fever: return "the Fever API"
        case .ttrss: return "Tiny Tiny RSS's API"
        }
    }

    /// The API an account's URL should be, after "is": `the server's Fever API`.
    ///
    /// ```swift
    /// Messages.serverAPIName(.ttrss)   // "the server's Tiny Tiny RSS API"
    /// ```
    public static func serverAPIName(_ service: SyncServiceKind) -> String {
        switch service {
        case .googleReader: return "the server's Google Reader API"
        case .fever: return "the server's Fever API"
        case .ttrss: return "the server's Tiny Tiny RSS API"
        }
    }

    /// What a service cannot do, after "cannot".
    ///
    /// ```swift
    /// Messages.operationName(.move)   // "file feeds in folders (tags)"
    /// ```
    public static func operationName(_ operation: SyncOperation) -> String {
        switch operation {
        case .subscribe: return "subscribe to feeds"
        case .unsubscribe: return "unsubscribe from feeds"
        case .rename: return "rename feeds"
        case .move: return "file feeds in folders (tags)"
        case .tagItems: return "tag items"
        }
    }

    /// What `zeader rename` did: the feed's title now, or when it has none until the next
    /// refresh or sync gives it its own.
    ///
    /// ```swift
    /// Messages.feedRenamed(url: "https://lwn.net/headlines/rss", title: "LWN")   // "renamed https://lwn.net/headlines/rss: LWN"
    /// ```
    public static func feedRenamed(url: String, title: String?) -> String {
        let now = title ?? "its own title at the next refresh or sync"
        return "renamed \(RedactedURL.text(url)): \(now)"
    }

    /// A sync's line for a change to a feed the account's service cannot make: it stays on
    /// this device (``FeedSync/Report/refused``).
    ///
    /// ```swift
    /// Messages.syncUnsupported(.fever, .subscribe, url: "https://a.example/feed")
    /// ```
    public static func syncUnsupported(_ service: SyncServiceKind, _ operation: SyncOperation, url: String) -> String {
        let kept: String
        switch operation {
        case .subscribe: kept = "it stays a local feed, refreshed here"
        case .unsubscribe: kept = "unsubscribe on the server too, or the next sync brings it back"
        case .rename, .move, .tagItems: kept = "the change stays on this device"
        }
        return "\(serviceName(service)) cannot \(operationName(operation)): \(url); \(kept)"
    }
}

extension RefreshFailure: CustomStringConvertible {
    /// One line that names the feed's URL and what went wrong.
    ///
    /// ```swift
    /// RefreshFailure.invalidURL("not a url").description   // "not a url: invalid URL"
    /// ```
    public var description: String {
        switch self {
        case .fetch(let error): return error.description
        case .parse(let error): return error.description
        case .store(let url, let error): return "\(url): cannot store the feed: \(error)"
        case .invalidURL(let url): return "\(url): invalid URL"
        case .movedToSubscribedFeed(let url, let target):
            return "\(url): moved permanently to \(target), which is already subscribed"
        case .removedDuringRefresh: return "feed was removed during the refresh"
        case .notVouched(let url, let origin):
            return
                "\(url): not run: this \(Messages.reachNoun(FeedTrust.reach(of: url))) came from \(Messages.originPhrase(origin)); "
                + "run `zeader trust \(Messages.shellQuoted(url))` to allow it, or `zeader remove \(Messages.shellQuoted(url))`"
        case .passwordCommand(let url, let problem):
            let what =
                switch problem {
                case .commandCouldNotRun(let reason): "could not run: \(reason)"
                case .commandOutputTooLarge(let limit): "printed more than \(limit) bytes"
                case .commandFailed(let termination): "failed (\(termination.description))"
                case .commandPrintedNothing: "printed no password"
                case .noTerminal, .noneGiven: "gave no password"
                }
            return "\(RedactedURL.text(url)): password-command \(what); not fetched"
        }
    }
}

/// Messages that are not one error's description.
///
/// ```swift
/// server.lastError = Messages.gone(url: server.url)
/// ```
public enum Messages {
    /// The log line of a rule that acted on an item (``ItemRules/Firing``); the feed's text
    /// is the caller's to clean for a terminal.
    ///
    /// ```swift
    /// Messages.ruleFired(firing)   // "rule 'author == \"bot\" -> mark-read' on \"Weekly\" (https://example.org/feed)"
    /// ```
    public static func ruleFired(_ firing: ItemRules.Firing) -> String {
        "rule '\(firing.rule.text)' on \"\(firing.item.title ?? firing.item.id)\" (\(firing.item.feed))"
    }

    /// A rule's program that did not end well: nil when it exited 0.
    static func ruleProgram(_ program: String, _ outcome: Subprocess.Outcome) -> String? {
        if outcome.timedOut { return "rule program \(program) ran longer than \(ItemRules.execTimeout) and was stopped" }
        if outcome.outputTooLarge {
            return "rule program \(program) wrote more than \(ItemRules.execOutputLimit) bytes and was stopped"
        }
        if case .exited(0) = outcome.termination { return nil }
        return "rule program \(program) ended with \(outcome.termination)"
    }

    /// The rules' programs left out past ``ItemRules/execLimit``.
    static func rulePrograms(skipped: Int, limit: Int) -> String {
        "\(skipped) more rule program\(skipped == 1 ? "" : "s") not run: at most \(limit) per refresh or sync"
    }

    /// A feed that answered 410 Gone: the one wording the store, the command line and the
    /// reader use.
    public static func gone(url: String) -> String { "\(url): HTTP 410 Gone; the feed is disabled" }

    /// A feed that asked to wait (429/503 with Retry-After).
    public static func deferred(url: String, httpStatus: Int, until: Date) -> String {
        "\(url): HTTP \(httpStatus), retry after \(JSONText.timestamp(until))"
    }

    /// An episode larger than `podcast-max-size` (`limit`, in bytes), said in the units the
    /// config and every other size use.
    ///
    /// ```swift
    /// Messages.episodeTooLarge(url: "https://x.example/a.mp3", limit: 500_000_000)   // "…: larger than podcast-max-size (500.0 MB), not downloaded"
    /// ```
    public static func episodeTooLarge(url: String, limit: Int64) -> String {
        "\(url): larger than podcast-max-size (\(ByteCount.text(limit))), not downloaded"
    }

    /// A feed that a permanent redirect moved.
    public static func moved(url: String, to target: String) -> String { "\(url) moved permanently to \(target)" }

    // MARK: Trust

    /// What a command or file feed is, in a few words: "command feed", "file feed".
    static func reachNoun(_ reach: FeedTrust.Reach) -> String {
        switch reach {
        case .command: return "command feed"
        case .file: return "file feed"
        case .web: return "feed"
        }
    }

    /// Where a feed came from, as a phrase: "a sync server", "an import".
    static func originPhrase(_ origin: FeedOrigin?) -> String {
        switch origin {
        case .typed?: return "your typing"
        case .urlsFile?: return "your urls file"
        case .allowedImport?: return "an import you allowed"
        case .imported?: return "an import"
        case .syncServer?: return "a sync server"
        case nil: return "an unknown source (stored before Zeader recorded where feeds come from)"
        }
    }

    /// `text` quoted for a POSIX shell, so that an advice line can be pasted as it is.
    ///
    /// ```swift
    /// Messages.shellQuoted("exec:it's")   // "'exec:it'\\''s'"
    /// ```
    public static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// What an imported command or file feed would do: `runs touch /tmp/x` (with the feed's
    /// text), `reads the file /etc/passwd`.
    static func wouldDo(_ reach: FeedTrust.Reach) -> String {
        switch reach {
        case .command(let text): return "it would run the command \"\(text)\" at each refresh"
        case .file(let path): return "it would read the file \(path)"
        case .web: return "it is not an http or https feed"
        }
    }

    /// The line of an import for a subscription it did not store, naming the entry (`what`:
    /// `outline "Name"`, `feed 3`): `feeds.opml: skipped outline "Name": it would run
    /// "exec:touch /tmp/x" at each refresh; rerun with --allow-commands to subscribe`, or
    /// `feeds.opml: outline "Name" not imported: invalid feed URL …`.
    ///
    /// ```swift
    /// Messages.importRefusal(refusal, source: "feeds.opml", what: "outline \"Evil\"")
    /// ```
    public static func importRefusal(_ refusal: FeedTrust.ImportRefusal, source: String, what: String) -> String {
        switch refusal {
        case .needsAllow(_, let reach):
            return "\(source): skipped \(what): \(wouldDo(reach)); rerun with --allow-commands to subscribe"
        case .invalid(let error):
            return "\(source): \(what) not imported: \(error)"
        }
    }

    /// How an import names a subscription in its lines: `outline "Name"` (its title, else
    /// its URL) for OPML, `feed "Name"` otherwise.
    static func importEntry(title: String?, url: String, outline: Bool) -> String {
        "\(outline ? "outline" : "feed") \"\(title.flatMap { $0.isEmpty ? nil : $0 } ?? url)\""
    }

    /// A sync's line for a synced feed whose server id now names another feed: it is kept
    /// here as a local feed (``FeedSync/Report/notStored``).
    ///
    /// ```swift
    /// Messages.syncFeedIDTaken(url: "https://a.example/feed")
    /// ```
    public static func syncFeedIDTaken(url: String) -> String {
        "the sync server gives the id of \(url) to another feed now: kept here as a local feed, not synced"
    }

    /// A feed a sync server lists that the store keeps in another source.
    ///
    /// ```swift
    /// Messages.syncFeedInOtherSource(url: "https://example.org/feed", source: "local")
    /// ```
    public static func syncFeedInOtherSource(url: String, source: String) -> String {
        let owner = source == SyncAccounts.localName ? "a local feed" : "a feed of the account \(source)"
        return "the sync server lists \(RedactedURL.text(url)), which is \(owner) here: left there "
            + "(`zeader sync move` moves it)"
    }

    /// A sync's line for a feed the server listed that is not http(s) (``FeedSync/Report/notStored``).
    ///
    /// ```swift
    /// Messages.syncFeedNotStored(id: "feed/9", url: "exec:rm -rf ~")
    /// ```
    public static func syncFeedNotStored(id: String, url: String?) -> String {
        let shown = url.map { "\"\($0)\"" } ?? "no URL"
        return "the sync server lists \(id) with \(shown), not an http or https feed: not stored"
    }

    /// A sync's line for a feed the server refused to subscribe to (``FeedSync/Report/refused``).
    ///
    /// ```swift
    /// Messages.syncRefused(url: "https://a.example/feed", reason: "HTTP 404")
    /// ```
    public static func syncRefused(url: String, reason: String) -> String {
        "the sync server refused to subscribe to \(url): \(reason); it stays a local feed, refreshed here"
    }

    /// The last error of a feed the sync server refused, until the next refresh here.
    ///
    /// ```swift
    /// server.lastError = Messages.syncRefusedFeedError(reason: "HTTP 404")
    /// ```
    public static func syncRefusedFeedError(reason: String) -> String {
        "the sync server refused this feed (\(reason)); it stays local, refreshed here"
    }

    /// `zeader sync add`'s line for the local feeds it left local: how many, and the command
    /// that moves them into the new account `account`.
    ///
    /// ```swift
    /// Messages.localFeedsStayLocal(count: 3, account: "rss.example.org")
    /// ```
    public static func localFeedsStayLocal(count: Int, account: String) -> String {
        "\(count) local feed\(count == 1 ? "" : "s") stay\(count == 1 ? "s" : "") local, refreshed here "
            + "(zeader sync move --all-local \(account) puts \(count == 1 ? "it" : "them") in the account)"
    }

    /// A sync that failed, with what it keeps: `problem` (the error's own line), the count
    /// of changes made here not yet pushed, and (for `zeader refresh`) how many feeds not
    /// synced are refreshed here all the same.
    ///
    /// ```swift
    /// Messages.syncFailed("cannot reach the sync server: …", pending: 2, localFeeds: 1)
    /// ```
    public static func syncFailed(_ problem: String, pending: Int, localFeeds: Int? = nil) -> String {
        var line = "the sync failed: \(problem)"
        if pending > 0 {
            line +=
                "; the \(pending) change\(pending == 1 ? "" : "s") made here \(pending == 1 ? "is" : "are") kept for the next sync"
        }
        if let localFeeds {
            line +=
                localFeeds == 0
                ? "; no feed here is refreshed without the server"
                : "; refreshing the \(localFeeds) feed\(localFeeds == 1 ? "" : "s") not synced here"
        }
        return line
    }

    /// `zeader check`'s line for a command or file feed no origin vouches for, with the two
    /// ways out.
    ///
    /// ```swift
    /// Messages.unvouched(feed)   // "exec:x: a command feed from a sync server; keep it: zeader trust 'exec:x'; …"
    /// ```
    public static func unvouched(_ feed: FeedTrust.UnvouchedFeed) -> String {
        let quoted = shellQuoted(feed.url)
        let kept = feed.origin == nil ? " (it still runs)" : " (it does not run)"
        return "\(feed.url): a \(reachNoun(feed.reach)) from \(originPhrase(feed.origin))\(kept); "
            + "to keep it: zeader trust \(quoted); to drop it: zeader remove \(quoted)"
    }

    /// The salvaging export's first warning: the store is damaged, the rest is read row by row.
    public static func salvaging(detail: String) -> String {
        "the store is damaged (\(detail)); salvaging what can still be read, row by row"
    }

    /// The problem of a feed whose body was not the one its server announced (cut off, or
    /// longer than its `Content-Length`) but whose items were kept as far as they parsed;
    /// the refresh puts the feed's URL in front.
    static func storedDespite(_ problem: FetchError) -> String {
        let text = problem.description
        let prefix = "\(problem.url.absoluteString): "
        let detail = text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
        return "\(detail); the items that arrived whole were stored"
    }

    /// The salvaging export's warning for a run of rows it could not read.
    static func skippedRows(table: String, keys: ClosedRange<Int64>, detail: String) -> String {
        let what = table == "Server" ? "feed" : "item"
        let range = keys.count == 1 ? "key \(keys.lowerBound)" : "keys \(keys.lowerBound)-\(keys.upperBound)"
        return "skipped unreadable \(what) rows (\(range)): \(detail)"
    }

    /// The salvaging export's warning for items whose feed could not be read.
    static func orphanItems(_ count: Int) -> String {
        "left out \(count) item\(count == 1 ? "" : "s") whose feed could not be read"
    }

    /// The longest `Server.lastError`, in characters (the tail of a longer message is cut
    /// and marked with "…").
    public static let lastErrorLength = 500

    /// `message` as `Server.lastError` stores it: one line (line breaks, tabs and other
    /// control characters become spaces, runs of them one space) of at most
    /// ``lastErrorLength`` characters, so that an error quoting a 1 MB statement or a
    /// hostile server's text stays readable in `list` and on the reader's status line.
    ///
    /// ```swift
    /// Messages.lastError("line one\nline two")   // "line one line two"
    /// ```
    public static func lastError(_ message: String) -> String {
        var line = ""
        var count = 0
        var pendingSpace = false
        for character in message {
            let isSpace = character.unicodeScalars.contains {
                $0 == " " || $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}"
            }
            if isSpace {
                if count > 0 { pendingSpace = true }
                continue
            }
            if pendingSpace {
                line.append(" ")
                count += 1
                pendingSpace = false
            }
            line.append(character)
            count += 1
            if count > lastErrorLength { break }
        }
        if count > lastErrorLength { line = String(line.prefix(lastErrorLength - 1)) + "…" }
        return line
    }
}

extension RefreshSummary {
    /// The command line's summary of a refresh, one line.
    ///
    /// ```swift
    /// print(summary.line)   // "200 feeds: 195 updated, 3 unchanged, 2 failed; 9750 new items in 2.1 s"
    /// ```
    public var line: String {
        var parts = ["\(progress.updated) updated", "\(progress.notModified) unchanged"]
        if progress.deferred > 0 { parts.append("\(progress.deferred) deferred") }
        parts.append("\(progress.failed) failed")
        let feeds = progress.total == 1 ? "1 feed" : "\(progress.total) feeds"
        var line = "\(feeds): " + parts.joined(separator: ", ")
        line += "; \(progress.newItems) new item\(progress.newItems == 1 ? "" : "s")"
        if progress.updatedItems > 0 { line += ", \(progress.updatedItems) changed" }
        if trimmedItems > 0 { line += ", \(trimmedItems) old removed (max-items, keep-days)" }
        if fullArticles.fetched > 0 { line += ", \(fullArticles.fetched) full article\(fullArticles.fetched == 1 ? "" : "s")" }
        if fullArticles.failed > 0 { line += " (\(fullArticles.failed) page\(fullArticles.failed == 1 ? "" : "s") without one)" }
        line += String(format: " in %.1f s", duration)
        return line
    }
}
