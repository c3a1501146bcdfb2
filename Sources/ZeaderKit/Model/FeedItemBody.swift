import ObjectGraph

/// The HTML content of one ``FeedItem``, in its own table (model version 4).
///
/// An item's content is most of its bytes (kilobytes of HTML); its read and flagged state
/// is a few bytes. In one row, every change of state would rewrite a page holding the
/// content (`mark-read --all` in `scripts/bench-scale.sh`); apart, it rewrites a page of
/// narrow item rows.
/// Code reads and writes ``FeedItem/content``, which goes through ``FeedItem/body``; the
/// predicate language keeps calling it `content` (``ZeaderModel/itemPredicate(format:)``).
public final class FeedItemBody: ManagedObject {
    /// HTML.
    @Managed("content") public var content: String?
    @ToOne("item") public var item: FeedItem?

    /// Keeps the body's searched text (``text``) in step with its HTML.
    override public func willSave() throws {
        updateText()
    }
}

extension FeedItem {
    /// HTML: the content of the item's ``body``, nil when it has none. Setting a value
    /// makes the body if needed; setting nil removes it. (Through a model older than
    /// version 4, which a store is read with before it is migrated, the item's own column.)
    public var content: String? {
        get {
            guard entity.relationship(named: "body") != nil else {
                if case .string(let s)? = try? value(forKey: "content") { return s }
                return nil
            }
            return body?.content
        }
        set {
            if entity.relationship(named: "body") == nil {
                try? setValue(newValue.map(Value.string) ?? .null, forKey: "content")
            } else if let newValue {
                if let body {
                    if body.content != newValue { body.content = newValue }
                } else if let context = managedObjectContext {
                    let body = context.insert(FeedItemBody.self)
                    body.content = newValue
                    self.body = body
                }
            } else if let body {
                managedObjectContext?.delete(body)
                self.body = nil
            }
        }
    }
}

extension FeedItem {
    /// Sets the content of an item inserted in this batch, which has no body yet: the body is
    /// made without reading the item's empty `body` first, as ``content``'s setter must (a
    /// to-one read that also gives the item an observation registrar).
    func setNewContent(_ content: String) {
        guard let context = managedObjectContext, entity.relationship(named: "body") != nil else {
            self.content = content
            return
        }
        let body = context.insert(FeedItemBody.self)
        body.content = content
        self.body = body
    }
}

// v4: content out of the item's row; the single-column indexes the list indexes cover dropped.
extension ZeaderModel {
    /// Version 4 of the model: FeedItem's `content` moves to the new entity FeedItemBody,
    /// reached through the one-to-one `FeedItem.body` (cascade), so that changing an item's
    /// state rewrites a narrow row; and FeedItem's single-column `flagged` index goes (the
    /// `(flagged, sortDate)` index of version 3 serves the same look-ups; ObjectGraph leaves
    /// out `server`'s own index, which `(server, guid)` and `(server, sortDate)` cover). The
    /// step moves the data (``contentMove``).
    public static let version4 = olderModel(version: 4, entities: version4Entities())

    /// Version 4's entities.
    static func version4Entities(fullTextIndex: FullTextIndexDescription? = titleSearchIndex) -> [EntityDescription] {
        var entities = version3Entities(fullTextIndex: fullTextIndex)
        guard let item = entities.firstIndex(where: { $0.name == "FeedItem" }) else { return entities }
        entities[item].attributes.removeAll { $0.name == "content" }
        if let flagged = entities[item].attributes.firstIndex(where: { $0.name == "flagged" }) {
            entities[item].attributes[flagged].isIndexed = false
        }
        entities[item].relationships.append(
            .toOne("body", destination: "FeedItemBody", inverse: "item", deleteRule: .cascade))
        entities.append(
            EntityDescription(
                "FeedItemBody", managedClass: FeedItemBody.self, attributes: [.string("content")],
                relationships: [.toOne("item", destination: "FeedItem", inverse: "body")]))
        return entities
    }

    /// The step from version 3 to 4: each item's content becomes a FeedItemBody row.
    static let contentMove = AttributeMove(
        entity: "FeedItem", attributes: ["content"], to: "FeedItemBody", through: "body", toVersion: 4)

    /// A predicate over FeedItem in the languages users write (`--where`, smart feeds,
    /// ignore rules, filters): `content` is read through the item's body. Text that is not a
    /// valid ObjectGraph predicate over FeedItem but reads as a newsboat filter
    /// (``NewsboatFilter``) is translated, its `age` counted from the start of the current hour
    /// (so that the kept counts of a smart feed change once an hour, not at every redraw).
    ///
    /// ```swift
    /// let p = try ZeaderModel.itemPredicate(format: "content CONTAINS[cd] \"linux\"")   // body.content …
    /// let q = try ZeaderModel.itemPredicate(format: "unread = \"yes\" and tags # \"tech\"")   // newsboat's
    /// ```
    public static func itemPredicate(format: String) throws(ObjectGraphError) -> ObjectPredicate {
        try itemPredicate(format: format, now: NewsboatFilter.currentHour())
    }

    /// `predicate` with FeedItem's `content` read through the item's body.
    public static func itemPredicate(_ predicate: ObjectPredicate) -> ObjectPredicate {
        predicate.replacingKeyPaths { $0 == "content" ? "body.content" : $0 }
    }
}
