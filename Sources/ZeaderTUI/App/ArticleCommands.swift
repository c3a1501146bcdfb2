import Foundation

/// What `s` (save), `|` (pipe-to) and `^B` (bookmark) do with the article shown (or the
/// item selected in a list): a save returns its status line; pipe-to and bookmark return the
/// program to run (``ProgramRun``), which the reader hands to its ``ReaderEffects``.
enum ArticleCommands {
    static func save(_ article: ArticleState, to path: String, width: Int) -> StatusMessage {
        do { return .reader(.saved(to: try ArticleExport.save(article, to: path, width: width))) } catch {
            return .failed(error.description)
        }
    }

    /// The program that pipes the article's text to `command` (split into words, no shell).
    /// Through `sh -c` as newsboat runs it (`run-through-shell yes`, the default), so that
    /// `grep … | xargs mpv` works: the command is the user's own, nothing of the item's is
    /// placed in it; else its words as the program's arguments.
    static func pipe(
        _ article: ArticleState, to command: String, width: Int, throughShell: Bool = false
    ) throws(ExportError) -> ProgramRun {
        let argv = throughShell ? ["/bin/sh", "-c", command] : try CommandRunner.arguments(command)
        return ProgramRun(argv: argv, input: Data(ArticleExport.text(article, width: width).utf8), purpose: .pipe)
    }

    /// The program `bookmark-cmd` (`command`) names, with the URL, title, description and feed title.
    static func bookmark(_ article: ArticleState, command: String, link: String) throws(ExportError) -> ProgramRun {
        ProgramRun(argv: try ArticleExport.bookmarkCommand(command, article: article), purpose: .bookmark(link: link))
    }

    /// The status line for how a program ended.
    static func outcome(_ program: ProgramRun, _ result: Result<Int32, ProgramRun.Failure>) -> StatusMessage {
        switch (result, program.purpose) {
        case (.failure(let failure), _): return .failed(failure.description)
        case (.success(0), .bookmark(let link)): return .reader(.bookmarked(link))
        case (.success(0), .pipe): return .reader(.piped(to: program.commandName))
        case (.success(0), .browser(let link)): return .opened(link)
        case (.success(0), .editor(let path)): return .reader(.edited(path))
        case (.success(0), .player(let file)): return .reader(.podcast(.played(file)))
        case (.success(let status), _): return .programExited(command: program.commandName, status: status)
        }
    }
}
