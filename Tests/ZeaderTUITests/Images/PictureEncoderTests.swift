import Foundation
import Testing

@testable import ZeaderTUI

/// The test picture (four coloured squares) encoded for each protocol and read back as a
/// terminal would draw it: each square's colour where it should be.
@Suite struct PictureEncoderTests {
    private let image: DecodedImage = {
        let squares = TestPictures.squares(side: 16)
        return DecodedImage(width: squares.width, height: squares.height, rgba: squares.rgba)
    }()

    private func expectSquares(_ picture: ReadBackPicture?, sourceLocation: SourceLocation = #_sourceLocation) {
        guard let picture else {
            Issue.record("nothing to read back", sourceLocation: sourceLocation)
            return
        }
        #expect(colour(picture.rgb(fraction: 0.25, 0.25), isNear: 0xFF0000), sourceLocation: sourceLocation)
        #expect(colour(picture.rgb(fraction: 0.75, 0.25), isNear: 0x00FF00), sourceLocation: sourceLocation)
        #expect(colour(picture.rgb(fraction: 0.25, 0.75), isNear: 0x0000FF), sourceLocation: sourceLocation)
        #expect(colour(picture.rgb(fraction: 0.75, 0.75), isNear: 0xFFFF00), sourceLocation: sourceLocation)
    }

    @Test func kittyPayloadHoldsTheSquares() {
        let bytes = PictureEncoder.encode(image, as: .kitty, columns: 8, rows: 4)
        #expect(bytes.starts(with: Array("\u{1B}_G".utf8)))
        expectSquares(ReadBackPicture.kitty(bytes))
    }

    @Test func sixelDataHoldsTheSquares() {
        let bytes = PictureEncoder.encode(image, as: .sixel, columns: 8, rows: 4)
        #expect(bytes.starts(with: Array("\u{1B}P".utf8)))
        expectSquares(ReadBackPicture.sixel(bytes))
    }

    @Test func itermPayloadHoldsTheSquares() {
        let bytes = PictureEncoder.encode(image, as: .iterm, columns: 8, rows: 4)
        #expect(bytes.starts(with: Array("\u{1B}]1337;File=".utf8)))
        expectSquares(ReadBackPicture.iterm(bytes))
    }

    @Test func symbolsColourTheRightCells() {
        let rows = PictureEncoder.symbolRows(image, columns: 8, rows: 4)
        #expect(rows.count == 4 && rows.allSatisfy { $0.count == 8 })
        // The middle of each quadrant: a cell wholly inside one square shows its colour
        // whichever of its two colours the glyph leaves visible.
        func shown(_ cell: SymbolCell) -> UInt32 { cell.character == " " ? cell.background : cell.foreground }
        #expect(colour(shown(rows[0][1]), isNear: 0xFF0000))
        #expect(colour(shown(rows[0][6]), isNear: 0x00FF00))
        #expect(colour(shown(rows[3][1]), isNear: 0x0000FF))
        #expect(colour(shown(rows[3][6]), isNear: 0xFFFF00))
    }

    @Test func fitKeepsTheAspectWithinTheCaps() {
        let wide = DecodedImage(width: 800, height: 200, rgba: [])
        let size = PictureEncoder.fit(wide, maximumColumns: 40, maximumRows: 20)
        #expect(size.columns == 40 && size.rows == 5)
        let tall = DecodedImage(width: 200, height: 2000, rgba: [])
        let capped = PictureEncoder.fit(tall, maximumColumns: 80, maximumRows: 12)
        #expect(capped.rows == 12 && capped.columns <= 3)
    }
}
