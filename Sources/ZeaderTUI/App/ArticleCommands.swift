import Foundation

/// What `s` (save), `|` (pipe-to) and `^B` (bookmark) do with the article shown (or the
/// item selected in a list): a save returns the status line's message and whether it is an
/// error; pipe-to and bookmark return the program to run (``ProgramRun``), which the reader
/// hands to its ``ReaderEffects``.
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

    /// The program that pipes the article's text to `command` (split into words, no shell).
    static func pipe(_ article: ArticleState, to command: String, width: Int) throws(ExportError) -> ProgramRun {
        let argv = try CommandRunner.arguments(command)
        return ProgramRun(argv: argv, input: Data(ArticleExport.text(article, width: width).utf8), purpose: .pipe)
    }

    /// The program `bookmark-cmd` names, with the URL, title, description and feed title.
    static func bookmark(_ article: ArticleState, command: String?) throws(ExportError) -> ProgramRun {
        guard let command, !command.isEmpty else { throw ExportError("No bookmark-cmd in the config file") }
        guard let link = article.link, !link.isEmpty else { throw ExportError("The item has no link to bookmark") }
        return ProgramRun(argv: try ArticleExport.bookmarkCommand(command, article: article), purpose: .bookmark(link: link))
    }

    /// The status line for how a program ended, and whether it is an error.
    static func outcome(_ program: ProgramRun, _ result: Result<Int32, ProgramRun.Failure>) -> (String, Bool) {
        switch (result, program.purpose) {
        case (.failure(let failure), _): return (failure.description, true)
        case (.success(0), .bookmark(let link)): return ("Bookmarked \(link)", false)
        case (.success(0), .pipe): return ("Piped to \(program.argv[0])", false)
        case (.success(0), .browser(let link)): return ("Opened \(link)", false)
        case (.success(0), .editor(let path)): return ("Edited \(path)", false)
        case (.success(let status), _): return ("\(program.argv[0]) exited with status \(status)", true)
        }
    }
}
