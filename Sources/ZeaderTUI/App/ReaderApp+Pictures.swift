import Feeds
import Foundation

/// The article's pictures: blank rows hold their place in the text, then, once the text is on
/// screen, they are fetched and encoded one at a time and drawn over those rows.
extension ReaderApp {
    /// The article's lines at `width` with each picture's rows, its links, its pictures.
    func articleBodyWithPictures(_ article: ArticleState, width: Int) -> (
        lines: [String], links: [String], spans: [TextSpan], pictures: [PicturePlacement]
    ) {
        guard pictures.display != nil, fetcher != nil, !article.showsSource else {
            let body = Self.renderedBody(article, width: width)
            return (body.lines, body.links, body.spans, [])
        }
        let rendered = ArticleLinks.render(article, width: width)
        let laid = PictureLayout.insertingPlaceholders(
            rendered, width: width, maximumRows: ArticlePictures.maximumRows(screenHeight: state.height))
        return (laid.lines, rendered.links, laid.spans, laid.placements)
    }

    /// After a frame: draws the pictures on screen and starts loading the next one missing;
    /// leaving the article frees the ones the terminal keeps.
    func drawArticlePictures() {
        guard let display = pictures.display else { return }
        if let shown = pictures.shownArticle, state.screen != .article || state.article?.itemID != shown {
            backend.drawPictures([])
            backend.releasePictures()
            pictures.shownArticle = nil
        }
        guard state.screen == .article, state.prompt == nil, let article = state.article, !article.pictures.isEmpty,
            state.height >= 3
        else { return backend.drawPictures([]) }
        let rows = 1..<(state.height - 1)
        let header = ArticleHeader.lines(article, width: state.width, rows: rows.count).count
        let bodyTop = rows.lowerBound + header + 1
        pictures.shownArticle = article.itemID
        backend.drawPictures(
            ArticlePictures.placed(
                article, encoded: pictures.encoded, display: display, bodyTop: bodyTop, rows: rows,
                passthrough: pictures.passthrough))
        loadNextPicture(article, display: display, bodyTop: bodyTop, rows: rows)
    }

    /// Starts the fetch of the article's first picture (or visible part) not yet loaded,
    /// tried or loading. Only pictures within a screen of the window: the encoded ones'
    /// budget holds those, so a long article's pictures are not loaded, pushed out and
    /// loaded again.
    private func loadNextPicture(_ article: ArticleState, display: PictureProtocol, bodyTop: Int, rows: Range<Int>) {
        guard !pictures.busy, let fetcher else { return }
        let wanted = ArticlePictures.wanted(article, display: display, bodyTop: bodyTop, rows: rows)
        guard
            let (key, alt) = wanted.first(where: {
                pictures.encoded.picture(for: $0.key) == nil && !pictures.encoded.failed.contains($0.key)
                    && !pictures.encoded.failed.contains($0.key.whole)
            })
        else { return }
        pictures.busy = true
        let cache = pictures.diskCache
        let limits = pictures.limits
        let cellPixels = pictures.cellPixels
        let sixelLimit = pictures.sixelLimit
        let kittyID = display == .kitty ? pictures.newKittyID() : 0
        effects.task { [self] in
            let outcome = await ArticlePictures.load(
                key, fetcher: fetcher, cache: cache, limits: limits, cellPixels: cellPixels, sixelLimit: sixelLimit,
                kittyID: kittyID)
            queue.async { [self] in
                pictures.busy = false
                switch outcome {
                case .success(let bytes): pictures.encoded.insert(bytes, for: key)
                case .failure(let problem):
                    pictures.encoded.failed.insert(key)
                    // The whole picture's failure speaks for its parts.
                    if key.part == nil, problem != .notDecoded(.vectorImage), state.article?.itemID == article.itemID {
                        state.say(.reader(.pictureNotShown(alt: alt.isEmpty ? key.url : alt, problem)))
                    }
                }
                redraw()
            }
        }
    }

    // MARK: The link list's pictures

    /// The article's pictures for the link list (`U`): each URL with its entry's words; the
    /// URLs are remembered, so that picking one opens it in `image-viewer`.
    func pictureLinks(_ article: ArticleState) -> [(url: String, entry: String)] {
        let images = HTMLText.render(article.bodyHTML, width: 80, baseURL: article.baseURL).images
        var seen = Set<String>()
        return images.compactMap { image in
            guard seen.insert(image.url).inserted else { return nil }
            pictures.links.insert(image.url)
            return (image.url, image.alt.isEmpty ? "[image]" : "[image: \(image.alt)]")
        }
    }

    /// A link from the link list: a picture opens in `image-viewer` (as `browser` runs, `%u` its
    /// URL quoted for the shell), anything else, or a picture with no viewer set, in the browser.
    func openLinkOrPicture(_ link: String) {
        guard let viewer = config.pictures.viewer, pictures.links.contains(link) else { return open(link: link) }
        let argv: [String]
        do { argv = try LinkOpener.command(for: link, browser: viewer, throughShell: config.runThroughShell) } catch {
            return state.say(.failed(error.description))
        }
        let program = ProgramRun(argv: argv, purpose: .browser(link: link))
        state.say(ArticleCommands.outcome(program, effects.run(program, backend: backend)))
    }
}
