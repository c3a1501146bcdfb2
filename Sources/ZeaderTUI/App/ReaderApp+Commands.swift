import Feeds
import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// The answers of edit-flags (`^E`) and the article's source (`^U`); the keys themselves are
/// the screens' (Screens/), the dialog keys in ReaderApp+Dialogs.swift.
extension ReaderApp {
    /// The edit-flags prompt's ENTER.
    func setFlags(_ text: String, on id: ObjectID) {
        do {
            let letters = try ItemFlagLetters.set(text, on: id, in: model.context)
            if state.article?.itemID == id { state.article?.flagLetters = letters.isEmpty ? nil : letters }
            state.say(.reader(.flagsSet(letters)))
        } catch {
            state.say(.failed("\(error)"))
        }
    }

    // MARK: Article source

    /// The article's body lines at `width`, its numbered links and its bold and underlined
    /// runs: rendered, or the HTML source (`^U`) wrapped at the width, with the rendering's links.
    static func renderedBody(_ article: ArticleState, width: Int) -> (lines: [String], links: [String], spans: [TextSpan]) {
        let rendered = ArticleLinks.render(article, width: width)
        guard article.showsSource else { return (rendered.lines, rendered.links, rendered.spans) }
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
        return (lines, rendered.links, [])
    }
}
