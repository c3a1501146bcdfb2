import Feeds
import Foundation
import ObjectGraph
import ZeaderKit

/// `w` (full-article): the article of the item's web page in place of the feed's text, and
/// back. The page is fetched once, without blocking (a task; any key still works), and kept
/// with the item (``FullArticles``), so it reads offline afterwards.
extension ReaderApp {
    func toggleFullArticle(_ id: ObjectID) {
        if state.article?.itemID != id || state.screen != .article { showArticle(id) }
        guard var article = state.article, article.itemID == id else { return }
        if let feedText = article.feedBodyHTML {
            article.bodyHTML = feedText
            article.feedBodyHTML = nil
            return show(article, saying: .reader(.showingFullArticle(false)))
        }
        if let full = article.fullArticleHTML {
            article.feedBodyHTML = article.bodyHTML
            article.bodyHTML = full
            return show(article, saying: .reader(.showingFullArticle(true)))
        }
        guard let url = FullArticles.pageURL(article.link) else { return state.say(.reader(.noPageToFetch)) }
        guard let fetcher else { return state.say(.reader(.fullArticlesNotAvailable)) }
        state.say(.reader(.fetchingFullArticle(url.absoluteString)))
        let feed = model.feedURLAndTags(of: id)
        let selector = ArticleSelectorRule.selector(
            in: config.articleSelectors, forPage: url, feedURL: feed?.url, tags: feed?.tags)
        effects.task { [self] in
            let outcome = await ArticlePage.fetch(url, selector: selector, with: fetcher)
            queue.async { [self] in
                fullArticleArrived(outcome, for: id)
                redraw()
            }
        }
    }

    /// Stores the page's outcome, and shows the article if its item is still on screen.
    func fullArticleArrived(_ outcome: Result<ArticlePage.Fetched, ArticlePage.Problem>, for id: ObjectID) {
        let html: String?
        do { html = try model.storeFullArticle(outcome, for: id) } catch { return state.say(.failed("\(error)")) }
        guard let html else {
            if case .failure(let problem) = outcome { state.say(.reader(.noFullArticle(problem.description))) }
            return
        }
        guard var article = state.article, article.itemID == id else { return }
        article.fullArticleHTML = html
        if state.screen == .article, !article.showsFullArticle {
            article.feedBodyHTML = article.bodyHTML
            article.bodyHTML = html
            return show(article, saying: .reader(.showingFullArticle(true)))
        }
        state.article = article
    }

    /// Shows `article` rendered afresh from its top.
    private func show(_ article: ArticleState, saying message: StatusMessage) {
        var article = article
        article.renderedWidth = 0
        article.scroll = 0
        state.article = article
        state.say(message)
    }
}
