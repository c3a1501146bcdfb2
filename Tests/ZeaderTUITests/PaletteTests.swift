import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `color` lines, from the config text to each role's colour pair and attributes.
@Suite struct PaletteTests {
    private func palette(_ config: String, colorCount: Int = 256, hasColor: Bool = true, hasDefaultColors: Bool = true)
        throws -> Palette
    {
        let rules = try ReaderConfig.parse(config, file: "config").colorRules
        return Palette(rules: rules, hasColor: hasColor, colorCount: colorCount, hasDefaultColors: hasDefaultColors)
    }

    private let selection = Style(role: .selected, bold: true, reverse: true)
    private let unreadSelection = Style(role: .selectedUnread, bold: true, reverse: true)

    @Test func withoutColorLinesTheBuiltInPaletteIsUsed() throws {
        let palette = try palette("")
        #expect(palette.pairs[.selected] == .init(7, 4))
        #expect(palette.pairs[.unread] == .init(6, -1))
        #expect(palette.defaultColors == nil)
        #expect(palette.look(selection) == (Int16(Style.Role.selected.rawValue), [.bold]))
        #expect(palette.look(Style(role: .unread, bold: true)) == (Int16(Style.Role.unread.rawValue), [.bold]))
        #expect(palette.look(Style(role: .dim)) == (Int16(Style.Role.dim.rawValue), [.dim]))
        #expect(palette.look(.normal) == (0, []))
    }

    @Test func aColorLineSetsTheColoursAndAttributesOfItsElement() throws {
        let palette = try palette(
            """
            color listfocus yellow blue bold underline
            color listfocus_unread color208 default standout blink
            color listnormal_unread red default
            color end-of-text-marker color240 default invis
            """)
        #expect(palette.pairs[.selected] == .init(3, 4))
        #expect(palette.look(selection) == (Int16(Style.Role.selected.rawValue), [.bold, .underline]))
        #expect(palette.pairs[.selectedUnread] == .init(208, -1))
        #expect(palette.look(unreadSelection) == (Int16(Style.Role.selectedUnread.rawValue), [.standout, .blink]))
        // As in newsboat, the line gives the whole look: unread items are red and no longer bold.
        #expect(palette.pairs[.unread] == .init(1, -1))
        #expect(palette.look(Style(role: .unread, bold: true)) == (Int16(Style.Role.unread.rawValue), []))
        #expect(palette.pairs[.dim] == .init(240, -1))
        #expect(palette.look(Style(role: .dim)) == (Int16(Style.Role.dim.rawValue), [.invisible]))
        // Roles no line names keep the built-in look.
        #expect(palette.look(Style(role: .heading, bold: true)) == (Int16(Style.Role.heading.rawValue), [.bold]))
    }

    @Test func backgroundSetsTheDefaultColoursAndInfoBothBars() throws {
        let palette = try palette(
            """
            color background white black
            color info green black bold reverse
            """)
        #expect(palette.defaultColors == .init(7, 0))
        // Plain text has its own pair: curses draws pair 0 in the terminal's colours.
        #expect(palette.look(.normal) == (Palette.plainPair, []))
        // An article's <strong> stays bold in it.
        #expect(palette.look(Style(role: .normal, bold: true)) == (Palette.plainPair, [.bold]))
        #expect(palette.pairs[.title] == .init(2, 0))
        #expect(palette.pairs[.statusBar] == .init(2, 0))
        #expect(palette.look(Style(role: .statusBar)) == (Int16(Style.Role.statusBar.rawValue), [.bold, .reverse]))
    }

    @Test(arguments: ["article", "listnormal", "background"])
    func aBasicColourOfPlainTextGetsAPairOfItsOwn(element: String) throws {
        for (name, number) in [("cyan", 6), ("red", 1), ("color6", 6), ("color250", 250)] {
            let palette = try palette("color \(element) \(name) default")
            #expect(palette.defaultColors == .init(Int16(number), -1))
            #expect(palette.look(.normal).pair == Palette.plainPair)
            #expect(palette.look(Style(role: .selected, bold: true)).pair == Palette.plainPair)
            #expect(!Style.Role.allCases.map(\.rawValue).contains(Int(Palette.plainPair)))
            #expect(Palette.plainPair < Palette.firstHighlightPair)
        }
        // Without such a line plain text keeps the terminal's colours (pair 0).
        #expect(try palette("color listfocus cyan default").look(.normal).pair == 0)
    }

    @Test func theLastLineForAnElementWins() throws {
        let palette = try palette("color listfocus red black bold\ncolor listfocus green default")
        #expect(palette.pairs[.selected] == .init(2, -1))
        #expect(palette.look(selection).attributes == [])
    }

    @Test func coloursTheTerminalLacksFallBack() throws {
        let palette = try palette(
            """
            color listfocus color12 color200
            color listnormal_unread color9 default
            """, colorCount: 8)
        // Bright 8–15 become their dark 0–7; beyond, the terminal's default colour.
        #expect(palette.pairs[.selected] == .init(4, -1))
        #expect(palette.pairs[.unread] == .init(1, -1))
        let noDefaults = try self.palette("color listfocus default color200", colorCount: 8, hasDefaultColors: false)
        #expect(noDefaults.pairs[.selected] == .init(7, 0))
        #expect(noDefaults.pairs[.unread] == .init(6, 0))
    }

    @Test func withoutColoursReverseStaysAndTheLinesAttributesAreAdded() throws {
        let palette = try palette("color listfocus yellow blue underline\ncolor listnormal_unread red default", hasColor: false)
        #expect(palette.look(selection) == (0, [.bold, .reverse, .underline]))
        #expect(palette.look(unreadSelection) == (0, [.bold, .reverse]))
        #expect(palette.look(Style(role: .unread, bold: true)) == (0, [.bold]))
        #expect(palette.look(Style(role: .title)) == (0, [.reverse]))
    }

    @Test func everyNewsboatAttributeNameIsKnown() throws {
        let names = ["standout", "underline", "reverse", "blink", "dim", "bold", "protect", "invis", "invisible"]
        for name in names {
            #expect(TextAttributes(named: name) != nil, "\(name)")
            #expect(try palette("color article default default \(name)").configured[.normal] != [])
        }
        // An attribute newsboat does not have loses only its line (a newer newsboat may name more).
        let unknown = try ReaderConfig.parse("color article default default sparkle", file: "config")
        #expect(unknown.colorRules.isEmpty)
        #expect(unknown.warnings.map(\.message) == ["unknown color attribute 'sparkle' (line ignored)"])
    }

    @Test func theCursorOnAnUnreadRowUsesListfocusUnread() {
        var state = AppState(width: 80, height: 10)
        state.feeds = [
            FeedRow(kind: .smart(predicateFormat: "read == YES", id: nil), title: "Read", unread: 0, total: 2),
            FeedRow(kind: .smart(predicateFormat: "read == NO", id: nil), title: "Unread", unread: 1, total: 2),
        ]
        var buffer = ScreenBuffer(width: 80, height: 10)
        FeedListView.draw(state, rows: 1..<3, into: &buffer)
        #expect(buffer[10, 1].style.role == .selected)
        state.feedPosition.cursor = 1
        buffer = ScreenBuffer(width: 80, height: 10)
        FeedListView.draw(state, rows: 1..<3, into: &buffer)
        #expect(buffer[10, 2].style.role == .selectedUnread)
    }
}

/// newsboat's `highlight` lines: parsed, given their own colour pairs, and marking the matching
/// cells of the view they name.
@Suite struct HighlightRuleTests {
    private func config(_ text: String) throws -> ReaderConfig { try ReaderConfig.parse(text, file: "config") }

    @Test func parsesTargetRegexColoursAndAttributes() throws {
        let rules = try config(
            """
            highlight articlelist "swift|linux" yellow blue bold
            highlight all "^N" red
            """
        ).highlightRules
        #expect(rules.count == 2)
        #expect(rules[0].target == .articlelist)
        #expect(rules[0].pattern == "swift|linux")
        #expect((rules[0].foreground, rules[0].background, rules[0].attributes) == (3, 4, ["bold"]))
        #expect((rules[1].foreground, rules[1].background) == (1, -1))
    }

    @Test func badHighlightLinesNameTheProblem() {
        // A highlight line Zeader cannot read is a warning naming the problem; the reader starts.
        func message(_ line: String) -> String {
            do {
                let parsed = try config(line)
                #expect(parsed.highlightRules.isEmpty)
                return parsed.warnings.map(\.description).joined(separator: "\n")
            } catch { return "error: \(error)" }
        }
        #expect(message("highlight titles x red").contains("unknown highlight target 'titles'"))
        #expect(message("highlight all \"(unclosed\" red").contains("does not compile"))
        #expect(message("highlight all x").contains("needs a target, a regular expression and a colour"))
        #expect(message("highlight all x purple").contains("unknown color"))
        #expect(message("highlight all x red default sparkle").contains("unknown color attribute 'sparkle'"))
    }

    @Test func eachRuleHasItsPairAfterTheRoles() throws {
        let rules = try config("highlight all a red default bold\nhighlight all b color208 color17").highlightRules
        let palette = Palette(rules: [], highlights: rules, hasColor: true, colorCount: 256)
        #expect(palette.highlights.map(\.colors) == [.init(1, -1), .init(208, 17)])
        var style = Style(role: .unread, bold: true)
        style.highlight = 2
        #expect(palette.look(style) == (Int16(Palette.firstHighlightPair + 1), []))
        style.highlight = 1
        #expect(palette.look(style) == (Int16(Palette.firstHighlightPair), [.bold]))
        // Without colours a highlight still shows: its attributes, else bold.
        let mono = Palette(rules: [], highlights: rules, hasColor: false)
        style.highlight = 2
        #expect(mono.look(style) == (0, [.bold]))
        // Rules past the terminal's colour pairs are left out.
        #expect(Palette(rules: [], highlights: rules, hasColor: true, colorPairs: 17).highlights.count == 1)
    }

    @Test func theMatchingCellsOfTheNamedViewAreMarked() throws {
        var state = AppState(width: 60, height: 6)
        state.highlights = try config("highlight feedlist \"linux\" red\nhighlight article \"naïve\" green").highlightRules
        state.feeds = [
            FeedRow(kind: .smart(predicateFormat: "read == NO", id: nil), title: "Top", unread: 0, total: 0),
            FeedRow(kind: .smart(predicateFormat: "read == NO", id: nil), title: "Swift on LINUX", unread: 0, total: 0),
        ]
        var buffer = ScreenBuffer(width: 60, height: 6)
        FeedListView.draw(state, rows: 1..<3, into: &buffer)
        let line = buffer.line(2)
        let start = try #require(line.range(of: "LINUX")).lowerBound
        let column = line.distance(from: line.startIndex, to: start)
        #expect((column..<column + 5).allSatisfy { buffer[$0, 2].style.highlight == 1 })
        #expect(buffer[column - 1, 2].style.highlight == 0 && buffer[column + 5, 2].style.highlight == 0)
        // The cursor's row shows the cursor, not the highlight; the article rule leaves the list alone.
        #expect((0..<60).allSatisfy { buffer[$0, 1].style.highlight == 0 })
        var marked = ScreenBuffer(width: 20, height: 1)
        marked.write("a naïve café", x: 0, y: 0)
        marked.highlight(y: 0, rules: state.highlights, view: .article)
        #expect(
            (0..<20).map { marked[$0, 0].style.highlight } == [0, 0] + Array(repeating: 2, count: 5)
                + Array(repeating: 0, count: 13))
        // A rule for another view leaves the row as it is.
        var other = ScreenBuffer(width: 20, height: 1)
        other.write("a naïve linux café", x: 0, y: 0)
        other.highlight(y: 0, rules: state.highlights, view: .articlelist)
        #expect((0..<20).allSatisfy { other[$0, 0].style.highlight == 0 })
    }
}
