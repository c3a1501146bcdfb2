import Feeds
import Foundation
import LoopbackHTTPServer
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// kitty's pictures by image and placement ids, pictures partly on screen, and tmux's
/// passthrough: what the reader sends for each, read back.
@Suite struct KittyAndTmuxPicturesTests {
    private let image: DecodedImage = {
        let squares = TestPictures.squares(side: 16)
        return DecodedImage(width: squares.width, height: squares.height, rgba: squares.rgba)
    }()

    private func count(_ needle: String, in bytes: [UInt8]) -> Int {
        String(decoding: bytes, as: UTF8.self).components(separatedBy: needle).count - 1
    }

    @Test func aKittyTransmissionHasAnIdShowsNothingAndAsksForNoReply() throws {
        let sent = KittyGraphics.transmitOnly(PictureEncoder.encode(image, as: .kitty, columns: 8, rows: 4), id: 77)
        let text = String(decoding: sent, as: UTF8.self)
        #expect(text.hasPrefix("\u{1B}_Gq=2,a=t,i=77,"))
        #expect(!text.contains("a=T"))
        // Every chunk asks for no reply: a reply would reach the reader as keys.
        #expect(count("\u{1B}_G", in: sent) == count("\u{1B}_Gq=2,", in: sent))
        let header = try #require(KittyGraphics.header(of: sent))
        #expect(header == .init(id: 77, width: 64, height: 64, columns: 8, rows: 4))
        let back = try #require(ReadBackPicture.kitty(sent))
        #expect(colour(back.rgb(fraction: 0.25, 0.25), isNear: 0xFF0000))
        #expect(colour(back.rgb(fraction: 0.75, 0.75), isNear: 0xFFFF00))
        // Without an id there is nothing to place.
        #expect(KittyGraphics.header(of: PictureEncoder.encode(image, as: .kitty, columns: 8, rows: 4)) == nil)
        #expect(KittyGraphics.header(of: Array("\u{1B}_Gi=0,s=1,v=1;".utf8)) == nil)
        #expect(KittyGraphics.header(of: Array("plain".utf8)) == nil)
    }

    @Test func scrollingMovesAKittyPlacementWithoutSendingThePictureAgain() throws {
        let sent = KittyGraphics.transmitOnly(PictureEncoder.encode(image, as: .kitty, columns: 8, rows: 4), id: 5)
        let header = try #require(KittyGraphics.header(of: sent))
        func at(_ y: Int, rows: Range<Int> = 0..<4, placement: UInt32 = 1) -> PlacedPicture {
            PlacedPicture(
                x: 0, y: y, display: .kitty, rows: [sent], kitty: KittyPlacement(header: header, placement: placement, rows: rows)
            )
        }
        var images: [UInt32: TmuxPassthrough?] = [:]
        let first = KittyGraphics.changes(from: [], to: [at(10)], sent: &images)
        #expect(count("a=t,i=5", in: first) == 1 && count("a=p,i=5,p=1", in: first) == 1)
        #expect(String(decoding: first, as: UTF8.self).contains("\u{1B}[11;1H"))
        for y in stride(from: 9, through: 2, by: -1) {
            let step = KittyGraphics.changes(from: [at(y + 1)], to: [at(y)], sent: &images)
            let text = String(decoding: step, as: UTF8.self)
            #expect(!text.contains("a=t") && !text.contains("m="), "\(text)")
            #expect(text.contains("\u{1B}[\(y + 1);1H") && text.contains("a=p,i=5,p=1,"))
            #expect(step.count < 120)
        }
        // The same picture twice in an article: two placements of one image, sent once.
        let twice = KittyGraphics.changes(from: [at(2)], to: [at(2), at(20, placement: 2)], sent: &images)
        #expect(count("a=t", in: twice) == 0 && count("a=p,i=5,p=2", in: twice) == 1)
        // Off screen: the placement goes, the data stays for the way back.
        let gone = KittyGraphics.changes(from: [at(2), at(20, placement: 2)], to: [at(2)], sent: &images)
        #expect(String(decoding: gone, as: UTF8.self) == "\u{1B}_Ga=d,d=i,i=5,p=2,q=2\u{1B}\\")
        #expect(KittyGraphics.changes(from: [at(2)], to: [at(2)], sent: &images).isEmpty)
        // Leaving the article frees the image.
        #expect(String(decoding: KittyGraphics.release(images), as: UTF8.self) == "\u{1B}_Ga=d,d=I,i=5,q=2\u{1B}\\")
    }

    @Test func aKittyPicturePartlyOnScreenShowsItsVisibleRows() throws {
        let sent = KittyGraphics.transmitOnly(PictureEncoder.encode(image, as: .kitty, columns: 8, rows: 4), id: 9)
        let header = try #require(KittyGraphics.header(of: sent))
        // Rows 1 to 3 of 4, from a 64-pixel-high picture: pixels 16 to 64.
        let bottom = String(decoding: KittyGraphics.place(header, placement: 3, rows: 1..<4), as: UTF8.self)
        #expect(bottom == "\u{1B}_Ga=p,i=9,p=3,x=0,y=16,w=64,h=48,c=8,r=3,C=1,q=2\u{1B}\\")
        let top = String(decoding: KittyGraphics.place(header, placement: 3, rows: 0..<1), as: UTF8.self)
        #expect(top.contains(",y=0,w=64,h=16,c=8,r=1,"))
        // Rows past the picture are cut off.
        #expect(
            String(decoding: KittyGraphics.place(header, placement: 3, rows: 2..<9), as: UTF8.self).contains(
                ",y=32,w=64,h=32,c=8,r=2,"))
    }

    @Test func placedPicturesPartlyOnScreen() throws {
        let store = try ZeaderStore.inMemory()
        var article = ArticleState(
            itemID: ObjectID(entity: try store.container.model.entity(named: "FeedItem"), primaryKey: 1), feedTitle: "F",
            title: "T", author: nil, date: nil, link: nil, bodyHTML: "", baseURL: nil)
        article.pictures = [PicturePlacement(url: "u", alt: "a", line: 10, columns: 8, rows: 4)]
        let screen = 1..<23
        var encoded = EncodedPictures(budget: 1 << 20)
        let kittyKey = EncodedPictures.Key(url: "u", columns: 8, rows: 4, display: .kitty)
        let sent = KittyGraphics.transmitOnly(PictureEncoder.encode(image, as: .kitty, columns: 8, rows: 4), id: 4)
        encoded.insert(sent, for: kittyKey)
        // The picture's top at screen row 3 + 10 - 11 = 2: whole.
        article.scroll = 11
        var placed = ArticlePictures.placed(article, encoded: encoded, display: .kitty, bodyTop: 3, rows: screen)
        #expect(placed.map(\.y) == [2] && placed.first?.kitty?.rows == 0..<4)
        // Two rows above the first: rows 2 and 3 show, from screen row 1.
        article.scroll = 14
        placed = ArticlePictures.placed(article, encoded: encoded, display: .kitty, bodyTop: 3, rows: screen)
        #expect(placed.map(\.y) == [1] && placed.first?.kitty?.rows == 2..<4)
        // Cut at the bottom too.
        article.scroll = -9
        placed = ArticlePictures.placed(article, encoded: encoded, display: .kitty, bodyTop: 3, rows: screen)
        #expect(placed.map(\.y) == [22] && placed.first?.kitty?.rows == 0..<1)
        // A sixel picture partly on screen: its visible part's encoding, asked for before the whole.
        article.scroll = 14
        let wanted = ArticlePictures.wanted(article, display: .sixel, bodyTop: 3, rows: screen).map(\.key)
        let part = EncodedPictures.Key(url: "u", columns: 8, rows: 4, display: .sixel, part: 2..<4)
        #expect(wanted == [part, part.whole])
        encoded.insert(Array("whole".utf8), for: part.whole)
        #expect(ArticlePictures.placed(article, encoded: encoded, display: .sixel, bodyTop: 3, rows: screen).isEmpty)
        encoded.insert(Array("part".utf8), for: part)
        placed = ArticlePictures.placed(article, encoded: encoded, display: .sixel, bodyTop: 3, rows: screen)
        #expect(placed.map(\.y) == [1] && placed.first?.rows == [Array("part".utf8)])
        #expect(
            ArticlePictures.wanted(article, display: .kitty, bodyTop: 3, rows: screen).map(\.key) == [part.whole.with(.kitty)])
    }

    @Test func theVisibleRowsOfASixelOrITermPictureAreEncoded() async throws {
        let squares = TestPictures.squares(side: 64)
        let png = TestPictures.png(width: squares.width, height: squares.height, rgba: squares.rgba)
        try await withLoopbackServer({ _ in .respond(status: 200, headers: [("Content-Type", "image/png")], body: png) }) {
            http in
            for display in [PictureProtocol.sixel, .iterm] {
                // The bottom two of eight rows: blue and yellow only.
                let key = EncodedPictures.Key(
                    url: http.url("/s.png").absoluteString, columns: 16, rows: 8, display: display, part: 6..<8)
                let outcome = await ArticlePictures.load(
                    key, fetcher: FeedFetcher(configuration: FetcherConfiguration(version: "test")),
                    cache: PictureDiskCache(directory: URL(fileURLWithPath: "/nonexistent"), capacity: 0),
                    limits: .default, cellPixels: (6, 12))
                let bytes = try outcome.get()
                let back = try #require(display == .sixel ? ReadBackPicture.sixel(bytes) : ReadBackPicture.iterm(bytes))
                #expect(back.height <= 2 * 12 && back.height >= 18, "\(display) \(back.height)")
                #expect(back.width == 16 * 6, "\(display)")
                for fy in [0.1, 0.5, 0.9] {
                    #expect(colour(back.rgb(fraction: 0.25, fy), isNear: 0x0000FF), "\(display) \(fy)")
                    #expect(colour(back.rgb(fraction: 0.75, fy), isNear: 0xFFFF00), "\(display) \(fy)")
                }
            }
        }
    }

    @Test func tmuxsPassthroughWrapsAndDoublesEachEscape() {
        let wrapped = String(decoding: TmuxPassthrough.wrap(Array("\u{1B}_Ga=q\u{1B}\\".utf8)), as: UTF8.self)
        #expect(wrapped == "\u{1B}Ptmux;\u{1B}\u{1B}_Ga=q\u{1B}\u{1B}\\\u{1B}\\")
        // The pane's place moves the outer terminal's cursor: row 3, column 41 of the pane at (2, 40).
        let placed = String(decoding: TmuxPassthrough(top: 2, left: 40).wrap(Array("X".utf8), x: 0, y: 0), as: UTF8.self)
        #expect(placed == "\u{1B}Ptmux;\u{1B}\u{1B}7\u{1B}\u{1B}[3;41HX\u{1B}\u{1B}8\u{1B}\\")
        // A long picture goes in several wraps, each ending where one of its sequences does
        // (tmux writes its own between two), that join to the original.
        let chunk = Array("\u{1B}_Gm=1;".utf8) + [UInt8](repeating: UInt8(ascii: "A"), count: 4000) + Array("\u{1B}\\".utf8)
        let long = (0..<40).flatMap { _ in chunk }
        let pieces = String(decoding: TmuxPassthrough.wrap(long), as: UTF8.self)
            .components(separatedBy: "\u{1B}Ptmux;").dropFirst()
        #expect(pieces.count == 3)
        for piece in pieces {
            #expect(piece.hasSuffix("\u{1B}\u{1B}\\\u{1B}\\") && piece.count <= TmuxPassthrough.pieceSize * 2 + chunk.count * 2)
        }
        #expect(pieces.joined().replacingOccurrences(of: "\u{1B}\u{1B}", with: "\u{1B}").utf8.count == long.count + 2 * 3)
        // One sequence past tmux's limit is cut rather than dropped whole.
        let huge = [UInt8](repeating: UInt8(ascii: "~"), count: TmuxPassthrough.largestPiece + 10)
        #expect(String(decoding: TmuxPassthrough.wrap(huge), as: UTF8.self).components(separatedBy: "\u{1B}Ptmux;").count == 3)
        // The kitty picture as the backend sends it in tmux: the placement inside the same wrap.
        let sent = KittyGraphics.transmitOnly(PictureEncoder.encode(image, as: .kitty, columns: 8, rows: 4), id: 2)
        let header = KittyGraphics.header(of: sent)!
        let picture = PlacedPicture(
            x: 0, y: 4, display: .kitty, rows: [sent], kitty: KittyPlacement(header: header, placement: 1, rows: 0..<4),
            passthrough: TmuxPassthrough(top: 0, left: 50))
        var images: [UInt32: TmuxPassthrough?] = [:]
        let out = String(decoding: KittyGraphics.changes(from: [], to: [picture], sent: &images), as: UTF8.self)
        #expect(out.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}7\u{1B}\u{1B}[5;51H\u{1B}\u{1B}_Gq=2,a=t,i=2,"))
        #expect(String(decoding: KittyGraphics.release(images), as: UTF8.self).hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_Ga=d,d=I,i=2"))
    }

    @Test func insideTmuxTheOuterTerminalsAnswersDecide() {
        let tmux = ["TMUX": "/tmp/tmux-0/default,1,0"]
        // The query goes through the passthrough and ends on a status report, not DA1.
        let query = String(decoding: TerminalGraphics.tmuxQuery, as: UTF8.self)
        #expect(query.hasPrefix("\u{1B}Ptmux;\u{1B}\u{1B}_Gi=31,") && query.hasSuffix("\u{1B}\u{1B}[5n\u{1B}\\"))
        // tmux's own DA1 reply, then the outer kitty's, handed on by tmux.
        let kitty = TerminalGraphics.parse(Array("\u{1B}[?1;2c\u{1B}_Gi=31;OK\u{1B}\\\u{1B}[0n".utf8))
        #expect(kitty.kitty && kitty.answered && kitty.typedAhead.isEmpty)
        #expect(TerminalGraphics.choose(.auto, answers: kitty, environment: tmux) == .kitty)
        // A sixel terminal: its XTSMGRAPHICS reply comes through, its DA1 does not.
        let sixel = TerminalGraphics.parse(Array("\u{1B}[?2;0;1000;800S\u{1B}[0n".utf8))
        #expect(TerminalGraphics.choose(.auto, answers: sixel, environment: tmux) == .sixel)
        // The passthrough off: no answer within the wait, mosaics; so too for a terminal without pictures.
        #expect(TerminalGraphics.choose(.auto, answers: .init(), environment: tmux) == .symbols)
        let plain = TerminalGraphics.parse(Array("\u{1B}[0n".utf8))
        #expect(plain.answered && TerminalGraphics.choose(.auto, answers: plain, environment: tmux) == .symbols)
        // A status report typed ahead with keys: the keys are kept.
        #expect(TerminalGraphics.parse(Array("j\u{1B}[0nk".utf8)).typedAhead == Array("jk".utf8))
        // tmux says where the pane is and whether the passthrough is on (1, or 2 for `all`).
        #expect(TmuxPassthrough.parse("0 41 1\n") == TmuxPassthrough(top: 0, left: 41))
        #expect(TmuxPassthrough.parse("3 0 2\n") == TmuxPassthrough(top: 3, left: 0))
        for off in ["0 41 0\n", "", "0 41\n", "a b 1\n", "0 -1 1\n", "0 41 \n"] {
            #expect(TmuxPassthrough.parse(off) == nil, "\(off)")
        }
        #expect(TmuxPassthrough.parse("0 41 1\n", status: 1) == nil)
        // A tmux that does not answer (here: none to run): mosaics, and no question waits for
        // the outer terminal; a pixel protocol the config names falls back the same way.
        let silent = ["TMUX": "/nonexistent/socket,1,0", "PATH": "/nonexistent"]
        for setting in [PictureSettings.Display.auto, .kitty, .sixel, .iterm] {
            let graphics = TerminalGraphics.detect(setting, input: -1, output: -1, environment: silent)
            #expect(graphics.display == .symbols && graphics.passthrough == nil, "\(setting)")
        }
        #expect(TerminalGraphics.detect(.none, input: -1, output: -1, environment: silent).display == nil)
        // Outside tmux nothing is wrapped.
        let outside = TerminalGraphics.detect(.kitty, input: -1, output: -1, environment: [:])
        #expect(outside.display == .kitty && outside.passthrough == nil)
    }
}

extension EncodedPictures.Key {
    fileprivate func with(_ display: PictureProtocol) -> EncodedPictures.Key {
        var key = self
        key.display = display
        return key
    }
}
