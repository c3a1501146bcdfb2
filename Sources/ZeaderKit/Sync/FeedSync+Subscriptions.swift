import Feeds
import Foundation
import ObjectGraph

extension FeedSync {
    // MARK: Pull

    /// The server's feeds into the store: new ones inserted, known ones updated (title,
    /// site, tags from labels), synced ones the server no longer has deleted. Returns the
    /// feeds it inserted, which have no items yet.
    @discardableResult
    func applySubscriptions(_ subscriptions: [SyncSubscription], report: inout Report) throws -> Set<ObjectID> {
        let scope = try self.scope()
        let metadata = store.container.store
        let keptLabels = try metadata.metadata(forKey: scope.key(Self.labelsKey)).flatMap(SyncLabels.decode) ?? [:]
        let titlesKeptHere = try keptTitles(scope)
        var seenLabels: [String: [String]] = [:]
        let inserted = try withContext { context in
            let servers = try Server.findAll(where: scope.feeds, in: context)
            // Feeds of the other sources (local ones, other accounts'): the URL is one
            // subscription's, so the account does not take them (`zeader sync move` does).
            let others = try Self.otherSources(than: scope, in: context)
            var bySyncID: [String: Server] = [:]
            var byURL: [String: Server] = [:]
            for server in servers {
                if let id = server.syncID { bySyncID[id] = server }
                // As the server's URLs are compared: a stored URL written another way is the same.
                byURL[FeedTrust.webURL(server.url) ?? server.url] = server
            }
            var order = try FeedSubscription.nextDisplayOrder(in: context)
            var inserted: [Server] = []
            var listed = Set<String>()
            let listedURLs = Set(subscriptions.compactMap { $0.url.flatMap(FeedTrust.webURL) })
            for subscription in subscriptions {
                // A server gives data only (FeedTrust): an http(s) feed with a host, nothing
                // that runs or reads here; a feed already synced under this id is kept as it is.
                guard let url = subscription.url.flatMap(FeedTrust.webURL) else {
                    if subscription.url?.isEmpty == false || bySyncID[subscription.id] == nil {
                        report.notStored.append(Messages.syncFeedNotStored(id: subscription.id, url: subscription.url))
                    }
                    if bySyncID[subscription.id] != nil { listed.insert(subscription.id) }
                    continue
                }
                listed.insert(subscription.id)
                if byURL[url] == nil, let source = others[url] {
                    report.notStored.append(Messages.syncFeedInOtherSource(url: url, source: source))
                    continue
                }
                let server: Server
                if let known = byURL[url] {
                    server = known
                } else if let moved = bySyncID[subscription.id],
                    !listedURLs.contains(FeedTrust.webURL(moved.url) ?? moved.url)
                {
                    // The URL decides; a feed under its id with a URL no longer listed is the
                    // same feed moved (resolveMissingFeeds unlinked those it is not).
                    byURL[FeedTrust.webURL(moved.url) ?? moved.url] = nil
                    moved.url = url
                    byURL[url] = moved
                    server = moved
                } else {
                    server = context.insert(Server.self)
                    inserted.append(server)
                    server.url = url
                    server.origin = .syncServer
                    server.account = scope.name
                    server.displayOrder = order
                    order += 1
                    byURL[url] = server
                    report.feedsAdded += 1
                }
                if server.syncID != subscription.id { server.syncID = subscription.id }
                if !titlesKeptHere.contains(url), let title = subscription.title.map(Self.displayText), !title.isEmpty,
                    server.title != title
                {
                    server.title = title
                }
                if let site = subscription.siteURL.flatMap(FeedTrust.webURL), server.siteLink != site { server.siteLink = site }
                let labels = subscription.labels.filter { !Self.defaultFolders.contains($0) }
                let tags = SyncLabels.merge(local: FeedTags.list(server.tags), labels: labels, kept: keptLabels[url])
                if tags != server.tags { server.tags = tags }
                seenLabels[url] = labels
            }
            for server in servers where server.syncID != nil && !listed.contains(server.syncID!) {
                context.delete(server)
                report.feedsRemoved += 1
            }
            try context.save()
            return Set(inserted.map(\.objectID))  // permanent once saved
        }
        let seen = SyncLabels.encode(seenLabels)
        if seen != (try metadata.metadata(forKey: scope.key(Self.labelsKey))) {
            try metadata.setMetadata(seen, forKey: scope.key(Self.labelsKey))
        }
        return inserted
    }

    /// The feeds of every source but `scope`'s, by URL as a server's are compared: the
    /// name of the account they belong to, or ``SyncAccounts/localName``.
    static func otherSources(than scope: AccountScope, in context: ManagedObjectContext) throws -> [String: String] {
        let others = try ObjectPredicate(format: "account == nil OR account != %@", scope.name)
        var sources: [String: String] = [:]
        for row in try context.fetchValues(FetchRequest<Server>(predicate: others), keys: ["url", "account"]) {
            guard case .string(let url) = row.values[0] else { continue }
            let account: String? = if case .string(let name) = row.values[1] { name } else { nil }
            sources[FeedTrust.webURL(url) ?? url] = account ?? SyncAccounts.localName
        }
        return sources
    }

    /// Store metadata: each synced feed's labels as the last sync saw them on the server
    /// (``SyncLabels``), so that a pull removes only the tags the server held and dropped.
    static let labelsKey = "zeader.sync.labels"

    /// The ignore rules in force, the store brought in line with them first (a rule added
    /// since the last sync or refresh: the stored items it matches are removed; a rule
    /// removed: the next pull starts from the beginning again, ``Killfile/reconcile``).
    func killfileRules() throws -> [Killfile.CompiledRule] {
        let configRules = ignoreRules
        let store = store.container.store
        return try withContext { context in
            try Killfile.reconcile(configRules: configRules, in: context, store: store)
            context.reset()
            return try Killfile.activeRules(configRules: configRules, in: context)
        }
    }

    /// Folder names servers give feeds that are in no folder of the user's: not tags.
    static let defaultFolders: Set<String> = ["Uncategorized"]
}
