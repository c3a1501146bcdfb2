import Foundation

/// The article of a web page fetched over http(s): the page through the fetcher (its body
/// cap, timeouts and per-host limits), refused unless it is served as a page, then
/// ``ArticleExtractor``. What `zeader extract URL`, the reader's full-article key and the
/// refresh of full-article feeds share.
///
/// ```swift
/// switch await ArticlePage.fetch(URL(string: "https://example.org/story")!, with: fetcher) {
/// case .success(let page): print(page.article.title ?? "")
/// case .failure(let problem): print(problem)   // "https://example.org/story: HTTP 404"
/// }
/// ```
public enum ArticlePage {
    /// A page's article and the address it came from after redirects.
    public struct Fetched: Sendable, Equatable {
        public var article: Article
        /// Where the page came from after redirects; nil for a file.
        public var url: URL?

        /// `ArticlePage.Fetched(article: article, url: nil)` for a page read from a file.
        public init(article: Article, url: URL?) {
            self.article = article
            self.url = url
        }
    }

    /// Why a page gave no article, in one line.
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case fetch(FetchError)
        /// The server answered without a page (304 to an unconditional request, 410).
        case status(url: String, Int)
        /// The server asked to wait (429/503 with Retry-After).
        case deferred(url: String, until: Date)
        /// Served as something else than a page (an image, a PDF).
        case notAPage(url: String, contentType: String)
        case extraction(url: String, ArticleExtractionError)

        public var description: String {
            switch self {
            case .fetch(let error): return error.description
            case .status(let url, let status): return "\(url): HTTP \(status)"
            case .deferred(let url, let until):
                return "\(url): the server asks to wait until \(ISO8601DateFormatter().string(from: until))"
            case .notAPage(let url, let type): return "\(url): not an HTML page (Content-Type \(type))"
            case .extraction(let url, let error): return "\(url): \(error)"
            }
        }
    }

    /// Fetches `url` and extracts its article (with the site's `selector`, if it has one);
    /// relative links resolve against `baseURL`, else the address the page came from.
    public static func fetch(
        _ url: URL, baseURL: URL? = nil, selector: CSSSelector? = nil, with fetcher: FeedFetcher
    ) async -> Result<Fetched, Problem> {
        article(from: await fetcher.fetch(FeedRequest(url: url)), url: url, baseURL: baseURL, selector: selector)
    }

    /// The article of the page a fetch of `url` gave (``FeedFetcher/fetchAll(_:onEach:)`` hands
    /// many such outcomes over).
    ///
    /// ```swift
    /// let result = ArticlePage.article(from: outcome, url: request.url)
    /// ```
    public static func article(
        from outcome: FetchOutcome, url: URL, baseURL: URL? = nil, selector: CSSSelector? = nil
    ) -> Result<Fetched, Problem> {
        switch outcome {
        case .fetched(let body, let metadata):
            if let problem = metadata.bodyProblem { return .failure(.fetch(problem)) }
            if let type = metadata.contentType, !isPageType(type) {
                return .failure(.notAPage(url: url.absoluteString, contentType: type))
            }
            let base = baseURL ?? metadata.finalURL
            do {
                let article = try ArticleExtractor.extract(
                    html: body, baseURL: base, charset: metadata.charset, selector: selector)
                return .success(Fetched(article: article, url: base))
            } catch {
                return .failure(.extraction(url: url.absoluteString, error))
            }
        case .notModified(let metadata), .gone(let metadata):
            return .failure(.status(url: url.absoluteString, metadata.status))
        case .deferred(let until, _):
            return .failure(.deferred(url: url.absoluteString, until: until))
        case .failed(let error):
            return .failure(.fetch(error))
        }
    }

    /// HTML, XHTML, XML or text: what a page may be served as.
    ///
    /// ```swift
    /// ArticlePage.isPageType("text/html; charset=utf-8")   // true
    /// ```
    public static func isPageType(_ type: String) -> Bool {
        let type = type.lowercased()
        return type.hasPrefix("text/") || type.contains("html") || type.hasSuffix("xml")
    }
}
