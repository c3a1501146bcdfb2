import Feeds
import Foundation
import ObjectGraph

// v9 (body search): the plain text of each item's body, which the search index takes with
// the item's title, author and summary, so that `/` and `zeader items --search` find a word
// anywhere in an article. Additive; a migration policy fills the text of stored bodies.

extension FeedItemBody {
    /// The plain text of the item's full article when one was fetched, else of its content:
    /// what search reads (model version 9). Kept by ``willSave()``; nil through older models.
    ///
    /// ```swift
    /// body.content = "<p>Fish &amp; chips</p>"   // once saved: body.text == "Fish & chips"
    /// ```
    public var text: String? {
        String(fromValue: self["text"])
    }

    /// Makes ``text`` again when the content or the article changed: one place, whoever
    /// writes them (refresh, sync, full articles, imports). Called by ``willSave()``.
    func updateText() {
        guard !isDeleted, entity.attribute(named: "text") != nil else { return }
        let changed = changedValues()
        guard isInserted || changed["content"] != nil || changed["article"] != nil else { return }
        let text = Self.searchText(content: content, article: article)
        if String(fromValue: self["text"]) != text { self["text"] = text.valueRepresentation }
    }

    /// The text search takes from a body's HTML: the article's, else the content's.
    static func searchText(content: String?, article: String?) -> String? {
        guard let html = article ?? content else { return nil }
        let text = HTMLText.plainText(html)
        return text.isEmpty ? nil : text
    }
}

extension ZeaderModel {
    /// The full-text index ``ItemSearch`` searches: an item's title, author, the start of
    /// its summary (``titleSearchIndex``), and the plain text of its body
    /// (``FeedItemBody/text``), through the item's `body` relationship: one index, so every
    /// word of a search may stand in any of them.
    ///
    /// Its table is `ZSEARCH`: a store holding a `ZSEARCH` table that ObjectGraph has not
    /// recorded as its own index gets that table and its triggers dropped at open, and the
    /// index built afresh.
    ///
    /// ```swift
    /// let keys = ZeaderModel.searchIndex.attributes   // ["title", "author", "summary", "body.text"]
    /// ```
    public static let searchIndex: FullTextIndexDescription = {
        var index = titleSearchIndex
        index.attributes.append("body.text")
        return index
    }()

    /// Version 9's entities: FeedItemBody's `text`, and FeedItem's index with it.
    static func version9Entities() -> [EntityDescription] {
        var entities = version8Entities()
        if let body = entities.firstIndex(where: { $0.name == "FeedItemBody" }) {
            entities[body].attributes.append(.string("text"))
        }
        if let item = entities.firstIndex(where: { $0.name == "FeedItem" }) {
            entities[item].fullTextIndex = searchIndex
        }
        return entities
    }

    /// The step to version 9 makes the text of every stored body.
    static let bodyTextFill = EntityMigrationPolicy(entity: "FeedItemBody", toVersion: 9) { row in
        let text = FeedItemBody.searchText(
            content: String(fromValue: row.old["content"] ?? .null), article: String(fromValue: row.old["article"] ?? .null))
        row["text"] = text.valueRepresentation
    }
}
