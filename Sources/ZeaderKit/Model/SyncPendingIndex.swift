import ObjectGraph

// v5: the index the pending read and flag marks are found by.
extension ZeaderModel {
    /// Version 5's addition for sync: FeedItem's index `(syncReadPending, syncFlagPending)`,
    /// which finds the items with a change not yet pushed (``SyncQueue/pendingItems``) —
    /// `sync status`'s count and each sync's push — without reading the item table.
    ///
    /// One compound index serves both marks: the query asks for `syncReadPending` true, or
    /// false with `syncFlagPending` true, so each branch is an equality on a prefix of it.
    /// (Two single-column indexes would serve the plain OR at twice the size and the
    /// writes; a partial index holding only the marked rows would cost nothing for the
    /// others, but ObjectGraph's indexes had no `WHERE` then: version 6 makes it one,
    /// ``rowsVersion6Additions(to:)``.) An entry of two zero booleans
    /// is about 10 bytes. `SyncPendingIndexTests` checks the query plans.
    static func syncVersion5Additions(to entities: inout [EntityDescription]) {
        guard let item = entities.firstIndex(where: { $0.name == "FeedItem" }) else { return }
        entities[item].indexes.append(["syncReadPending", "syncFlagPending"])
    }
}
