import Foundation
import ObjectGraph

// The command line's side of several sync accounts: which source a feed belongs to.
extension FeedLibrary {
    /// Puts the feed at `url` in the account `account` (nil or ``SyncAccounts/localName``:
    /// the local feeds), as ``SyncAccounts/move(feedURL:to:in:)`` does; false when it is there
    /// already.
    ///
    /// ```swift
    /// try library.move(feed: "https://example.org/feed.xml", toAccount: "work")
    /// ```
    @discardableResult
    public func move(feed url: String, toAccount account: String?) throws(ZeaderError) -> Bool {
        let target = account == SyncAccounts.localName ? nil : account
        return try withContext { context in try SyncAccounts.move(feedURL: url, to: target, in: context) }
    }

    /// Throws ``SyncError/unknownAccount(_:)`` unless the store has an account named
    /// `account` (``SyncAccounts/localName`` always names the local feeds).
    ///
    /// ```swift
    /// try library.checkAccount("work")
    /// ```
    public func checkAccount(_ account: String) throws(ZeaderError) {
        guard account != SyncAccounts.localName else { return }
        let names = try withContext { context in try SyncAccounts.names(in: context) }
        guard names.contains(account) else { throw .sync(.unknownAccount(account)) }
    }

    /// Puts every local http(s) feed in the account `account`
    /// (``SyncAccounts/moveAllLocal(to:in:)``); the URLs moved.
    ///
    /// ```swift
    /// let moved = try library.moveAllLocal(toAccount: "work")
    /// ```
    @discardableResult
    public func moveAllLocal(toAccount account: String) throws(ZeaderError) -> [String] {
        try withContext { context in try SyncAccounts.moveAllLocal(to: account, in: context) }
    }

    /// How many local feeds ``moveAllLocal(toAccount:)`` would move.
    ///
    /// ```swift
    /// let waiting = try library.movableLocalFeedCount()
    /// ```
    public func movableLocalFeedCount() throws(ZeaderError) -> Int {
        try withContext { context in try SyncAccounts.movableLocalFeeds(in: context).count }
    }
}
