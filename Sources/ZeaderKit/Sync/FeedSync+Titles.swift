import Feeds
import Foundation
import ObjectGraph

// A feed's title: renamed here, pushed to the account; kept here when the service has no
// call for it, so that a pull does not put the service's title back.
extension FeedSync {
    /// Store metadata: the URLs of the account's feeds whose title the service refused to
    /// take (it has no rename): a pull leaves their title as the user gave it.
    static let keptTitlesKey = "zeader.sync.keptTitles"

    /// The URLs of the account's feeds whose title is kept here (``keptTitlesKey``).
    func keptTitles(_ scope: AccountScope) throws -> Set<String> {
        guard let text = try store.container.store.metadata(forKey: scope.key(Self.keptTitlesKey)),
            let urls = try? JSONDecoder().decode([String].self, from: Data(text.utf8))
        else { return [] }
        return Set(urls)
    }

    /// Keeps the title of the feed at `url` here (or, `kept` false, lets the service's
    /// title in again at the next pull).
    func keepTitle(_ url: String, _ kept: Bool, _ scope: AccountScope) throws {
        var urls = try keptTitles(scope)
        guard urls.contains(url) != kept else { return }
        if kept { urls.insert(url) } else { urls.remove(url) }
        let text = urls.isEmpty ? nil : String(decoding: try JSONEncoder().encode(urls.sorted()), as: UTF8.self)
        try store.container.store.setMetadata(text, forKey: scope.key(Self.keptTitlesKey))
    }

    /// Pushes a rename of the feed `known` to `title`, the feed's title here when the push
    /// runs. An empty title, or the one the service has already, makes no request: the
    /// service's title is then the feed's again. Returns whether the service's list changed.
    func pushTitle(
        _ title: String?, of url: String, to known: SyncSubscription, _ client: any SyncService, scope: AccountScope,
        report: inout Report
    ) async throws -> Bool {
        let key = FeedTrust.webURL(url) ?? url
        guard let title, !title.isEmpty, title != known.title.map(Self.displayText) else {
            try keepTitle(key, false, scope)
            return false
        }
        let pushed = try await Self.pushing(url, report: &report) { () async throws(SyncError) in
            try await client.rename(known.id, title: title)
        }
        try keepTitle(key, !pushed, scope)
        return pushed
    }
}
