import Feeds
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// Each picture's box of cells and the blank rows that hold its place; the terminal's answers
/// and the config deciding the protocol.
@Suite struct PictureLayoutTests {
    @Test func aBoxFollowsTheTagsSizeWithinTheCaps() {
        #expect(PictureLayout.box(width: 160, height: 160, maximumColumns: 72, maximumRows: 12) == (20, 10))
        #expect(PictureLayout.box(width: 4000, height: 1000, maximumColumns: 72, maximumRows: 12) == (72, 9))
        #expect(PictureLayout.box(width: 100, height: 10_000, maximumColumns: 72, maximumRows: 12) == (1, 12))
        #expect(PictureLayout.box(width: nil, height: 300, maximumColumns: 72, maximumRows: 12) == (72, 12))
        #expect(PictureLayout.box(width: 1, height: 1, maximumColumns: 72, maximumRows: 12) == (1, 1))
    }

    @Test func placeholdersFollowTheirLinesAndAreBounded() {
        var rendered = RenderedText(lines: ["a", "b", "c"], links: [])
        rendered.images = [
            RenderedImage(url: "https://x/1.png", alt: "1", line: 0, width: 16, height: 32),
            RenderedImage(url: "https://x/2.png", alt: "2", line: 2),
        ]
        let laid = PictureLayout.insertingPlaceholders(rendered, width: 40, maximumRows: 5)
        #expect(laid.lines == ["a", "", "", "b", "c", "", "", "", "", ""])
        #expect(laid.placements.map(\.line) == [1, 5])
        #expect(laid.placements.map(\.rows) == [2, 5])
        rendered.images = (0..<1_000).map { RenderedImage(url: "https://x/\($0).png", alt: "", line: 1) }
        let many = PictureLayout.insertingPlaceholders(rendered, width: 40, maximumRows: 3)
        #expect(many.placements.count == PictureLayout.maximumPictures)
        #expect(many.lines.count == 3 + PictureLayout.maximumPictures * 3)
    }

    @Test func theTerminalsAnswersAreRead() {
        let kitty = TerminalGraphics.parse(Array("\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[?62;22c".utf8))
        #expect(kitty == .init(kitty: true, sixel: false, answered: true))
        let vt340 = TerminalGraphics.parse(Array("\u{1B}[?63;1;2;4;6;9;15;22c".utf8))
        #expect(vt340 == .init(kitty: false, sixel: true, answered: true))
        let refused = TerminalGraphics.parse(Array("\u{1B}_Gi=31;ENOTSUPPORTED:x\u{1B}\\\u{1B}[?64;14c".utf8))
        #expect(refused == .init(kitty: false, sixel: false, answered: true))
        #expect(TerminalGraphics.parse(Array("\u{1B}[?1;2c".utf8)).answered)
        #expect(!TerminalGraphics.parse([]).answered)
        // XTSMGRAPHICS before DA1 (xterm -ti vt340): the largest sixel picture, and DA1 still read.
        let xterm = TerminalGraphics.parse(Array("\u{1B}[?2;0;1000;800S\u{1B}[?63;1;2;4;6;9;15;22c".utf8))
        #expect(xterm == .init(sixel: true, answered: true, sixelLimit: .init(width: 1000, height: 800)))
        // A refusal (status 3) or a DA1 whose first number is 4 (a VT132) says nothing of sixel.
        #expect(TerminalGraphics.parse(Array("\u{1B}[?2;3;0S\u{1B}[?4;6c".utf8)) == .init(answered: true))
        // Keys typed before the start are kept, as keys, around the answers.
        let typed = TerminalGraphics.parse(Array("jq\u{1B}_Gi=31;OK\u{1B}\\x\u{1B}[?62;22c\r".utf8))
        #expect(typed.kitty && typed.answered)
        #expect(
            TerminalGraphics.keys(typedAhead: typed.typedAhead) == [.character("j"), .character("q"), .character("x"), .enter])
    }

    @Test func theConfigOverridesAndAutoFollowsTheAnswers() {
        let sixel = TerminalGraphics.Answers(sixel: true, answered: true)
        let kitty = TerminalGraphics.Answers(kitty: true, answered: true)
        let nothing = TerminalGraphics.Answers()
        #expect(TerminalGraphics.choose(.auto, answers: kitty, environment: [:]) == .kitty)
        #expect(TerminalGraphics.choose(.auto, answers: sixel, environment: [:]) == .sixel)
        #expect(TerminalGraphics.choose(.auto, answers: nothing, environment: ["TERM_PROGRAM": "iTerm.app"]) == .iterm)
        #expect(TerminalGraphics.choose(.auto, answers: nothing, environment: [:]) == .symbols)
        #expect(TerminalGraphics.choose(.sixel, answers: kitty, environment: [:]) == .sixel)
        #expect(TerminalGraphics.choose(.none, answers: kitty, environment: [:]) == nil)
    }
}
