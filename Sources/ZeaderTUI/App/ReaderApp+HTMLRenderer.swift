import Dispatch
import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig

#if canImport(Glibc)
    import Glibc
#endif

/// newsboat's `html-renderer`: the article's HTML on the standard input of the command the
/// user's config names (run as the other article commands, through `sh -c`; nothing of the
/// feed's is put in the command line), and its output shown as the article's text. Zeader's
/// own rendering shows until the output comes; a renderer that fails, runs too long or writes
/// too much leaves it, with one line saying why.
extension ReaderApp {
    /// The most a renderer may write, and how long it may take.
    static let htmlRendererOutputLimit = 4 * 1024 * 1024
    static let htmlRendererTimeout: Duration = .seconds(20)

    /// Starts the renderer on the article shown, when the config names one.
    func renderWithHTMLRenderer() {
        guard let command = config.articleCommands.htmlRenderer, let article = state.article,
            !article.bodyHTML.isEmpty
        else { return }
        let id = article.itemID
        let html = Data(article.bodyHTML.utf8)
        effects.task { [self] in
            let outcome = await Self.runHTMLRenderer(command, html: html)
            queue.async { [self] in
                showRendered(outcome, for: id, from: article.bodyHTML)
                redraw()
            }
        }
    }

    /// The renderer's output, or the words saying why there is none.
    static func runHTMLRenderer(_ command: String, html: Data) async -> Result<String, ProgramRun.Failure> {
        let nullDevice = Glibc.open("/dev/null", O_WRONLY | O_CLOEXEC)
        defer { if nullDevice >= 0 { Glibc.close(nullDevice) } }
        do {
            // Its messages on standard error would write over the reader's screen.
            let outcome = try await Subprocess.run(
                ShellCommand.argv(command), input: html, standardError: nullDevice >= 0 ? nullDevice : 2,
                outputLimit: htmlRendererOutputLimit, timeout: htmlRendererTimeout)
            if outcome.timedOut { return .failure(.init("html-renderer: \(command): no output within 20 s")) }
            if outcome.outputTooLarge { return .failure(.init("html-renderer: \(command): output over 4 MB")) }
            guard case .exited(0) = outcome.termination else {
                return .failure(.init("html-renderer: \(command): \(outcome.termination)"))
            }
            return .success(String(decoding: outcome.output, as: UTF8.self))
        } catch {
            return .failure(.init("html-renderer: \(error)"))
        }
    }

    /// Puts the renderer's text in place of the article's body, if the article is still the one shown.
    private func showRendered(_ outcome: Result<String, ProgramRun.Failure>, for id: ObjectID, from html: String) {
        guard var article = state.article, article.itemID == id, article.bodyHTML == html else { return }
        switch outcome {
        case .failure(let failure): state.say(.failed(failure.description))
        case .success(let text):
            article.bodyHTML = Self.preformatted(text)
            article.renderedWidth = 0
            state.article = article
        }
    }

    /// The renderer's text as HTML that keeps its lines: escaped, in a `<pre>`.
    static func preformatted(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        return "<pre>" + escaped + "</pre>"
    }
}
