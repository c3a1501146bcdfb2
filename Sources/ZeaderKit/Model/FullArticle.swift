import Foundation
import ObjectGraph

// v8 (full articles): the article extracted from an item's web page, beside the feed's
// content in the item's body, and the feeds that get them at each refresh. Additive
// (optional or defaulted attributes), so the step from version 7 is inferred.

extension FeedItemBody {
    /// The article extracted from the item's web page (HTML), once fetched (model version 8):
    /// the reader shows it in place of the feed's content, offline too.
    public var article: String? {
        get { String(fromValue: self["article"]) }
        set { self["article"] = newValue.valueRepresentation }
    }

    /// Why the last fetch of the item's page gave no article (one line), nil after a success.
    public var articleProblem: String? {
        get { String(fromValue: self["articleProblem"]) }
        set { self["articleProblem"] = newValue.valueRepresentation }
    }

    /// When the item's page was last fetched for its article.
    public var articleFetched: Date? {
        get { Date(fromValue: self["articleFetched"]) }
        set { self["articleFetched"] = newValue.valueRepresentation }
    }
}

extension Server {
    /// Whether each refresh fetches the full article of the feed's new items (model version 8):
    /// `zeader add --full-article`, `zeader full-article`.
    ///
    /// ```swift
    /// server.fullArticle = true
    /// ```
    public var fullArticle: Bool {
        get { if case .bool(let value) = self["fullArticle"] { value } else { false } }
        set { self["fullArticle"] = .bool(newValue) }
    }
}

extension ZeaderModel {
    /// Version 8's additions: FeedItemBody's `article`, `articleProblem`, `articleFetched`,
    /// and Server's `fullArticle`.
    static func fullArticleVersion8Additions(to entities: inout [EntityDescription]) {
        if let server = entities.firstIndex(where: { $0.name == "Server" }) {
            entities[server].attributes.append(.bool("fullArticle", defaultValue: false))
        }
        if let body = entities.firstIndex(where: { $0.name == "FeedItemBody" }) {
            entities[body].attributes += [.string("article"), .string("articleProblem"), .date("articleFetched")]
        }
    }
}
