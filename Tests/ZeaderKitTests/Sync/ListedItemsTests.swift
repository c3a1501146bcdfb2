import Testing

@testable import ZeaderKit

@Suite("Sync: items kept from a listing")
struct ListedItemsTests {
    static func item(_ id: UInt64, html: String = "<p>x</p>") -> SyncItem {
        SyncItem(id: id, feedID: "feed/1", title: "item \(id)", html: html)
    }

    @Test func eachItemIsTakenOnceAndAnIDKeptTwiceIsTheFirst() {
        var listed = ListedItems()
        for id in [5, 3, 9] as [UInt64] { listed.keep(Self.item(id)) }
        listed.keep(Self.item(3, html: "<p>again</p>"))
        #expect(listed.take(3)?.html == "<p>x</p>")
        #expect(listed.take(3) == nil)
        #expect(listed.take(4) == nil)
        #expect(listed.take(9)?.title == "item 9" && listed.take(5)?.title == "item 5")
        #expect(listed.take(5) == nil)
    }

    @Test func theBudgetCountsEveryItemKept() {
        var listed = ListedItems()
        let big = String(repeating: "a", count: SyncItem.listedBudget / 2)
        listed.keep(Self.item(1, html: big))
        #expect(!listed.isFull && listed.bytes == Self.item(1, html: big).approximateSize)
        listed.keep(Self.item(1, html: big))  // the same id: not counted again
        #expect(!listed.isFull)
        listed.keep(Self.item(2, html: big))
        #expect(listed.isFull)
    }
}
