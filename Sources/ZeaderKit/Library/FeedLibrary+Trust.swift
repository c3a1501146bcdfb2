import Foundation
import ObjectGraph

/// Trust on the command line (``FeedTrust``): what `zeader check` lists and `zeader trust` does.
extension FeedLibrary {
    /// Every command or file feed whose origin is a sync server, an import or unknown, in
    /// the user's order (``FeedTrust/unvouchedFeeds(in:)``).
    ///
    /// ```swift
    /// for feed in try library.unvouchedFeeds() { print(Messages.unvouched(feed)) }
    /// ```
    public func unvouchedFeeds() throws(ZeaderError) -> [FeedTrust.UnvouchedFeed] {
        try withContext { try FeedTrust.unvouchedFeeds(in: $0) }
    }

    /// Vouches for the subscribed feed `url` (``FeedTrust/vouch(for:in:)``) and saves; returns
    /// what refreshing it does.
    ///
    /// ```swift
    /// try library.trust(url: "exec:~/bin/feed")
    /// ```
    @discardableResult
    public func trust(url: String) throws(ZeaderError) -> FeedTrust.Reach {
        try withContext { context in
            let server = try FeedTrust.vouch(for: url, in: context)
            try context.save()
            return FeedTrust.reach(of: server.url)
        }
    }
}
