import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// newsboat's remaining actions: delete-article (`D`) and delete-all-articles (`^D`),
/// edit-flags (`^E`), the command line (`:`), toggle-source-view (`^U`) and goto-url (`#`).
/// The dialog keys are in ReaderApp+Dialogs.swift.
extension ReaderApp {
    /// `^E`: asks for the item's flag letters.
    func askFlags() {
        guard let id = currentItemID() else {
            state.say(.reader(.needsItem))
            return
        }
        state.prompt = .editFlags(text: ItemFlagLetters.letters(of: id, in: model.context), id: id)
    }

    /// `^U`: the article's HTML source, or its rendering.
    func toggleSourceView() {
        switch state.screen {
        case .article:
            guard var article = state.article else { return notHere(.toggleSourceView) }
            article.showsSource.toggle()
            article.renderedWidth = 0
            article.scroll = 0
            state.article = article
            state.say(.reader(.showingSource(article.showsSource)))
        case .feeds, .items, .help, .picker: notHere(.toggleSourceView)
        }
    }

    /// `#`: asks for the number of the link to open.
    func askURLNumber() {
        guard currentItemID() != nil else { return state.say(.reader(.needsItem)) }
        state.prompt = .gotoURL(text: "")
    }

    // MARK: Deleting items

    func deleteArticle() {
        guard let id = currentItemID() else {
            state.say(.reader(.needsItem))
            return
        }
        let title = model.itemRow(id)?.title ?? ""
        attempt {
            try ItemDeletion.delete([id], in: model.context)
            state.say(.reader(.deletedItem(title: title)))
        }
    }

    func confirmDeleteAllArticles() {
        guard state.screen == .items, state.items != nil else {
            state.say(.reader(.deleteAllNeedsAList))
            return
        }
        loadRestOfItemList()
        let ids = state.items?.ids ?? []
        guard !ids.isEmpty else {
            state.say(.reader(.noItemsToDelete))
            return
        }
        state.prompt = .confirmDeleteItems(count: ids.count, ids: ids)
    }

    func setFlags(_ text: String, on id: ObjectID) {
        do {
            let letters = try ItemFlagLetters.set(text, on: id, in: model.context)
            if state.article?.itemID == id { state.article?.flagLetters = letters.isEmpty ? nil : letters }
            state.say(.reader(.flagsSet(letters)))
        } catch {
            state.say(.failed("\(error)"))
        }
    }

    func gotoURL(_ text: String) {
        guard !text.isEmpty else { return }
        guard let number = Int(text) else {
            state.say(.reader(.notALinkNumber(text)))
            return
        }
        if state.screen == .article {
            openLink(number: number)
            return
        }
        guard let id = currentItemID(), let article = model.article(id) else { return }
        let links = Self.renderedBody(article, width: max(10, state.width - 1)).links
        guard number >= 1, number <= links.count else {
            state.say(.noLink(number))
            return
        }
        open(link: links[number - 1])
    }

    // MARK: Article source

    /// The article's body lines at `width` and its numbered links: rendered, or the HTML
    /// source (`^U`) wrapped at the width, with the rendering's links.
    static func renderedBody(_ article: ArticleState, width: Int) -> (lines: [String], links: [String]) {
        let rendered = HTMLText.render(article.bodyHTML, width: width, baseURL: article.baseURL)
        guard article.showsSource else { return (rendered.lines, rendered.links) }
        var lines: [String] = []
        for line in article.bodyHTML.split(separator: "\n", omittingEmptySubsequences: false) {
            var rest = DisplayWidth.sanitizeForTerminal(String(line)).replacingOccurrences(of: "\t", with: "    ")
            repeat {
                var head = ""
                var columns = 0
                while let c = rest.first, columns + DisplayWidth.of(String(c)) <= width {
                    columns += DisplayWidth.of(String(c))
                    head.append(rest.removeFirst())
                }
                if head.isEmpty, let c = rest.first {
                    head.append(c)
                    rest.removeFirst()
                }
                lines.append(head)
            } while !rest.isEmpty
        }
        return (lines, rendered.links)
    }
}
