extension HTMLRenderer {
    /// Marks the start of a `<pre>` line that continues the line above it.
    static let continuationMarker = "↪ "

    /// One line of preformatted text in lines of at most `width` columns: the first piece
    /// as written, each continuation starting with ``continuationMarker``. Wide characters
    /// are never split; a width too small for a marker cuts the line without one.
    ///
    /// ```swift
    /// HTMLRenderer.wrapCode("abcdefgh", width: 5)  // ["abcde", "↪ fgh"]
    /// ```
    static func wrapCode(_ line: String, width: Int) -> [String] {
        let width = max(width, 1)
        guard DisplayWidth.of(line) > width else { return [line] }
        let marker = width >= 8 ? continuationMarker : ""
        let markerWidth = DisplayWidth.of(marker)
        var pieces: [String] = []
        var piece = ""
        var pieceWidth = 0
        var limit = width
        for character in line {
            let characterWidth = DisplayWidth.of(character)
            if pieceWidth > 0, pieceWidth + characterWidth > limit {
                pieces.append(piece)
                piece = ""
                pieceWidth = 0
                limit = width - markerWidth
            }
            piece.append(character)
            pieceWidth += characterWidth
        }
        if !piece.isEmpty { pieces.append(piece) }
        return pieces.enumerated().map { $0.offset == 0 ? $0.element : marker + $0.element }
    }
}
