import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// `i` (rename-feed): the status line asks for the selected feed's title, its current one to
/// edit; ENTER renames it, `z` undoes it, an empty title gives back the feed's own.
@Suite struct ReaderRenameFeedTests {
    static func title(_ h: Harness, _ url: String) throws -> String? {
        let context = h.store.container.newBackgroundContext()
        return try context.performAndWait { try Server.findFirst(byAttribute: "url", value: .string(url), in: context)?.title }
    }

    @Test func iRenamesTheSelectedFeedAndZUndoesIt() throws {
        #expect(KeyMap.default.action(for: .character("i")) == .renameFeed)
        let h = try Harness()
        #expect(h.line(1).contains("Zeader News"))
        let url = try #require(
            try h.store.container.viewContext.performAndWait {
                try Server.findFirst(byAttribute: "title", value: "Zeader News", in: h.store.container.viewContext)?.url
            })
        var screen = h.type(.character("i"))
        #expect(screen.contains("Title (empty: the feed's own): Zeader News"), "\(screen)")
        h.type(.control("u"))
        h.type(text: "My news")
        screen = h.type(.enter)
        #expect(screen.contains("Renamed: My news"), "\(screen)")
        #expect(h.line(1).contains("My news"))
        #expect(try Self.title(h, url) == "My news")

        screen = h.type(.character("z"))
        #expect(h.line(1).contains("Zeader News"), "\(screen)")
        #expect(try Self.title(h, url) == "Zeader News")

        // Renamed again, then an empty title: the feed's own, as it was before the first rename.
        h.type(.character("i"), .control("u"))
        h.type(text: "Other")
        h.type(.enter)
        #expect(h.line(1).contains("Other"))
        h.type(.character("i"), .control("u"), .enter)
        #expect(h.line(1).contains("Zeader News"))
        // ESC leaves the title as it was.
        h.type(.character("i"), .control("u"))
        h.type(text: "Not kept")
        h.type(.escape)
        #expect(try Self.title(h, url) == "Zeader News")
    }

    @Test func iElsewhereSaysWhereItWorks() throws {
        let h = try Harness()
        h.type(.enter)  // the first feed's items
        let screen = h.type(.character("i"))
        #expect(screen.contains("Select a feed in the feed list to rename it"), "\(screen)")
        // A smart feed has no title of its feed to rename.
        let smart = try Harness()
        smart.type(.end)
        #expect(smart.type(.character("i")).contains("Select a feed in the feed list to rename it"))
    }
}
