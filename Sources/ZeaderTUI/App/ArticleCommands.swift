import Foundation

/// What `s` (save), `|` (pipe-to) and `^B` (bookmark) do with the article shown (or the
/// item selected in a list), each returning the status line's message and whether it is an
/// error. The reader suspends the terminal around the commands that run programs.
enum ArticleCommands {
    /// The article `s`, `|` and `^B` act on: the one shown, else the selected item's.
    static func target(_ state: AppState, model: ReaderModel) -> ArticleState? {
        switch state.screen {
        case .article: return state.article
        case .items: return state.items?.selectedID.flatMap { model.article($0) }
        case .feeds, .help, .picker: return nil
        }
    }

    static func save(_ article: ArticleState, to path: String, width: Int) -> (String, Bool) {
        do {
            let written = try ArticleExport.save(article, to: path, width: width)
            return ("Saved to \(written)", false)
        } catch {
            return (error.description, true)
        }
    }

    /// Pipes the article's text to `command` (split into words, no shell).
    static func pipe(_ article: ArticleState, to command: String, width: Int) -> (String, Bool) {
        do {
            let argv = try CommandRunner.arguments(command)
            let status = try CommandRunner.run(argv, input: Data(ArticleExport.text(article, width: width).utf8))
            return status == 0 ? ("Piped to \(argv[0])", false) : ("\(argv[0]) exited with status \(status)", true)
        } catch {
            return (error.description, true)
        }
    }

    /// Runs `bookmark-cmd` with the URL, title, description and feed title.
    static func bookmark(_ article: ArticleState, command: String?) -> (String, Bool) {
        guard let command, !command.isEmpty else { return ("No bookmark-cmd in the config file", true) }
        guard let link = article.link, !link.isEmpty else { return ("The item has no link to bookmark", true) }
        do {
            let argv = try ArticleExport.bookmarkCommand(command, article: article)
            let status = try CommandRunner.run(argv)
            return status == 0 ? ("Bookmarked \(link)", false) : ("\(argv[0]) exited with status \(status)", true)
        } catch {
            return (error.description, true)
        }
    }
}
