import Foundation
import Testing

@testable import ObjectGraph

/// Salvage in an inheritance hierarchy: the table holds every kind, and a sub-entity's
/// salvage reads only its own rows (and its sub-entities'), each as its own entity.
@Suite struct SalvageInheritanceTests {
    static let model = try! ManagedObjectModel(
        name: "Reading", version: 1,
        entities: [
            EntityDescription(
                "ReadingItem", parent: nil, isAbstract: true, managedClass: ReadingItem.self, attributes: [.string("title")]),
            EntityDescription("Essay", parent: "ReadingItem", managedClass: Essay.self, attributes: [.string("body")]),
            EntityDescription(
                "Episode", parent: "ReadingItem", managedClass: Episode.self,
                attributes: [.double("duration", optional: true)]),
        ])

    func text(_ value: Value?) -> String? {
        if case .string(let s)? = value { return s }
        return nil
    }

    func salvage(_ store: PersistentStore, _ entity: String, keys: ClosedRange<Int64>? = nil) throws -> [SalvagedObject] {
        var skipped: Int64 = 0
        var objects: [SalvagedObject] = []
        try store.salvageObjects(of: entity, keys: keys, chunk: 3, skipped: &skipped, unreadable: { _, _ in }) {
            objects.append($0)
        }
        #expect(skipped == 0)
        return objects
    }

    @Test func aSubEntityReadsOnlyItsOwnRowsAndTheRootReadsEachAsItsKind() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("reading.sqlite")
        let container = try PersistentContainer(model: Self.model, store: .file(url))
        // Each key's kind and title, as saved.
        let saved = try container.viewContext.performAndWait { () throws -> [(key: Int64, kind: String, title: String)] in
            let context = container.viewContext
            // Interleaved, so that each kind's keys are spread over the one table.
            var items: [ReadingItem] = []
            for n in 0..<10 {
                if n % 3 == 0 {
                    let episode = context.insert(Episode.self)
                    episode.title = "episode \(n)"
                    episode.duration = Double(n * 60)
                    items.append(episode)
                } else {
                    let essay = context.insert(Essay.self)
                    essay.title = "essay \(n)"
                    essay.body = "body of \(n)"
                    items.append(essay)
                }
                try context.save()
            }
            return items.map { ($0.objectID.primaryKey!, $0.entity.name, $0.title!) }
        }
        func expected(_ kinds: Set<String>) -> [Int64] { saved.filter { kinds.contains($0.kind) }.map(\.key) }
        let store = container.store
        let essays = try salvage(store, "Essay")
        #expect(essays.map(\.primaryKey) == expected(["Essay"]))
        #expect(essays.allSatisfy { $0.entityName == "Essay" && $0.values["duration"] == nil })
        #expect(essays.allSatisfy { text($0.values["body"]) == "body of " + text($0.values["title"])!.dropFirst(6) })
        let episodes = try salvage(store, "Episode")
        #expect(episodes.map(\.primaryKey) == expected(["Episode"]))
        #expect(episodes.map { text($0.values["title"]) } == [0, 3, 6, 9].map { "episode \($0)" })
        #expect(episodes.map { $0.values["duration"] } == [0, 180, 360, 540].map { Value.double($0) })
        #expect(episodes.allSatisfy { $0.entityName == "Episode" && $0.values["body"] == nil })
        // The abstract root: every row, each with its own kind's attributes, in key order.
        let items = try salvage(store, "ReadingItem")
        #expect(items.map(\.primaryKey) == expected(["Essay", "Episode"]))
        #expect(items.map(\.entityName) == saved.map(\.kind))
        #expect(items.map { text($0.values["title"]) } == saved.map(\.title))
        #expect(items.filter { $0.entityName == "Essay" }.map(\.values) == essays.map(\.values))
        #expect(items.filter { $0.entityName == "Episode" }.map(\.values) == episodes.map(\.values))
        // A range of keys holds the same filter.
        let range = saved[2].key...saved[7].key
        #expect(try salvage(store, "Episode", keys: range).map(\.primaryKey) == expected(["Episode"]).filter(range.contains))
    }
}
