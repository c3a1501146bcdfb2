import Feeds
import Foundation
import ObjectGraph
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
    /// One element for the pixel protocols (the whole sequence; kitty's transmission of its
    /// data); one per screen row for mosaics.
    public var rows: [[UInt8]]
    /// kitty: which image, which of its placements, which of its rows show.
    public var kitty: KittyPlacement?
    /// Inside tmux: the pane's place, for the passthrough the pixel protocols go through.
    public var passthrough: TmuxPassthrough?

    public init(
        x: Int, y: Int, display: PictureProtocol, rows: [[UInt8]], kitty: KittyPlacement? = nil,
        passthrough: TmuxPassthrough? = nil
    ) {
        self.x = x
        self.y = y
        self.display = display
        self.rows = rows
        self.kitty = kitty
        self.passthrough = passthrough
    }

    /// What the terminal is sent: the cursor saved, each row placed with CUP, the cursor restored
    /// (curses keeps drawing from where it believes the cursor is). kitty's first drawing of a
    /// picture: its data, then its placement (``kittyPlacementBytes``).
    public var bytes: [UInt8] {
        guard passthrough == nil else { return framed(rows.reduce([], +) + kittyPlacementBytes) }
        var out = Array("\u{1B}7".utf8)
        for (offset, row) in rows.enumerated() {
            out += Array("\u{1B}[\(y + offset + 1);\(x + 1)H".utf8)
            out += row
        }
        out += kittyPlacementBytes
        out += Array("\u{1B}[0m\u{1B}8".utf8)
        return out
    }

    /// kitty: the placement alone, at the picture's cell, for a picture whose data the
    /// terminal has.
    public var placementBytes: [UInt8] { framed(kittyPlacementBytes) }

    private var kittyPlacementBytes: [UInt8] {
        guard let kitty else { return [] }
        return KittyGraphics.place(kitty.header, placement: kitty.placement, rows: kitty.rows)
    }

    /// `payload` at the picture's cell, the cursor saved and restored; through tmux's
    /// passthrough when inside tmux.
    private func framed(_ payload: [UInt8]) -> [UInt8] {
        if let passthrough { return passthrough.wrap(payload, x: x, y: y) }
        return Array("\u{1B}7\u{1B}[\(y + 1);\(x + 1)H".utf8) + payload + Array("\u{1B}[0m\u{1B}8".utf8)
    }
}

/// A kitty picture on screen: its image (sent once), its placement (one per place the
/// picture stands in the article), and the rows of it that show.
///
/// ```swift
/// let shown = KittyPlacement(header: header, placement: 1, rows: 0..<header.rows)
/// ```
public struct KittyPlacement: Sendable, Equatable, Hashable {
    public var header: KittyGraphics.Header
    public var placement: UInt32
    public var rows: Range<Int>

    public init(header: KittyGraphics.Header, placement: UInt32, rows: Range<Int>) {
        self.header = header
        self.placement = placement
        self.rows = rows
    }
}

extension TerminalBackend {
    /// Draws `pictures` over the last frame; backends without pictures draw none.
    public func drawPictures(_ pictures: [PlacedPicture]) {}
    public func releasePictures() {}
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
    /// Inside tmux with its passthrough on: the pane's place (``TmuxPassthrough``).
    public var passthrough: TmuxPassthrough?
    /// The article whose pictures are on screen: leaving it frees them.
    var shownArticle: ObjectID?
    private var kittyCount: UInt32 = 0

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
        cellPixels: (width: Int, height: Int) = (8, 16), sixelLimit: TerminalGraphics.PixelSize? = nil,
        kittyID: UInt32 = 1
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
        if let part = key.part {
            // The rows of the fitted picture that show, cut from the decoded pixels.
            let shown = part.clamped(to: 0..<size.rows)
            guard !shown.isEmpty else { return .success([]) }
            let top = shown.lowerBound * image.height / size.rows
            let bottom = max(top + 1, shown.upperBound * image.height / size.rows)
            let cut = DecodedImage(
                width: image.width, height: bottom - top,
                rgba: Array(image.rgba[(top * image.width * 4)..<(bottom * image.width * 4)]))
            return .success(
                PictureEncoder.encode(cut, as: key.display, columns: size.columns, rows: shown.count, cellPixels: cellPixels))
        }
        let encoded = PictureEncoder.encode(
            image, as: key.display, columns: size.columns, rows: size.rows, cellPixels: cellPixels)
        return .success(key.display == .kitty ? KittyGraphics.transmitOnly(encoded, id: kittyID) : encoded)
    }

    /// The pictures of `article` on screen, drawn from the encoded ones: a mosaic's visible
    /// rows; a kitty picture's visible rows cut from its pixels; a sixel or iTerm2 picture
    /// whole when it is wholly on screen, else the encoding of its visible rows (a key with a
    /// ``EncodedPictures/Key/part``) once loaded. `bodyTop` is the screen row of the article's
    /// first line when scrolled to the top (after the header).
    static func placed(
        _ article: ArticleState, encoded: EncodedPictures, display: PictureProtocol, bodyTop: Int, rows: Range<Int>,
        passthrough: TmuxPassthrough? = nil
    ) -> [PlacedPicture] {
        var placed: [PlacedPicture] = []
        for (index, placement) in article.pictures.enumerated() {
            let key = EncodedPictures.Key(
                url: placement.url, columns: placement.columns, rows: placement.rows, display: display)
            let top = bodyTop + placement.line - article.scroll
            let visible = visibleRows(top: top, count: placement.rows, screen: rows)
            guard !visible.isEmpty else { continue }
            switch display {
            case .symbols:
                guard let bytes = encoded.picture(for: key) else { continue }
                let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
                let shown = lines.indices.filter { rows.contains(top + $0) }
                guard let first = shown.first else { continue }
                placed.append(PlacedPicture(x: 0, y: top + first, display: display, rows: shown.map { lines[$0] }))
            case .kitty:
                guard let bytes = encoded.picture(for: key), let header = KittyGraphics.header(of: bytes) else { continue }
                let shown = visible.clamped(to: 0..<max(1, header.rows))
                guard !shown.isEmpty else { continue }
                placed.append(
                    PlacedPicture(
                        x: 0, y: top + shown.lowerBound, display: display, rows: [bytes],
                        kitty: KittyPlacement(header: header, placement: UInt32(index + 1), rows: shown),
                        passthrough: passthrough))
            case .sixel, .iterm:
                let part = visible.count == placement.rows ? key : partKey(key, visible)
                guard let bytes = encoded.picture(for: part), !bytes.isEmpty else { continue }
                placed.append(
                    PlacedPicture(
                        x: 0, y: top + visible.lowerBound, display: display, rows: [bytes], passthrough: passthrough))
            }
        }
        return placed
    }

    /// The rows of a box of `count` rows at screen row `top` that are within `screen`.
    static func visibleRows(top: Int, count: Int, screen: Range<Int>) -> Range<Int> {
        let lower = max(0, screen.lowerBound - top)
        let upper = min(count, screen.upperBound - top)
        return lower < upper ? lower..<upper : 0..<0
    }

    static func partKey(_ key: EncodedPictures.Key, _ rows: Range<Int>) -> EncodedPictures.Key {
        var part = key
        part.part = rows
        return part
    }

    /// The pictures of `article` to load, nearest first: those within a screen of the
    /// window, and before its whole picture, the visible part of a sixel or iTerm2 picture
    /// partly on screen.
    static func wanted(
        _ article: ArticleState, display: PictureProtocol, bodyTop: Int, rows: Range<Int>
    ) -> [(key: EncodedPictures.Key, alt: String)] {
        let near = (article.scroll - rows.count)...(article.scroll + 2 * rows.count)
        var wanted: [(key: EncodedPictures.Key, alt: String)] = []
        for placement in article.pictures where near.overlaps(placement.line...(placement.line + placement.rows)) {
            let key = EncodedPictures.Key(
                url: placement.url, columns: placement.columns, rows: placement.rows, display: display)
            let top = bodyTop + placement.line - article.scroll
            let visible = visibleRows(top: top, count: placement.rows, screen: rows)
            if display == .sixel || display == .iterm, !visible.isEmpty, visible.count < placement.rows {
                wanted.append((partKey(key, visible), placement.alt))
            }
            wanted.append((key, placement.alt))
        }
        return wanted
    }

    /// A kitty image id not yet used by this reader: the process id in the high bits keeps
    /// two readers in one terminal apart.
    func newKittyID() -> UInt32 {
        kittyCount = kittyCount % 0xFFFF + 1
        return UInt32(getpid() & 0x7FFF) << 16 | kittyCount
    }
}
