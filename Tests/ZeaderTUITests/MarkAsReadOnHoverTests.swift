import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `mark-as-read-on-hover`: each item the item list's cursor comes to is read.
@Suite struct MarkAsReadOnHoverTests {
    func unread(_ h: Harness) throws -> Int {
        try h.queue.sync { try FeedItem.count(where: "read == NO", in: h.store.container.viewContext) }
    }

    @Test(arguments: ["yes", "YES", "true"])
    func theItemsTheCursorComesToAreRead(value: String) throws {
        let config = try ReaderConfig.parse("mark-as-read-on-hover \(value)\n", file: "c")
        #expect(config.behaviour.markAsReadOnHover)
        let h = try Harness(config: config)
        let before = try unread(h)
        // Opening a feed selects its first item, then each item the cursor comes to: read.
        h.type(.down, .enter)
        for step in 0..<3 {
            let id = try #require(h.queue.sync { h.app.state.items?.selectedID })
            #expect(h.queue.sync { h.app.model.isRead(id) }, "item \(step)")
            h.type(.down)
        }
        #expect(try unread(h) < before)
        // Moving back onto a read item changes nothing.
        let now = try unread(h)
        h.type(.up)
        #expect(try unread(h) == now)
    }

    @Test func offByDefaultAndWithNo() throws {
        for config in [ReaderConfig(), try ReaderConfig.parse("mark-as-read-on-hover no\n", file: "c")] {
            let h = try Harness(config: config)
            let before = try unread(h)
            h.type(.down, .enter, .down, .down)
            #expect(try unread(h) == before)
        }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("mark-as-read-on-hover maybe\n", file: "c") }
    }
}

/// newsboat's `filebrowser-title-format`: the title bar while `s` asks for the file to save to.
@Suite struct FileBrowserTitleTests {
    @Test(arguments: [
        ("%?O?Open File&Save File? - %f", "Save File - " + FileManager.default.currentDirectoryPath),
        ("%N %V - %?O?Open File&Save File?", "Zeader \(zeaderVersion) - Save File"),
    ])
    func theSavePromptShowsTheFormat(format: String, shows: String) throws {
        let config = try ReaderConfig.parse("filebrowser-title-format \"\(format)\"\n", file: "c")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        let h = try Harness(width: 160, config: config)
        h.type(.down, .enter, .enter)
        #expect(!h.line(0).contains("Save File"))
        let screen = h.type(.character("s"))
        #expect(screen.contains("Save to: "))
        #expect(h.line(0).contains(shows), "\(h.line(0))")
        // The prompt closed, the article's own title is back.
        h.type(.escape)
        #expect(!h.line(0).contains("Save File"))
    }
}
