import Foundation
import ObjectGraph

// The account a sync works on: every fetch of feeds, items and queued changes, and every
// kept list, goes through its scope, so that one account's sync never reads or changes
// another's feeds, nor local ones.
extension FeedSync {
    /// One account's share of the store: the predicates that select its feeds, their items
    /// and its queued changes, and the names of the store metadata it keeps.
    ///
    /// ```swift
    /// let scope = try sync.scope()
    /// let feeds = try Server.findAll(where: scope.feeds, in: context)
    /// ```
    public struct AccountScope: Sendable, Equatable {
        /// The account's name (``SyncAccount/name``).
        public let name: String

        /// The scope of the account named `name`.
        ///
        /// ```swift
        /// let scope = FeedSync.AccountScope(name: "work")
        /// ```
        public init(name: String) { self.name = name }

        /// The account's feeds.
        public var feeds: ObjectPredicate { .comparison(.keyPath("account"), .equalTo, .constant(.string(name))) }

        /// The items of the account's feeds.
        public var items: ObjectPredicate {
            .comparison(.keyPath("server.account"), .equalTo, .constant(.string(name)))
        }

        /// The account's queued changes (and the account's own row).
        public var changes: ObjectPredicate { feeds }

        /// The account's row.
        public var account: ObjectPredicate { .comparison(.keyPath("name"), .equalTo, .constant(.string(name))) }

        /// The store metadata key `base` of this account (`zeader.sync.unread.work`).
        public func key(_ base: String) -> String { base + "." + name }
    }

    /// The scope of the account this sync works on: the one named when it was made, else
    /// the store's only account. Throws ``SyncError/noAccount``, ``SyncError/unknownAccount(_:)``
    /// or, when the store has several and none was named, ``SyncError/accountNeeded(names:)``.
    ///
    /// ```swift
    /// let scope = try sync.scope()
    /// ```
    public func scope() throws(ZeaderError) -> AccountScope {
        let wanted = account
        let names = try withContext { context in try SyncAccounts.names(in: context) }
        if let wanted {
            guard names.contains(wanted) else { throw .sync(.unknownAccount(wanted)) }
            return AccountScope(name: wanted)
        }
        guard let only = names.first else { throw .sync(.noAccount) }
        guard names.count == 1 else { throw .sync(.accountNeeded(names: names)) }
        return AccountScope(name: only)
    }

    /// The account's row in `context`, or nil when it is gone.
    func accountRow(_ scope: AccountScope, in context: ManagedObjectContext) throws -> SyncAccount? {
        try SyncAccount.findFirst(where: scope.account, in: context)
    }
}
