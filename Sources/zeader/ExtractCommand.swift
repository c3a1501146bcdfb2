import ArgumentParser
import Feeds
import Foundation
import ZeaderKit

#if canImport(Glibc)
    import Glibc
#endif

/// `zeader extract FILE|URL [--base-url URL] [--selector CSS] [--json | --html]`: the readable article of a
/// web page, as the reader's text (default), as HTML, or as one JSON object.
///
/// ```sh
/// zeader extract https://example.org/story --json | jq -r .title
/// ```
struct ExtractCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract",
        abstract: "Print the article of a web page (a file or an http(s) URL).",
        discussion: """
            The page's main text is found as Firefox's reader view finds it; navigation, \
            forms, ads and share buttons are left out. Without --json or --html the article \
            is printed as the reader shows it on a terminal (links numbered and listed), and \
            as its text alone, one line per paragraph, into a file or a pipe. --json prints \
            {"title", "byline", "excerpt", "siteName", "publishedTime", "lang", "dir", "text", \
            "html"}. A page with no article exits 1 with one line on stderr. --selector tries a \
            site rule (as the config's article-selector): the elements it matches are the \
            article; when it matches no text, a line on stderr says so and the page's article \
            is found as without it.
            """)

    @Argument(help: ArgumentHelp("The page: a file, or an http:// or https:// URL.", valueName: "FILE|URL"))
    var page: String

    @Option(
        name: .customLong("base-url"),
        help: ArgumentHelp(
            "The page's URL: relative links are resolved against it (default: the URL fetched).",
            valueName: "URL"))
    var baseURL: String?

    @Option(
        help: ArgumentHelp(
            "A CSS selector naming the article's elements (e.g. 'div.post-body, figure').", valueName: "CSS"))
    var selector: String?

    @Flag(help: "Print the article as JSON.")
    var json = false

    @Flag(help: "Print the article as HTML.")
    var html = false

    func validate() throws {
        if json && html { throw ValidationError("--json and --html cannot be used together") }
        if let selector {
            do { _ = try CSSSelector(selector) } catch {
                throw ValidationError("--selector '\(TerminalText.line(selector))': \(error)")
            }
        }
        if let baseURL, !Self.isWebURL(baseURL) {
            throw ValidationError("--base-url '\(TerminalText.line(baseURL))' is not an absolute http(s) URL")
        }
        if Self.webURL(page) != nil || FileManager.default.fileExists(atPath: page) { return }
        if let scheme = Self.scheme(of: Self.trimmed(page)) {
            if ["http", "https"].contains(scheme.lowercased()) {
                throw ValidationError("'\(TerminalText.line(page))' is not a valid URL")
            }
            throw ValidationError("'\(TerminalText.line(page))': only http and https pages can be fetched, not \(scheme):")
        }
    }

    func run() async throws {
        let override = baseURL.flatMap { URL(string: $0) }
        let article: Article
        let base: URL?
        let rule = selector.flatMap { try? CSSSelector($0) }
        switch await Self.article(of: page, baseURL: override, selector: rule) {
        case .success(let page):
            article = page.article
            if rule != nil && !article.isSelected {
                FileHandle.standardError.write(
                    Data("zeader extract: the selector matched no text; the article is the page's own\n".utf8))
            }
            base = override ?? page.url
        case .failure(let problem):
            FileHandle.standardError.write(Data("zeader extract: \(TerminalText.line(problem.description))\n".utf8))
            throw ExitCode.failure
        }
        let output: String
        if json {
            output = Self.json(article) + "\n"
        } else if html {
            output = article.html + "\n"
        } else {
            output = Self.text(article, baseURL: base) + "\n"
        }
        FileHandle.standardOutput.write(Data(output.utf8))
    }

    // MARK: - Reading the page

    /// Why the page could not be read.
    struct ReadProblem: Error, CustomStringConvertible {
        var description: String
    }

    /// `text` as an http(s) URL with a host, white space and control characters around it
    /// ignored (as a browser's address bar does); nil for anything else.
    static func webURL(_ text: String) -> URL? {
        let address = trimmed(text)
        return isWebURL(address) ? URL(string: address) : nil
    }

    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        let isSpace: (Unicode.Scalar) -> Bool = { $0.value <= 0x20 || $0.properties.isWhitespace }
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first...last])
    }

    static func isWebURL(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), url.host?.isEmpty == false else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// `scheme` of `scheme:rest`, when the text starts like a URL.
    static func scheme(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) })
        else { return nil }
        return String(scheme)
    }

    /// The article of `page`: a URL through ``ArticlePage`` (the fetcher's body cap), a file
    /// (or a pipe, a device) read here; `baseURL` resolves its relative links when given.
    static func article(
        of page: String, baseURL: URL?, selector: CSSSelector? = nil
    ) async -> Result<ArticlePage.Fetched, ReadProblem> {
        guard let url = webURL(page), !FileManager.default.fileExists(atPath: page) else {
            let data: Data
            switch readFile(page) {
            case .success(let read): data = read
            case .failure(let problem): return .failure(problem)
            }
            do {
                return .success(
                    ArticlePage.Fetched(
                        article: try ArticleExtractor.extract(html: data, baseURL: baseURL, selector: selector), url: nil))
            } catch {
                return .failure(ReadProblem(description: "\(page): \(error)"))
            }
        }
        var configuration = FetcherConfiguration(version: zeaderVersion)
        configuration.maxBodySize = ArticleExtractor.Limits.maxInputBytes
        let fetched = await ArticlePage.fetch(
            url, baseURL: baseURL, selector: selector, with: FeedFetcher(configuration: configuration))
        return fetched.mapError { ReadProblem(description: $0.description) }
    }

    /// A file's bytes (mapped), or a pipe's or device's (read up to the cap).
    static func readFile(_ page: String) -> Result<Data, ReadProblem> {
        guard FileManager.default.isReadableFile(atPath: page) || FileManager.default.fileExists(atPath: page) else {
            return .failure(ReadProblem(description: "cannot read \(page): no such file"))
        }
        var status = stat()
        if stat(page, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG, (status.st_mode & S_IFMT) != S_IFDIR {
            return readStream(page)
        }
        switch ParseCommand.mapFile(page) {
        case .success(let data): return .success(data)
        case .failure(let reason): return .failure(ReadProblem(description: "cannot read \(page): \(reason)"))
        }
    }

    /// A pipe or device read up to one byte past the size cap (`/dev/zero` never ends), so
    /// that an endless stream ends in the extractor's "too large" error.
    static func readStream(_ path: String) -> Result<Data, ReadProblem> {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            return .failure(ReadProblem(description: "cannot read \(path): \(String(cString: strerror(errno)))"))
        }
        defer { close(descriptor) }
        let limit = ArticleExtractor.Limits.maxInputBytes + 1
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while data.count < limit {
            let count = buffer.withUnsafeMutableBytes {
                Glibc.read(descriptor, $0.baseAddress, min($0.count, limit - data.count))
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return .failure(ReadProblem(description: "cannot read \(path): \(String(cString: strerror(errno)))")) }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return .success(data)
    }

    // MARK: - Writing the article

    /// The JSON object of the command-line contract.
    static func json(_ article: Article) -> String {
        var out = "{"
        let fields: [(String, String?)] = [
            ("title", article.title), ("byline", article.byline), ("excerpt", article.excerpt), ("siteName", article.siteName),
            ("publishedTime", article.publishedTime), ("lang", article.lang), ("dir", article.direction), ("text", article.text),
            ("html", article.html),
        ]
        for (index, field) in fields.enumerated() {
            if index > 0 { out += "," }
            JSONText.appendString(field.0, to: &out)
            out += ":"
            JSONText.appendString(field.1, to: &out)
        }
        return out + "}"
    }

    /// Wide enough that no paragraph is wrapped.
    static let unwrappedWidth = 1 << 20

    /// The article as text: on a terminal as the reader lays it out (wrapped to the
    /// terminal, links numbered and listed); into a file or a pipe the text alone, one line
    /// per paragraph, for other programs to read.
    static func text(_ article: Article, baseURL: URL?) -> String {
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1 {
            let columns = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
            return HTMLText.render(article.html, width: columns, baseURL: baseURL).text
        }
        return HTMLText.renderTextOnly(article.html, width: unwrappedWidth).text
    }
}
