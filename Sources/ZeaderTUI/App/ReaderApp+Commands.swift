import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// newsboat's remaining actions: delete-article (`D`) and delete-all-articles (`^D`),
/// edit-flags (`^E`), the command line (`:`), toggle-source-view (`^U`) and goto-url (`#`).
/// The dialog keys are in ReaderApp+Dialogs.swift.
extension ReaderApp {
    func performCommand(_ action: Action) {
        switch action {
        case .deleteArticle: deleteArticle()
        case .deleteAllArticles: confirmDeleteAllArticles()
        case .editFlags:
            guard let id = currentItemID() else {
                state.say("Select or open an item to edit its flags", error: true)
                return
            }
            state.prompt = .editFlags(text: ItemFlagLetters.letters(of: id, in: model.context), id: id)
        case .cmdline: state.prompt = .cmdline(text: "")
        case .toggleSourceView:
            guard state.screen == .article, var article = state.article else { return }
            article.showsSource.toggle()
            article.renderedWidth = 0
            article.scroll = 0
            state.article = article
            state.say(article.showsSource ? "Showing the HTML source (^U: rendered)" : "Showing the rendered article")
        case .gotoURL:
            guard [.article, .items].contains(state.screen), currentItemID() != nil else {
                state.say(.reader(.needsItem))
                return
            }
            state.prompt = .gotoURL(text: "")
        case .viewDialogs, .closeDialog, .nextDialog, .prevDialog: performDialog(action)
        case .editURLs: editURLs()
        case .selectFilter: showFilterList()
        default: break
        }
    }

    /// The item on screen: the article shown, or the item under the cursor of the list.
    func currentItemID() -> ObjectID? {
        switch state.screen {
        case .article: return state.article?.itemID
        case .items: return state.items?.selectedID
        default: return nil
        }
    }

    // MARK: Deleting items

    private func deleteArticle() {
        guard let id = currentItemID() else {
            state.say("Select or open an item to delete it", error: true)
            return
        }
        let title = model.itemRow(id)?.title ?? ""
        attempt {
            try ItemDeletion.delete([id], in: model.context)
            state.say("Deleted \(title.isEmpty ? "the item" : "'\(title)'") (u to undo)")
        }
    }

    private func confirmDeleteAllArticles() {
        guard state.screen == .items, state.items != nil else {
            state.say("Open a feed's item list to delete its items", error: true)
            return
        }
        loadRestOfItemList()
        let ids = state.items?.ids ?? []
        guard !ids.isEmpty else {
            state.say("No items to delete", error: true)
            return
        }
        state.prompt = .confirmDeleteItems(count: ids.count, ids: ids)
    }

    // MARK: Prompts

    /// The keys of the command line, the flags, the URL number and the delete-all prompts;
    /// false for other prompts.
    func handleCommandPromptKey(_ key: Key, _ prompt: Prompt) -> Bool {
        switch prompt {
        case .confirmDeleteItems(_, let ids):
            let yes = key == .character("y") || key == .character("Y")
            guard yes || key == .character("n") || key == .character("N") || key == .escape else { return true }
            state.prompt = nil
            if yes { attempt { state.say("Deleted \(try ItemDeletion.delete(ids, in: model.context)) items (u to undo)") } }
            return true
        case .cmdline(let text):
            if let text = edit(text, with: key, submit: runCommandLine) { state.prompt = .cmdline(text: text) }
            return true
        case .editFlags(let text, let id):
            if let text = edit(text, with: key, submit: { setFlags($0, on: id) }) {
                state.prompt = .editFlags(text: text, id: id)
            }
            return true
        case .gotoURL(let text):
            if let text = edit(text, with: key, submit: gotoURL) { state.prompt = .gotoURL(text: text) }
            return true
        default: return false
        }
    }

    private func setFlags(_ text: String, on id: ObjectID) {
        do {
            let letters = try ItemFlagLetters.set(text, on: id, in: model.context)
            if state.article?.itemID == id { state.article?.flagLetters = letters.isEmpty ? nil : letters }
            state.say(letters.isEmpty ? "Flags cleared" : "Flags: \(letters)")
        } catch {
            state.say("\(error)", error: true)
        }
    }

    private func gotoURL(_ text: String) {
        guard !text.isEmpty else { return }
        guard let number = Int(text) else {
            state.say("Not a link number: \(text)", error: true)
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

extension Prompt {
    /// The lines of the prompts added for newsboat's command line and item commands.
    var commandsLine: String {
        switch self {
        case .cmdline(let text): return ":" + text
        case .editFlags(let text, _): return "Flags (letters A-Z, a-z): " + text
        case .gotoURL(let text): return "Go to URL #" + text
        case .confirmDeleteItems(let count, _): return "Delete all \(count) items of this list? [y/n]"
        default: return ""
        }
    }
}
