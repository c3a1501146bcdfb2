import ObjectGraph

// v6: FeedItem's indexes of the few — flagged, queued, synced, pending — hold only those rows.
extension ZeaderModel {
    /// Version 6's change to FeedItem's indexes (issue 18, the cost of storing an item):
    /// the four indexes that serve look-ups of a few items become partial indexes
    /// (``IndexDescription``) holding only those items, so a refresh's new items — not
    /// flagged, not queued, not synced, nothing pending — are written to none of them:
    ///
    /// | version 5 | version 6 | serves |
    /// |---|---|---|
    /// | `(flagged, sortDate)` | `(flagged, sortDate) WHERE flagged == YES` | the flagged list, newest first (covering for a page of ids); the flagged smart feed's counts |
    /// | `(enclosureQueued)` | `(sortDate) WHERE enclosureQueued == YES` | the podcast queue, oldest first |
    /// | `(syncID)` | `(syncID) WHERE syncID != nil` | sync's look-ups by id (`syncID IN …`, pages by `syncID >`) |
    /// | `(syncReadPending, syncFlagPending)` | the same `WHERE syncReadPending == YES OR syncFlagPending == YES` | the marks to push (``SyncQueue/pendingItems``, each branch of whose OR implies the condition) |
    ///
    /// A fetch uses such an index only when its predicate implies the index's condition (SQLite
    /// matches the terms: `flagged == YES`, `syncID IN …`, `syncReadPending == YES OR …`). In version 5 every
    /// new item added an entry to each of the four (the flagged index's at a random place in
    /// a large tree, rewriting its pages in every save); `ItemListIndexTests`,
    /// `SyncPendingIndexTests` and `PodcastQueueIndexTests` check the query plans.
    static func rowsVersion6Additions(to entities: inout [EntityDescription]) {
        guard let item = entities.firstIndex(where: { $0.name == "FeedItem" }) else { return }
        entities[item].indexes.removeAll { $0 == ["flagged", "sortDate"] || $0 == ["syncReadPending", "syncFlagPending"] }
        for name in ["syncID", "enclosureQueued"] {
            if let a = entities[item].attributes.firstIndex(where: { $0.name == name }) {
                entities[item].attributes[a].isIndexed = false
            }
        }
        entities[item].partialIndexes += [flaggedItemsIndex, queuedEnclosuresIndex, syncedItemsIndex, pendingMarksIndex]
    }

    /// The flagged items by date (model version 6).
    static let flaggedItemsIndex = IndexDescription(
        ["flagged", "sortDate"], where: .comparison("flagged", .equalTo, true))
    /// The podcast queue by date (model version 6).
    static let queuedEnclosuresIndex = IndexDescription(
        ["sortDate"], where: .comparison("enclosureQueued", .equalTo, true))
    /// The synced items by sync id (model version 6).
    static let syncedItemsIndex = IndexDescription(["syncID"], where: .comparison("syncID", .notEqualTo, nil))
    /// The items with a mark to push (model version 6), read by ``SyncQueue/pendingItems``.
    static let pendingMarksIndex = IndexDescription(
        ["syncReadPending", "syncFlagPending"],
        where: .comparison("syncReadPending", .equalTo, true) || .comparison("syncFlagPending", .equalTo, true))

    /// The SQLite name of one of FeedItem's partial indexes in the current model (what
    /// `EXPLAIN QUERY PLAN` shows).
    static func itemIndexName(_ index: IndexDescription) -> String {
        (try? current.entity(named: "FeedItem").name(of: index)).flatMap { $0 } ?? "?"
    }
}
