import Foundation
import Testing

@testable import ObjectGraph

final class DatedPost: ManagedObject {
    @Managed("title") var title: String?
    @Managed("date") var published: Date?
    @Managed("flag") var flag: Bool
}

/// A page of search results newest first, read from the most recent matches when that is
/// proven to give the page (SearchWindow.swift), else from every match: the same results
/// as sorting every match, whichever way the fetch took.
@Suite struct SearchWindowTests {
    static let model = try! ManagedObjectModel(
        name: "Posts", version: 1,
        entities: [
            EntityDescription(
                "Post", managedClass: DatedPost.self,
                attributes: [.string("title"), .date("date", indexed: true), .bool("flag", defaultValue: false)],
                fullTextIndex: FullTextIndexDescription(attributes: ["title"]))
        ])
    static let newestFirst = [
        ObjectSortDescriptor("date", ascending: false),
        ObjectSortDescriptor(ObjectSortDescriptor.storeOrderKey, ascending: false),
    ]

    /// 6,000 posts saved in key order: every title has "common", every 100th "rare", every
    /// 500th is flagged. `date(n)` gives post n's date (nil: undated).
    func store(date: (Int) -> Date?, flag: (Int) -> Bool = { $0 % 500 == 0 }) throws -> PersistentContainer {
        let container = try PersistentContainer(model: Self.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            for n in 0..<6_000 {
                let post = context.insert(DatedPost.self)
                post.title = "common post \(n)" + (n % 100 == 0 ? " rare" : "")
                post.published = date(n)
                post.flag = flag(n)
            }
            try context.save()
        }
        return container
    }

    /// The fetch's titles, the source it chose, and what sorting every match in memory gives;
    /// `proven`: the plan kept the page's keys from proving the window, which the IDs' fetch
    /// (checked here to give the same page) then gives without another query.
    func page(
        _ container: PersistentContainer, _ text: String, filter: String? = nil, offset: Int = 0, limit: Int = 50,
        sort: [ObjectSortDescriptor] = newestFirst
    ) throws -> (found: [String], source: SearchMatchSource, expected: [String], proven: Bool) {
        let context = container.viewContext
        return try context.performAndWait { () throws in
            var request = FetchRequest<DatedPost>(
                predicate: try filter.map { try ObjectPredicate(format: $0) }, sortDescriptors: sort, fetchLimit: limit)
            request.fetchOffset = offset
            request.searchText = text
            let plan = try FetchPlan(request: request, context: context)
            let found = try context.fetch(request).compactMap(\.title)
            let byID = try context.fetchObjectIDs(request).compactMap {
                (try context.existingObject(with: $0) as? DatedPost)?.title
            }
            #expect(byID == found, "\(text)")
            var all: [ManagedObject] = try context.fetch(
                FetchRequest<DatedPost>(predicate: try filter.map { try ObjectPredicate(format: $0) })
            ).filter { FullTextSearch.matches(text, in: [$0.title]) }
            try context.sortInMemory(&all, by: sort)
            let expected = all.dropFirst(offset).prefix(limit).compactMap { ($0 as? DatedPost)?.title }
            context.reset()
            return (found, plan.matchSource, Array(expected), plan.provenPage != nil)
        }
    }

    @Test func recentMatchesGiveThePageWhenDatesFollowTheStoreOrder() throws {
        // Dates rise with the keys, with jitter of a few posts.
        let container = try store { Date(timeIntervalSince1970: Double($0 * 100 + ($0 * 7919) % 350)) }
        for (text, filter, offset) in [("rare", nil, 0), ("common", nil, 0), ("common post", "flag == NO", 30)]
            as [(String, String?, Int)]
        {
            let result = try page(container, text, filter: filter, offset: offset)
            #expect(result.found == result.expected, "\(text)")
            #expect(result.found.count == 50)
            // The first, smallest window holds the page (and all 60 matches of "rare").
            #expect(result.source == .recentMatches(FetchPlan.searchWindows(pageEnd: offset + 50)[0]), "\(text)")
            // A window holding every match needs no proof; a full one was proven by its page.
            #expect(result.proven == (text != "rare"), "\(text)")
        }
        // A filter few recent matches pass reads every match.
        let flagged = try page(container, "common", filter: "flag == YES")
        #expect(flagged.found == flagged.expected)
        #expect(flagged.found.count == 12)
        #expect(flagged.source == .allMatches)
        #expect(!flagged.proven)
        // Oldest first is not windowed.
        let oldest = try page(container, "common", sort: [ObjectSortDescriptor("date")])
        #expect(oldest.found == oldest.expected)
        #expect(oldest.source == .filter)
    }

    @Test func rowsStoredEarlierWithNewerDatesAreNotMissed() throws {
        // The last 3,000 posts stored are dated before the first 3,000 (an old archive
        // imported after the rest): the window of recent matches does not hold the page.
        let container = try store { n in Date(timeIntervalSince1970: Double(n < 3_000 ? 1_000_000 + n : n)) }
        let common = try page(container, "common")
        #expect(common.found == common.expected)
        #expect(common.found.first == "common post 2999")
        #expect(common.source == .filter)
        // A word whose every match fits the window is exact either way.
        let rare = try page(container, "rare")
        #expect(rare.found == rare.expected)
        #expect(rare.found.prefix(2) == ["common post 2900 rare", "common post 2800 rare"])
        #expect(rare.source == .recentMatches(FetchPlan.firstSearchWindow))
    }

    @Test func theWindowsGrowWithThePage() {
        #expect(FetchPlan.searchWindows(pageEnd: 50) == [200, 2_000])
        #expect(FetchPlan.searchWindows(pageEnd: 80) == [320, 2_000])
        #expect(FetchPlan.searchWindows(pageEnd: 500) == [2_000, 10_000])
        #expect(FetchPlan.searchWindows(pageEnd: 1) == [200, 2_000])
    }

    @Test func aLargerWindowWhenTheFirstDoesNotProveThePage() throws {
        // The last 200 posts stored are dated 3,000 posts back: the first window's newest
        // rows are not the page (older keys sort before them), the second window's are.
        let backdated = try store { n in Date(timeIntervalSince1970: Double(n >= 5_800 ? n - 3_000 : n) * 10) }
        let common = try page(backdated, "common")
        #expect(common.found == common.expected)
        #expect(common.found.first == "common post 5799")
        #expect(common.source == .recentMatches(FetchPlan.minimumSearchWindow))
        #expect(common.proven)
        // The last 190 posts stored fail the filter: the first window has 10 rows to give.
        let flagged = try store(date: { Date(timeIntervalSince1970: Double($0)) }, flag: { $0 >= 5_810 })
        let unflagged = try page(flagged, "common", filter: "flag == NO")
        #expect(unflagged.found == unflagged.expected)
        #expect(unflagged.found.first == "common post 5809")
        #expect(unflagged.source == .recentMatches(FetchPlan.minimumSearchWindow))
        let late = try page(flagged, "common", filter: "flag == YES")
        #expect(late.found == late.expected)
        #expect(late.found.first == "common post 5999")
        #expect(late.source == .recentMatches(FetchPlan.firstSearchWindow))
    }

    @Test func undatedRowsComeLast() throws {
        let container = try store { $0 % 3 == 0 ? nil : Date(timeIntervalSince1970: Double($0)) }
        for (text, offset) in [("common", 0), ("rare", 0), ("rare", 30)] {
            let result = try page(container, text, offset: offset)
            #expect(result.found == result.expected, "\(text) \(offset)")
        }
    }

    @Test func aSearchWindowBoundsTheMatchesToTheMostRecent() throws {
        let container = try store { Date(timeIntervalSince1970: Double($0)) }
        let context = container.viewContext
        try context.performAndWait { () throws in
            var request = FetchRequest<DatedPost>(sortDescriptors: [ObjectSortDescriptor("date")])
            request.searchText = "rare"
            request.searchWindow = 3
            #expect(
                try context.fetch(request).compactMap(\.title) == [
                    "common post 5700 rare", "common post 5800 rare", "common post 5900 rare",
                ])
            request.predicate = try ObjectPredicate(format: "flag == YES")
            #expect(try context.fetch(request).compactMap(\.title) == [])  // 5500 is a match, but not a recent one
            request.searchWindow = 5
            #expect(try context.fetch(request).compactMap(\.title) == ["common post 5500 rare"])
        }
    }
}
