import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// newsboat's `toggleitemread-jumps-to-next-unread` (`N`) and
/// `openbrowser-and-mark-jumps-to-next-unread` (`O`): after the mark the item list's cursor
/// goes on to the next unread item; without them (newsboat's default) it stays.
@Suite struct JumpAfterMarkingTests {
    /// The item list's cursor and which of its items are unread.
    func list(_ h: Harness) throws -> (cursor: Int, unread: [Bool]) {
        try h.queue.sync {
            let list = try #require(h.app.state.items)
            return (list.position.cursor, list.ids.map { !h.app.model.isRead($0) })
        }
    }

    @Test(arguments: [
        ("toggleitemread-jumps-to-next-unread", Key.character("N")),
        ("openbrowser-and-mark-jumps-to-next-unread", Key.character("O")),
    ])
    func theCursorGoesOnToTheNextUnreadItem(directive: String, key: Key) throws {
        for jumps in [true, false] {
            let config = try ReaderConfig.parse("\(directive) \(jumps ? "yes" : "no")\n", file: "c")
            let h = try Harness(config: config, effects: RecordingEffects())
            h.type(.down, .enter)
            let ids = try h.queue.sync { try #require(h.app.state.items).ids }
            var (cursor, unread) = try list(h)
            let first = try #require(unread.indices.first { unread[$0] && $0 + 1 < unread.count }, "an unread item")
            // The item after it read, so that the jump skips a read item.
            try h.queue.sync { try h.app.model.setRead(ids[first + 1], true) }
            while cursor < first {
                h.type(.down)
                cursor += 1
            }
            (cursor, unread) = try list(h)
            #expect(cursor == first)
            let next = try #require(unread.indices.first { $0 > first + 1 && unread[$0] }, "a second unread item")
            h.type(key)
            let after = try list(h)
            #expect(!after.unread[first], "\(directive): the item is read")
            #expect(after.cursor == (jumps ? next : first), "\(directive) \(jumps)")
        }
    }
}
