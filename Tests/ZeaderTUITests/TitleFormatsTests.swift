import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's title formats of the screens besides the lists and the article: help, the link
/// list, the tag and filter pickers, the open screens and search results.
@Suite struct TitleFormatsTests {
    private func harness(_ text: String) throws -> Harness {
        try Harness(width: 100, config: try ReaderConfig.parse(text, file: "config"))
    }

    @Test func helpAndLinkListTitles() throws {
        let h = try harness("help-title-format \"%N - Keys\"\nurlview-title-format \"%N: the links\"")
        h.type(.character("?"))
        #expect(h.line(0).hasPrefix("Zeader - Keys"))
        h.type(.character("q"), .enter, .enter, .character("U"))
        #expect(h.queue.sync { h.app.state.picker?.kind } == .links)
        #expect(h.line(0).hasPrefix("Zeader: the links"))
    }

    @Test func dialogPickerTitle() throws {
        let h = try harness("selecttag-title-format \"Tags of %N\"\ndialogs-title-format \"%N %V open screens\"")
        h.type(.character("v"))
        #expect(h.queue.sync { h.app.state.picker?.kind } == .dialogs)
        #expect(h.line(0).hasPrefix("Zeader \(zeaderVersion) open screens"))
        // Without a format the picker keeps its own title.
        let plain = try Harness(width: 100)
        plain.type(.character("v"))
        #expect(!plain.line(0).contains("open screens"))
    }

    @Test func searchResultTitleIsTheSearchsOwn() throws {
        let h = try harness(
            "searchresult-title-format \"Found: %u unread of %t\"\narticlelist-title-format \"List %T\"")
        h.type(.character("/"))
        h.type(text: "swift")
        h.type(.enter)
        #expect(h.line(0).hasPrefix("Found: "))
        // A feed's list keeps articlelist-title-format.
        let g = try harness("searchresult-title-format \"Found\"\narticlelist-title-format \"List %T\"")
        g.type(.enter)
        #expect(g.line(0).hasPrefix("List Zeader News"))
    }
}
