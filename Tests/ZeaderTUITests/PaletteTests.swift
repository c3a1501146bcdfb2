import Testing

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
        #expect(palette.look(Style(role: .normal, bold: true)) == (0, []))
        #expect(palette.pairs[.title] == .init(2, 0))
        #expect(palette.pairs[.statusBar] == .init(2, 0))
        #expect(palette.look(Style(role: .statusBar)) == (Int16(Style.Role.statusBar.rawValue), [.bold, .reverse]))
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
        #expect(throws: (any Error).self) { try ReaderConfig.parse("color article default default sparkle", file: "config") }
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
