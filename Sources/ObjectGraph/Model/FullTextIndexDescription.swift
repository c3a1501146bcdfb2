/// A full-text index over string attributes of an entity: SQLite FTS5 with the
/// `unicode61 remove_diacritics 2` tokenizer (case- and diacritic-insensitive), as an
/// external-content table (no second copy of the text) kept up to date by triggers on the
/// entity's table, so rows written by any connection or process are indexed in the same
/// transaction. The update trigger fires only when an indexed column really changes.
///
/// The store creates the index when it is created, and adds (and fills) it when a store
/// without it is opened, or when the indexed attributes changed; a migration that rebuilds
/// the entity's table gets its triggers back at the next open. Search it with
/// ``FetchRequest/searchText``.
///
/// An attribute may also be a key path through a to-one relationship stored in the entity's
/// table (`"body.text"`): the object is then found by the words of its related object too,
/// in one index and one query, and triggers on the destination's table keep the entry in step
/// when the related object changes, is added or goes.
///
/// ```swift
/// let item = EntityDescription("FeedItem", attributes: [.string("title"), .string("author")],
///                              fullTextIndex: FullTextIndexDescription(attributes: ["title", "author"]))
/// let withBody = FullTextIndexDescription(attributes: ["title", "body.text"])
/// ```
public struct FullTextIndexDescription: Sendable, Hashable {
    /// The indexed attributes (stored string attributes, or `relationship.attribute` through a
    /// to-one relationship stored in the entity's table), in column order.
    public var attributes: [String]
    /// The FTS5 table's name; nil: `Z_<Entity>_FTS`.
    public var tableName: String?
    /// For attributes of which only the start is worth indexing (an extract of a long
    /// text): how many characters of it the index takes. The index then reads its rows
    /// through a view (`<table>_source`) that cuts them, still without a copy of the text.
    public var extractLengths: [String: Int] = [:]

    /// An index over `attributes`, in a table named `tableName` (by default `Z_<Entity>_FTS`).
    ///
    /// ```swift
    /// let index = FullTextIndexDescription(attributes: ["title", "summary"])
    /// let named = FullTextIndexDescription(attributes: ["title"], tableName: "ZSEARCH")
    /// ```
    public init(attributes: [String], tableName: String? = nil) {
        self.attributes = attributes
        self.tableName = tableName
    }
}
