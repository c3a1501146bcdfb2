import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// What the keys on one item do, whichever screen shows it: the item list passes the item
/// under the cursor, the article view the item it shows.
extension ReaderApp {
    func onItem(_ action: ItemAction, _ id: ObjectID) {
        switch action {
        case .toggleRead:
            toggleRead(id)
            if config.behaviour.toggleReadJumpsToNextUnread { moveToNextUnreadInList() }
        case .toggleFlag: toggleFlag(id)
        case .enqueue: enqueue(id)
        case .deleteArticle: deleteArticle(id)
        case .editFlags: state.prompt = .editFlags(text: ItemFlagLetters.letters(of: id, in: model.context), id: id)
        case .gotoURL: state.prompt = .gotoURL(text: "")
        case .openInBrowser: openInBrowser(id)
        case .openInBrowserAndMarkRead:
            openInBrowser(id)
            if !model.isRead(id) { attempt { try model.setRead(id, true) } }
            if config.behaviour.openAndMarkJumpsToNextUnread { moveToNextUnreadInList() }
        case .showUrls: showLinkList(id)
        case .save:
            guard let article = article(of: id) else { return state.say(.reader(.needsItem)) }
            state.prompt = .savePath(text: ArticleExport.proposedPath(article, folder: config.articleCommands.savePath))
        case .pipeTo: state.prompt = .pipeCommand(text: "")
        case .bookmark: bookmark(id)
        case .fullArticle: toggleFullArticle(id)
        case .editTags: state.prompt = .editTags(text: ItemTagging.text(of: id, in: model.context), id: id)
        }
    }

    /// The item on screen: the article shown, or the item under the cursor of the list. What
    /// a prompt opened by an item key (save, pipe, goto-url) acts on when it is answered.
    func currentItemID() -> ObjectID? {
        switch state.top {
        case .article(let article): return article.itemID
        case .items(let list): return list.selectedID
        case .feeds, .help, .picker: return nil
        }
    }

    /// The item's article: the one shown, else read from the model with its links numbered as
    /// the article view numbers them.
    func article(of id: ObjectID) -> ArticleState? {
        if let shown = state.article, shown.itemID == id, shown.renderedWidth > 0 { return shown }
        guard var article = state.article?.itemID == id ? state.article : model.article(id) else { return nil }
        article.links = Self.renderedBody(article, width: max(10, state.width - 1)).links
        return article
    }

    func toggleRead(_ id: ObjectID) {
        let read = !model.isRead(id)
        attempt {
            try model.setRead(id, read)
            state.say(.markedRead(read))
        }
    }

    func toggleFlag(_ id: ObjectID) {
        let flagged = !model.isFlagged(id)
        attempt {
            try model.setFlagged(id, flagged)
            state.say(.flagged(flagged))
        }
    }

    func enqueue(_ id: ObjectID) {
        guard model.enclosure(id) != nil else { return state.say(.noEnclosure) }
        attempt { state.say(.enqueued(try model.enqueue(id))) }
    }

    func deleteArticle(_ id: ObjectID) {
        let title = model.itemRow(id)?.title ?? ""
        attempt {
            try ItemDeletion.delete([id], in: model.context)
            state.say(.reader(.deletedItem(title: title)))
        }
    }

    func openInBrowser(_ id: ObjectID) {
        guard let link = article(of: id)?.link, !link.isEmpty else { return state.say(.noLinkToOpen) }
        open(link: link)
    }

    /// `u`/`U`: the item's links numbered as the article numbers them (``ArticleLinks``: the
    /// body's, then its enclosures, which `o` opens as any link, so a `browser` macro may hand
    /// one to a player), then the item's own link when the body does not have it.
    func showLinkList(_ id: ObjectID) {
        if showLinksExternally(id) { return }  // external-url-viewer
        guard let article = article(of: id) else { return state.say(.reader(.needsItem)) }
        var links = article.links
        // Pictures are named by their alt text, under the number the article shows them with.
        let pictures = pictureLinks(article)
        var entries = links.enumerated().map { offset, url in
            let enclosure = article.enclosures.first { $0.url == url }
            let picture = pictures.first { $0.url == url }.map { "\($0.entry)  \(url)" }
            return "\(offset + 1)  " + (enclosure.map { "\($0.summary)  [enclosure]" } ?? picture ?? url)
        }
        if let link = article.link, !link.isEmpty, !links.contains(link) {
            links.append(link)
            entries.append("\(links.count)  \(link)  [the item's link]")
        }
        for (url, entry) in pictures where !links.contains(url) {
            links.append(url)
            entries.append("\(links.count)  \(entry)")
        }
        guard !links.isEmpty else { return state.say(.reader(.noLinks)) }
        state.stack.append(
            .picker(PickerState(kind: .links, title: "Links of \(article.title)", entries: entries, values: links)))
    }

    /// `^B`: runs `bookmark-cmd` with the article's link.
    func bookmark(_ id: ObjectID) {
        guard let article = article(of: id) else { return state.say(.reader(.needsItem)) }
        guard let command = config.articleCommands.bookmarkCommand, !command.isEmpty else {
            return state.say(.reader(.noBookmarkCommand))
        }
        guard let link = article.link, !link.isEmpty else { return state.say(.reader(.noLinkToBookmark)) }
        let program: ProgramRun
        do { program = try ArticleCommands.bookmark(article, command: command, link: link) } catch {
            return state.say(.failed(error.description))
        }
        state.say(ArticleCommands.outcome(program, effects.run(program, backend: backend)))
    }

    // MARK: The prompts item keys open

    /// The save prompt's ENTER.
    func save(to path: String) {
        guard let article = currentItemID().flatMap(article(of:)) else { return }
        state.say(ArticleCommands.save(article, to: path, width: max(20, min(state.width - 1, 100))))
    }

    /// The pipe prompt's ENTER.
    func pipe(to command: String) {
        guard let article = currentItemID().flatMap(article(of:)) else { return }
        let program: ProgramRun
        do {
            program = try ArticleCommands.pipe(
                article, to: command, width: max(20, min(state.width - 1, 100)), throughShell: config.runThroughShell)
        } catch {
            return state.say(.failed(error.description))
        }
        state.say(ArticleCommands.outcome(program, effects.run(program, backend: backend)))
    }

    /// The goto-url prompt's ENTER: the item's link numbered `text`.
    func gotoURL(_ text: String) {
        guard !text.isEmpty else { return }
        guard let number = Int(text) else { return state.say(.reader(.notALinkNumber(text))) }
        guard let links = currentItemID().flatMap(article(of:))?.links else { return }
        guard number >= 1, number <= links.count else { return state.say(.noLink(number)) }
        open(link: links[number - 1])
    }
}
