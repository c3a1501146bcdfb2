import Foundation

/// The readable article of a web page and what the page says about it, as
/// ``ArticleExtractor/extract(html:baseURL:)`` finds them.
///
/// ```swift
/// let article = try ArticleExtractor.extract(html: Data("<p>Hello.</p>".utf8), baseURL: pageURL)
/// print(article.title ?? "", article.text)
/// ```
public struct Article: Sendable, Equatable {
    /// The article's title (JSON-LD, OpenGraph or Dublin Core, else the page's `<title>`
    /// without the site's name).
    public var title: String?
    /// Who wrote it.
    public var byline: String?
    /// A short description, or the article's first paragraph.
    public var excerpt: String?
    /// The publication or site the article belongs to.
    public var siteName: String?
    /// When it was published, as the page writes it.
    public var publishedTime: String?
    /// The page's language (`<html lang>`).
    public var lang: String?
    /// The text direction (`ltr`, `rtl`) of the article or an element around it.
    public var direction: String?
    /// The article as HTML: one `<div>`, links and images made absolute, forms, ads, share
    /// widgets and hidden parts removed.
    public var html: String
    /// The article's text (the `html` without tags), white space as the page had it.
    public var text: String
    /// Whether the article is what a site's selector chose
    /// (``ArticleExtractor/extract(html:baseURL:charset:selector:)``), not the algorithm.
    public var isSelected = false

    /// An article with the given parts.
    ///
    /// ```swift
    /// let article = Article(title: "Hello", html: "<div><p>Hi</p></div>", text: "Hi")
    /// print(article.title ?? "")
    /// ```
    public init(
        title: String? = nil, byline: String? = nil, excerpt: String? = nil, siteName: String? = nil,
        publishedTime: String? = nil, lang: String? = nil, direction: String? = nil, html: String, text: String
    ) {
        self.title = title
        self.byline = byline
        self.excerpt = excerpt
        self.siteName = siteName
        self.publishedTime = publishedTime
        self.lang = lang
        self.direction = direction
        self.html = html
        self.text = text
    }
}

/// Why a page gave no article.
///
/// ```swift
/// do { _ = try ArticleExtractor.extract(html: Data(), baseURL: nil) }
/// catch { print(error) }  // "the page is empty"
/// ```
public enum ArticleExtractionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No bytes, or only white space.
    case empty
    /// More bytes than ``ArticleExtractor/Limits/maxInputBytes``.
    case tooLarge(size: Int, limit: Int)
    /// Binary data (NUL bytes near the start, no UTF-16 byte order mark), not a page.
    case notText
    /// More elements than ``ArticleExtractor/Limits/maxElements``.
    case tooManyElements(count: Int, limit: Int)
    /// An element with more attributes than ``ArticleExtractor/Limits/maxAttributesPerElement``
    /// (libxml2 compares each with every other).
    case tooManyAttributes(limit: Int)
    /// The page was read but holds no text that looks like an article.
    case noArticle

    /// One line saying what was wrong.
    public var description: String {
        switch self {
        case .empty: "the page is empty"
        case .tooLarge(let size, let limit): "the page is too large (\(size) bytes; the limit is \(limit))"
        case .notText: "not an HTML page (binary data)"
        case .tooManyElements(let count, let limit): "the page has too many elements (\(count); the limit is \(limit))"
        case .tooManyAttributes(let limit): "an element of the page has more than \(limit) attributes"
        case .noArticle: "no article found on the page"
        }
    }
}
