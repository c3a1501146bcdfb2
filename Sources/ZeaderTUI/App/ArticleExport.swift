import Feeds
import Foundation

/// The article as a file or as the input of a command: `s` saves it as text (or Markdown
/// when the name ends in `.md`), `|` pipes the text to a command, `^B` hands it to the
/// bookmark command.
///
/// ```swift
/// let text = ArticleExport.text(article, width: 72)
/// try ArticleExport.save(article, to: "~/a.md", width: 72)
/// ```
enum ArticleExport {
    /// The header (feed, title, author, date, link, enclosures), a blank line and the body
    /// rendered at `width`, with its numbered links: what the article view shows.
    static func text(_ article: ArticleState, width: Int) -> String {
        let header = ArticleHeader.fields(article).map { "\($0.label)\(ReaderView.clean($0.text))" }
        let body = ArticleLinks.render(article, width: width).lines
        return (header + [""] + body).joined(separator: "\n") + "\n"
    }

    /// Markdown: the title as a heading, the other header fields as a list, the body as
    /// rendered text (its lists and quotes are Markdown already) and the links as
    /// reference definitions.
    static func markdown(_ article: ArticleState, width: Int) -> String {
        let rendered = ArticleLinks.render(article, width: width)
        var lines = ["# " + ReaderView.clean(article.title), ""]
        for field in ArticleHeader.fields(article) where field.label != "Title: " {
            let value = ReaderView.clean(field.text)
            lines.append("- \(field.label)" + (field.isURL ? "<\(value)>" : value))
        }
        lines.append("")
        var body = rendered.lines
        if !rendered.links.isEmpty, let start = body.lastIndex(of: "Links:") {
            body.removeSubrange(start...)
            while body.last?.isEmpty == true { body.removeLast() }
            body.append("")
            body += rendered.links.enumerated().map { "[\($0.offset + 1)]: <\($0.element)>" }
        }
        return (lines + body).joined(separator: "\n") + "\n"
    }

    /// The file name proposed for `article` in `folder` (`save-path`, else the current
    /// directory): its title with `/` and control characters replaced, then `.txt`.
    static func proposedPath(_ article: ArticleState, folder: String?) -> String {
        var name = ReaderView.clean(article.title).map { $0 == "/" || $0 == "\\" ? "-" : $0 }
            .reduce(into: "") { $0.append($1) }
        name = name.trimmingCharacters(in: .whitespaces)
        if name.isEmpty || name.hasPrefix(".") { name = "article" + name }
        name = String(name.prefix(120))
        guard let folder, !folder.isEmpty else { return name + ".txt" }
        return (folder.hasSuffix("/") ? folder : folder + "/") + name + ".txt"
    }

    /// `path` with a leading `~/` expanded from `$HOME`.
    static func expanded(_ path: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        HomePath.expanding(path, environment: environment)
    }

    /// Writes the article to `path` (Markdown when it ends in `.md`); refuses to replace a
    /// file. Returns the path written.
    @discardableResult
    static func save(_ article: ArticleState, to path: String, width: Int) throws(ExportError) -> String {
        let path = expanded(path.trimmingCharacters(in: .whitespaces))
        guard !path.isEmpty else { throw ExportError("no file name given") }
        guard !FileManager.default.fileExists(atPath: path) else { throw ExportError("\(path) already exists") }
        let content = path.lowercased().hasSuffix(".md") ? markdown(article, width: width) : text(article, width: width)
        guard FileManager.default.createFile(atPath: path, contents: Data(content.utf8)) else {
            let folder = (path as NSString).deletingLastPathComponent
            let reason =
                FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder)
                ? "cannot be written" : "its folder does not exist"
            throw ExportError("cannot save to \(path): \(reason)")
        }
        return path
    }

    /// The argument vector of `bookmark-cmd`: its words, then URL, title, description (the
    /// body's plain text, at most 500 characters) and feed title.
    static func bookmarkCommand(_ command: String, article: ArticleState) throws(ExportError) -> [String] {
        let words = try CommandRunner.arguments(command)
        let description = String(HTMLText.plainText(article.bodyHTML).prefix(500))
        return words + [article.link ?? "", ReaderView.clean(article.title), description, ReaderView.clean(article.feedTitle)]
    }
}

/// Why an article could not be saved, piped or bookmarked.
struct ExportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
