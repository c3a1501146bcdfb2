import Foundation
import ObjectGraph
import ZeaderKit

extension AppState {
    /// The prompt `/` opens: a search of the feed whose items (or article) are shown, as in
    /// newsboat, else of every feed (from the feed list, a smart feed or search results).
    func searchPrompt() -> Prompt {
        if screen == .items || screen == .article, let list = items, case .server(let id) = list.source {
            return .searchFeed(text: "", server: id, title: list.title)
        }
        return .search(text: "")
    }
}

extension Prompt {
    /// The same text-entry prompt holding `text` (other prompts unchanged).
    func withText(_ text: String) -> Prompt {
        switch self {
        case .search: return .search(text: text)
        case .searchFeed(_, let server, let title): return .searchFeed(text: text, server: server, title: title)
        case .addFeed: return .addFeed(text: text)
        case .savePath: return .savePath(text: text)
        case .pipeCommand: return .pipeCommand(text: text)
        default: return self
        }
    }
}

extension ReaderModel {
    /// The items of one feed matching `text` (``ItemSearch``), exact title matches first.
    func feedSearchIDs(_ text: String, server: ObjectID) throws -> [ObjectID] {
        guard let url = (try? context.existingObject(with: server) as? Server)?.url else { return [] }
        let inFeed = ObjectPredicate.comparison(.keyPath("server.url"), .equalTo, .constant(.string(url)))
        return try ItemSearch.itemIDs(text, filter: inFeed, in: context)
    }

    /// Marks the items `ids` read, as one undo step ("Mark Read"); returns how many changed:
    /// `A` on search results.
    public func markRead(_ ids: [ObjectID]) throws -> Int {
        try ItemMarking.setRead(ids, true, in: context)
    }
}
