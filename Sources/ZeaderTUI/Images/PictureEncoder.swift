import CChafa
import Foundation

/// How the terminal is asked to draw a picture.
///
/// ```swift
/// let bytes = PictureEncoder.encode(image, as: .sixel, columns: 40, rows: 12)
/// ```
public enum PictureProtocol: String, Sendable, CaseIterable {
    /// kitty's graphics protocol (kitty, WezTerm, Ghostty, Konsole).
    case kitty
    /// DEC sixel graphics (xterm -ti vt340, foot, mlterm, WezTerm, Windows Terminal).
    case sixel
    /// iTerm2's inline images (iTerm2, WezTerm, mintty).
    case iterm
    /// Unicode block and sextant mosaics in 24-bit colour: any terminal with colour.
    case symbols
}

/// A decoded picture turned into what a terminal draws, through libchafa: escape sequences
/// for kitty, sixel and iTerm2, coloured mosaics for the rest.
///
/// ```swift
/// let size = PictureEncoder.fit(image, maximumColumns: 72, maximumRows: 16)
/// let rows = PictureEncoder.symbolRows(image, columns: size.columns, rows: size.rows)
/// ```
public enum PictureEncoder {
    /// Terminal cells are about twice as tall as they are wide.
    static let cellAspect: Float = 0.5

    /// The cells `image` fills, its aspect kept, within `maximumColumns` × `maximumRows`
    /// (a small picture is not enlarged past its pixels at 8 × 16 per cell).
    ///
    /// ```swift
    /// PictureEncoder.fit(squares, maximumColumns: 80, maximumRows: 10)  // (20, 10)
    /// ```
    public static func fit(_ image: DecodedImage, maximumColumns: Int, maximumRows: Int) -> (columns: Int, rows: Int) {
        var columns = Int32(max(1, min(maximumColumns, (image.width + 7) / 8)))
        var rows = Int32(max(1, maximumRows))
        chafa_calc_canvas_geometry(Int32(image.width), Int32(image.height), &columns, &rows, cellAspect, 0, 0)
        return (Int(max(1, columns)), Int(max(1, rows)))
    }

    /// The sequence that draws `image` over `columns` × `rows` cells from the cursor, for the
    /// pixel protocols; for ``PictureProtocol/symbols`` the rows of ``symbolRows(_:columns:rows:)``
    /// separated by newlines. `cellPixels` is the terminal's cell size in pixels.
    public static func encode(
        _ image: DecodedImage, as display: PictureProtocol, columns: Int, rows: Int,
        cellPixels: (width: Int, height: Int) = (8, 16)
    ) -> [UInt8] {
        let mode: ChafaPixelMode
        switch display {
        case .kitty: mode = CHAFA_PIXEL_MODE_KITTY
        case .sixel: mode = CHAFA_PIXEL_MODE_SIXELS
        case .iterm: mode = CHAFA_PIXEL_MODE_ITERM2
        case .symbols: mode = CHAFA_PIXEL_MODE_SYMBOLS
        }
        return withCanvas(image, mode: mode, columns: columns, rows: rows, cellPixels: cellPixels) { canvas in
            let database = chafa_term_db_get_default()
            let termInfo = chafa_term_db_get_fallback_info(database)
            defer { chafa_term_info_unref(termInfo) }
            var length = 0
            guard let text = zc_chafa_canvas_print(canvas, termInfo, &length) else { return [] }
            defer { free(text) }
            return text.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
        }
    }

    /// The mosaic of `image` as rows of cells, each one character with 24-bit foreground and
    /// background colours, for terminals without a pixel protocol.
    ///
    /// ```swift
    /// let rows = PictureEncoder.symbolRows(image, columns: 20, rows: 10)
    /// rows[0][0].background  // 0xFF0000 over a red corner
    /// ```
    public static func symbolRows(_ image: DecodedImage, columns: Int, rows: Int) -> [[SymbolCell]] {
        withCanvas(image, mode: CHAFA_PIXEL_MODE_SYMBOLS, columns: columns, rows: rows, cellPixels: (8, 16)) { canvas in
            (0..<rows).map { y in
                (0..<columns).map { x in
                    var foreground: Int32 = 0
                    var background: Int32 = 0
                    chafa_canvas_get_colors_at(canvas, Int32(x), Int32(y), &foreground, &background)
                    let scalar = Unicode.Scalar(chafa_canvas_get_char_at(canvas, Int32(x), Int32(y))) ?? " "
                    return SymbolCell(
                        character: Character(scalar), foreground: UInt32(bitPattern: foreground) & 0xFF_FFFF,
                        background: UInt32(bitPattern: background) & 0xFF_FFFF)
                }
            }
        }
    }

    private static func withCanvas<Result>(
        _ image: DecodedImage, mode: ChafaPixelMode, columns: Int, rows: Int, cellPixels: (width: Int, height: Int),
        _ body: (OpaquePointer) -> Result
    ) -> Result {
        let config = chafa_canvas_config_new()
        defer { chafa_canvas_config_unref(config) }
        chafa_canvas_config_set_geometry(config, Int32(max(1, columns)), Int32(max(1, rows)))
        chafa_canvas_config_set_canvas_mode(config, CHAFA_CANVAS_MODE_TRUECOLOR)
        chafa_canvas_config_set_pixel_mode(config, mode)
        chafa_canvas_config_set_cell_geometry(config, Int32(max(1, cellPixels.width)), Int32(max(1, cellPixels.height)))
        if mode == CHAFA_PIXEL_MODE_SYMBOLS {
            // Blocks, quadrants and sextants: what common fonts draw without gaps.
            let symbols = chafa_symbol_map_new()
            defer { chafa_symbol_map_unref(symbols) }
            chafa_symbol_map_add_by_tags(
                symbols, ChafaSymbolTags(CHAFA_SYMBOL_TAG_BLOCK.rawValue | CHAFA_SYMBOL_TAG_SPACE.rawValue))
            chafa_canvas_config_set_symbol_map(config, symbols)
        }
        let canvas = chafa_canvas_new(config)!
        defer { chafa_canvas_unref(canvas) }
        image.rgba.withUnsafeBufferPointer {
            chafa_canvas_draw_all_pixels(
                canvas, CHAFA_PIXEL_RGBA8_UNASSOCIATED, $0.baseAddress, Int32(image.width), Int32(image.height),
                Int32(image.width * 4))
        }
        return body(canvas)
    }
}

/// One cell of a mosaic: a block or sextant character and its two colours (0xRRGGBB).
///
/// ```swift
/// let cell = SymbolCell(character: "▀", foreground: 0xFF0000, background: 0x0000FF)
/// ```
public struct SymbolCell: Sendable, Equatable {
    public var character: Character
    public var foreground: UInt32
    public var background: UInt32

    public init(character: Character, foreground: UInt32, background: UInt32) {
        self.character = character
        self.foreground = foreground
        self.background = background
    }
}
