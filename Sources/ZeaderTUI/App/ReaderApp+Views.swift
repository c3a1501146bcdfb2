import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The views: hidden read feeds and items, sort orders, the tag list, the filter and the
/// link list. Every change re-runs the list's query (``ItemListing``) or re-arranges the
/// feed rows (a few thousand at most); none walks the items in memory.
extension ReaderApp {
    /// `l`: shows or hides the feeds without unread items.
    func toggleShowReadFeeds() {
        state.views.showReadFeeds.toggle()
        rearrangeFeeds()
        state.say(.reader(.showingReadFeeds(state.views.showReadFeeds)))
        viewsChanged()
    }

    /// `L`: shows or hides the read items.
    func toggleShowReadArticles() {
        state.views.showReadArticles.toggle()
        reloadItemList()
        state.say(.reader(.showingReadArticles(state.views.showReadArticles)))
        viewsChanged()
    }

    /// `^T`: the feeds of every tag.
    func clearTag() {
        state.views.tag = nil
        rearrangeFeeds()
        state.say(.reader(.showingTag(nil)))
    }

    /// The feed rows as the views show them, keeping the open feed listed.
    func arrangedFeeds(_ rows: [FeedRow]) -> [FeedRow] {
        let open: FeedRow.Kind?
        if case .server(let id)? = state.items?.source { open = .server(id) } else { open = nil }
        return state.views.arranged(rows, keeping: open)
    }

    /// Re-reads and re-arranges the feed list, keeping the cursor on the same feed.
    func rearrangeFeeds() {
        let selected = state.selectedFeed?.kind
        modelChanged = true
        reloadFromModel()
        if let selected, let index = state.feeds.firstIndex(where: { $0.kind == selected }) {
            state.feedPosition.set(index, count: state.feeds.count, height: state.listHeight)
        }
    }

    /// Re-runs the open item list's query with the current views, keeping the cursor on the
    /// same item when it is still listed. Returns the query's error.
    @discardableResult
    func reloadItemList(filter: String?? = .none) -> (any Error)? {
        guard var list = state.items else { return nil }
        let newFilter = filter ?? list.filter
        do {
            let selected = list.selectedID
            (list.ids, list.isComplete) = try model.itemPage(
                list.source, views: state.views, filter: newFilter, atLeast: list.position.cursor + 2 * state.listHeight)
            list.filter = newFilter
            list.rows = [:]
            list.position.cursor = selected.flatMap { list.ids.firstIndex(of: $0) } ?? min(list.position.cursor, list.ids.count)
            state.items = list
            state.clampPositions()
            return nil
        } catch {
            return error
        }
    }

    /// Reads the rest of a list shown from its first pages, once the cursor is within two
    /// screens of their end.
    func loadRestOfItemListIfNear() {
        guard let list = state.items, !list.isComplete, list.position.cursor + 2 * state.listHeight >= list.ids.count else {
            return
        }
        loadRestOfItemList()
    }

    /// Reads the whole list (its first pages are the start of it: the cursor stays put).
    func loadRestOfItemList() {
        guard var list = state.items, !list.isComplete else { return }
        do {
            list.ids = try model.itemIDs(list.source, views: state.views, filter: list.filter)
            list.isComplete = true
            state.items = list
        } catch {
            state.say(.failed("\(error)"))
        }
    }

    /// Writes the views to the state file, when there is one, so they hold next time.
    func viewsChanged() {
        guard let url = config.viewStateURL else { return }
        do { try ViewStateFile.write(state.views, over: config.viewsInConfigFile, to: url) } catch {
            state.say(.reader(.cannotWrite(path: url.path, "\(error)")))
        }
    }

    func applySort(_ name: String, reverse: Bool, feeds: Bool) {
        if feeds {
            guard let field = FeedSortOrder.Field(rawValue: name) else { return }
            var order = FeedSortOrder(field: field)
            if reverse { order.ascending.toggle() }
            state.views.feedOrder = order
            rearrangeFeeds()
            state.say(.reader(.sortedBy(order.name)))
        } else {
            guard let field = ItemSortOrder.Field(rawValue: name) else { return }
            var order = ItemSortOrder(field: field)
            if reverse { order.ascending.toggle() }
            state.views.itemOrder = order
            if let error = reloadItemList() { state.say(.failed("\(error)")) } else { state.say(.reader(.sortedBy(order.name))) }
        }
        viewsChanged()
    }

    /// Narrows the list on screen by `text` (empty: no filter); a bad predicate reopens the
    /// prompt with the error under it.
    func applyFilter(_ text: String) {
        let filter = text.isEmpty ? nil : text
        let started = Date()
        if state.screen == .items {
            if let error = reloadItemList(filter: .some(filter)) {
                state.prompt = .filter(text: text, error: "\(error)")
                return
            }
        } else {
            do {
                state.views.feedFilterMatches = try filter.map(model.serverIDs(matching:)) ?? []
                state.views.feedFilter = filter
            } catch {
                state.prompt = .filter(text: text, error: "\(error)")
                return
            }
            rearrangeFeeds()
        }
        guard filter != nil else {
            state.say(.reader(.filterCleared))
            return
        }
        let count = state.screen == .items ? state.items?.ids.count ?? 0 : state.feeds.count
        state.say(.reader(.filtered(count: count, milliseconds: Int(Date().timeIntervalSince(started) * 1000))))
    }

    // MARK: Tag list and link list

    func showTagList() {
        do {
            let tags = try model.tagCounts()
            guard !tags.isEmpty else {
                state.say(.reader(.noTags))
                return
            }
            var picker = PickerState(
                kind: .tags, title: "Tags", entries: tags.map { "\($0.tag) (\($0.feeds) feeds)" }, values: tags.map(\.tag))
            if let current = state.views.tag, let index = picker.values.firstIndex(of: current) {
                picker.position.set(index, count: tags.count, height: state.listHeight)
            }
            state.stack = [.feeds, .picker(picker)]
        } catch {
            state.say(.failed("\(error)"))
        }
    }

    /// Writes the link list's links, one per line, to `path` (`~` is the home folder).
    func writeLinks(to path: String) {
        guard let links = state.picker?.values, !path.isEmpty else { return }
        let expanded = (path as NSString).expandingTildeInPath
        do {
            try (links.joined(separator: "\n") + "\n").write(toFile: expanded, atomically: true, encoding: .utf8)
            state.say(.reader(.wroteLinks(count: links.count, path: expanded)))
        } catch {
            state.say(.reader(.cannotWrite(path: expanded, (error as NSError).localizedDescription)))
        }
    }
}
