import Feeds
import Foundation
import ZeaderConfig

/// Why a picture shows as its alt text (worded in `StatusMessage.swift`).
///
/// ```swift
/// let problem = PictureProblem.notDecoded(.truncated)
/// ```
public enum PictureProblem: Error, Sendable, Equatable {
    /// The fetch failed (its ``FetchError``'s words) or gave no body.
    case notFetched(String)
    case notDecoded(ImageDecodeError)
}

/// A picture ready to be drawn: its encoded bytes and the cell its top-left corner goes to
/// (0-based), or for mosaics, the rows of it that are on screen.
///
/// ```swift
/// let placed = PlacedPicture(x: 0, y: 5, display: .sixel, rows: [sixelBytes])
/// backend.drawPictures([placed])
/// ```
public struct PlacedPicture: Sendable, Equatable {
    public var x: Int
    public var y: Int
    public var display: PictureProtocol
    /// One element for the pixel protocols (the whole sequence); one per screen row for mosaics.
    public var rows: [[UInt8]]

    public init(x: Int, y: Int, display: PictureProtocol, rows: [[UInt8]]) {
        self.x = x
        self.y = y
        self.display = display
        self.rows = rows
    }

    /// What the terminal is sent: the cursor saved, each row placed with CUP, the cursor restored
    /// (curses keeps drawing from where it believes the cursor is).
    public var bytes: [UInt8] {
        var out = Array("\u{1B}7".utf8)
        for (offset, row) in rows.enumerated() {
            out += Array("\u{1B}[\(y + offset + 1);\(x + 1)H".utf8)
            out += row
        }
        out += Array("\u{1B}[0m\u{1B}8".utf8)
        return out
    }

    /// Removes every kitty picture (placements and data); other terminals ignore it.
    public static let kittyDeleteAll = Array("\u{1B}_Ga=d,d=A\u{1B}\\".utf8)
}

extension TerminalBackend {
    /// Draws `pictures` over the last frame; backends without pictures draw none.
    public func drawPictures(_ pictures: [PlacedPicture]) {}
}

/// The article view's pictures: how the terminal draws them, the encoded ones (a byte budget),
/// the ones waiting to load (one at a time: one decoded image in memory at a time).
/// Used only on the reader's queue.
///
/// ```swift
/// app.pictures.display = TerminalGraphics.choose(config.pictures.display, answers: answers, environment: env)
/// ```
public final class ArticlePictures {
    /// How pictures are drawn; nil: not at all (the `[image: alt]` lines of the text only).
    public var display: PictureProtocol?
    var encoded = EncodedPictures(budget: 16 << 20)
    let diskCache: PictureDiskCache
    let limits: ImageLimits
    /// A terminal cell's size in pixels, for the pixel protocols (``TerminalGraphics/cellPixels(of:)``).
    public var cellPixels = (width: 8, height: 16)
    /// The largest sixel picture the terminal draws (XTSMGRAPHICS), when it said.
    public var sixelLimit: TerminalGraphics.PixelSize?
    /// A picture is being fetched or encoded.
    var busy = false
    /// The pictures' URLs the link list (`U`) showed: they open in `image-viewer`.
    var links: Set<String> = []

    init(config: ReaderConfig, environment: [String: String] = ProcessInfo.processInfo.environment) {
        // `auto` waits for the terminal's answers (ReaderTerminal asks before curses starts).
        display =
            config.pictures.display == .auto
            ? nil
            : TerminalGraphics.choose(
                config.pictures.display, answers: .init(), environment: environment)
        diskCache = PictureDiskCache(
            directory: PictureDiskCache.defaultDirectory(environment: environment), capacity: config.pictures.cacheBytes)
        limits = .default
    }

    /// The rows a picture may take: half the article's rows, at least 4, at most 20.
    static func maximumRows(screenHeight: Int) -> Int { max(4, min(20, (screenHeight - 4) / 2)) }

    /// The picture of `key`: from the disk cache or the fetcher, decoded within `limits`, fitted
    /// into its box and encoded. Runs off the reader's queue.
    static func load(
        _ key: EncodedPictures.Key, fetcher: FeedFetcher, cache: PictureDiskCache, limits: ImageLimits,
        cellPixels: (width: Int, height: Int) = (8, 16), sixelLimit: TerminalGraphics.PixelSize? = nil
    ) async -> Result<[UInt8], PictureProblem> {
        var data = cache.data(for: key.url)
        if data == nil {
            guard let url = URL(string: key.url) else { return .failure(.notFetched("not a URL")) }
            var request = FeedRequest(url: url)
            request.headers["Accept"] = "image/png, image/jpeg, image/gif, image/webp"
            switch await fetcher.fetch(request) {
            case .fetched(let body, _):
                data = body
                if body.count <= limits.maximumBytes { cache.store(body, for: key.url) }
            case .failed(let error):
                // The status line names the picture by its alt text: the URL would crowd out the reason.
                let words = error.description
                let named = error.url.absoluteString + ": "
                return .failure(.notFetched(words.hasPrefix(named) ? String(words.dropFirst(named.count)) : words))
            case .notModified, .gone, .deferred: return .failure(.notFetched("no picture in the answer"))
            }
        }
        let image: DecodedImage
        do { image = try ImageDecoder.decode(data ?? Data(), limits: limits) } catch { return .failure(.notDecoded(error)) }
        var box = (columns: key.columns, rows: key.rows)
        if key.display == .sixel, let sixelLimit {
            // A larger sixel picture would be cut by the terminal.
            box.columns = min(box.columns, max(1, sixelLimit.width / max(1, cellPixels.width)))
            box.rows = min(box.rows, max(1, sixelLimit.height / max(1, cellPixels.height)))
        }
        let size = PictureEncoder.fit(image, maximumColumns: box.columns, maximumRows: box.rows)
        return .success(
            PictureEncoder.encode(image, as: key.display, columns: size.columns, rows: size.rows, cellPixels: cellPixels))
    }

    /// The pictures of `article` on screen, drawn from the encoded ones: a mosaic's visible rows,
    /// a pixel picture only when it is wholly visible (a terminal cannot cut one). `bodyTop` is
    /// the screen row of the article's first line when scrolled to the top (after the header).
    static func placed(
        _ article: ArticleState, encoded: EncodedPictures, display: PictureProtocol, bodyTop: Int, rows: Range<Int>
    ) -> [PlacedPicture] {
        var placed: [PlacedPicture] = []
        for placement in article.pictures {
            let key = EncodedPictures.Key(
                url: placement.url, columns: placement.columns, rows: placement.rows, display: display)
            guard let bytes = encoded.picture(for: key) else { continue }
            let top = bodyTop + placement.line - article.scroll
            if display == .symbols {
                let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
                let shown = lines.indices.filter { rows.contains(top + $0) }
                guard let first = shown.first else { continue }
                placed.append(PlacedPicture(x: 0, y: top + first, display: display, rows: shown.map { lines[$0] }))
            } else if rows.contains(top), rows.contains(top + placement.rows - 1) {
                placed.append(PlacedPicture(x: 0, y: top, display: display, rows: [bytes]))
            }
        }
        return placed
    }
}
