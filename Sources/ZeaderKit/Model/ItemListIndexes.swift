import ObjectGraph

// v3 (scale): indexes that serve the item lists newest first.
extension ZeaderModel {
    /// The FeedItem indexes model version 3 adds: each list the reader and `zeader items`
    /// show a page of — unread, flagged, one feed's — is an equality on the first key and
    /// ``ItemOrder``'s order on the rest (`sortDate` descending, then the primary key, which
    /// every SQLite index ends with), so SQLite reads a page of it backwards with no sort
    /// and no scan: the cost of a page follows its length, not the store's size.
    /// `ItemListIndexTests` checks the query plans.
    static let itemListIndexes: [[String]] = [["read", "sortDate"], ["flagged", "sortDate"], ["server", "sortDate"]]

}
