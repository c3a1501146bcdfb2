import Foundation
import ObjectGraph
import Testing

/// Computed properties beside managed ones: a key path through one that changes the value
/// must not be read as the stored property it reads.
final class ComputedServer: ManagedObject {
    @Managed("title") var title: String?
    @Managed("rank") var rank: Int64
    @Managed("active") var active: Bool
    @Managed("created") var created: Date?
    @ToOne("profile") var profile: ComputedProfile?
    @ToMany("items") var items: [ComputedItem]

    var displayTitle: String { title ?? "" }
    var loudTitle: String? { title?.uppercased() }
    var inactive: Bool { !active }
    var doubleRank: Int64 { rank * 2 }
    var positiveRank: Int64 { max(rank, 0) }
    var hasItems: Bool { !items.isEmpty }
    var itemCountPlusOne: Int { items.count + 1 }
    var unreadItems: [ComputedItem] { items.filter { !$0.read } }
    var year: Date? { created.map { Date(timeIntervalSince1970: $0.timeIntervalSince1970.rounded(.down)) } }
    var titleOrRank: String { title ?? "\(rank)" }
    var constant: Int64 { 5 }
    /// Passes a managed property through unchanged: read as that property.
    var sameTitle: String? { title }
}

final class ComputedItem: ManagedObject {
    @Managed("title") var title: String?
    @Managed("read") var read: Bool
    @ToOne("server") var server: ComputedServer?

    var unread: Bool { !read }
    var activeServer: ComputedServer? { server?.active == true ? server : nil }
    /// Passes a to-one path through unchanged: read as `server.title`.
    var serverTitle: String? { server?.title }
}

final class ComputedProfile: ManagedObject {
    @Managed("name") var name: String?
    @ToOne("server") var server: ComputedServer?
}

enum ComputedModel {
    static let model = try! ManagedObjectModel(
        name: "Computed", version: 1,
        entities: [
            EntityDescription(
                "ComputedServer", managedClass: ComputedServer.self,
                attributes: [
                    .string("title"), .integer("rank", defaultValue: 0), .bool("active", defaultValue: false),
                    .date("created"),
                ],
                relationships: [
                    .toOne("profile", destination: "ComputedProfile", inverse: "server"),
                    .toMany("items", destination: "ComputedItem", inverse: "server"),
                ]),
            EntityDescription(
                "ComputedItem", managedClass: ComputedItem.self,
                attributes: [.string("title"), .bool("read", defaultValue: false)],
                relationships: [.toOne("server", destination: "ComputedServer", inverse: "items")]),
            EntityDescription(
                "ComputedProfile", managedClass: ComputedProfile.self, attributes: [.string("name")],
                relationships: [.toOne("server", destination: "ComputedServer", inverse: "profile")]),
        ])
}

@Suite("Key paths through computed properties")
struct KeyPathComputedPropertyTests {
    /// The key `predicate` compares, or nil when it is not one comparison.
    func key<Root>(_ predicate: KeyPathPredicate<Root>) -> String? {
        guard case .comparison(let c) = predicate.predicate.node, case .keyPath(let key) = c.left else { return nil }
        return key
    }

    /// `predicate` compares a key saying what the key path read (containing `name`: "a computed
    /// property changing title") instead of a stored key, and both a fetch and (unless `evaluated` is
    /// false) an evaluation in memory throw an unknown-key error carrying it.
    func expectRefused<Root: ManagedObject>(
        _ predicate: KeyPathPredicate<Root>, naming name: String, evaluated: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let key = key(predicate) ?? ""
        // A dot would split the text itself: it must be one part of the key path.
        #expect(key.split(separator: ".").contains { $0.contains(name) }, "\(predicate)", sourceLocation: sourceLocation)
        let container = try PersistentContainer(model: ComputedModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let object = context.insert(Root.self)
            let error = #expect(throws: ObjectGraphError.self, sourceLocation: sourceLocation) {
                _ = try Root.fetch(where: predicate, in: context)
            }
            if case .unknownKey(_, let named)? = error {
                #expect(named.contains(name), sourceLocation: sourceLocation)
            } else {
                Issue.record("\(String(describing: error))", sourceLocation: sourceLocation)
            }
            guard evaluated else { return }
            #expect(throws: ObjectGraphError.self, sourceLocation: sourceLocation) {
                _ = try predicate.predicate.evaluate(with: object)
            }
        }
    }

    @Test("a computed property that changes an attribute's value is refused, naming it")
    func changedAttributes() throws {
        try expectRefused(\ComputedServer.displayTitle == "x", naming: "a computed property changing title")
        try expectRefused(\ComputedServer.displayTitle == "", naming: "a computed property changing title")
        try expectRefused(\ComputedServer.loudTitle == "X", naming: "a computed property changing title")
        try expectRefused(\ComputedServer.inactive == true, naming: "a computed property changing active")
        try expectRefused(\ComputedServer.doubleRank > 4, naming: "a computed property changing rank")
        try expectRefused(\ComputedServer.positiveRank > 4, naming: "a computed property changing rank")
        try expectRefused(\ComputedServer.year != nil, naming: "a computed property changing created")
        try expectRefused(\ComputedServer.titleOrRank == "3", naming: "a computed property changing title")
        try expectRefused(\ComputedServer.constant == 5, naming: "a key path reading no @Managed")
        try expectRefused((\ComputedServer.displayTitle).contains("x"), naming: "a computed property changing title")
        try expectRefused((\ComputedServer.inactive).in([true]), naming: "a computed property changing active")
    }

    @Test("computed properties over relationships are refused, naming them")
    func changedRelationships() throws {
        try expectRefused(\ComputedServer.hasItems == true, naming: "a computed property changing items")
        try expectRefused(\ComputedServer.itemCountPlusOne == 2, naming: "a computed property changing items")
        try expectRefused(\ComputedServer.unreadItems.count == 2, naming: "a computed property changing items→read")
        try expectRefused(\ComputedItem.unread == true, naming: "a computed property changing read")
        try expectRefused(\ComputedItem.server?.displayTitle == "x", naming: "a computed property changing server→title")
        try expectRefused(\ComputedItem.activeServer?.title == "x", naming: "a computed property changing server→active")
        // Over no members, ANY holds for none without reading the key: only the fetch refuses it.
        try expectRefused(
            (\ComputedServer.items).any(\.unread) == true, naming: "a computed property changing read", evaluated: false)
        try expectRefused(
            (\ComputedServer.unreadItems).any(\.title) == "x", naming: "a computed property changing items→read", evaluated: false
        )
        try expectRefused(\ComputedItem.objectID.rawValue == 1, naming: "a key path reading no @Managed")
    }

    @Test("sorting by a computed property fails the fetch, naming it")
    func sorting() throws {
        let sort = ObjectSortDescriptor(\ComputedServer.displayTitle)
        #expect(sort.key == "a computed property changing title")
        let container = try PersistentContainer(model: ComputedModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            _ = context.insert(ComputedServer.self)
            try context.save()
            #expect(throws: ObjectGraphError.self) {
                _ = try ComputedServer.fetch(sortedBy: [sort], in: context)
            }
        }
    }

    @Test("managed properties, and computed ones passing them through, are read as their keys")
    func accepted() throws {
        #expect(key(\ComputedServer.title == "x") == "title")
        #expect(key(\ComputedServer.sameTitle == "x") == "title")
        #expect(key(\ComputedServer.active == true) == "active")
        #expect(key(\ComputedServer.rank > 1) == "rank")
        #expect(key(\ComputedServer.created != nil) == "created")
        #expect(key(\ComputedServer.items.count == 1) == "items.@count")
        #expect(key(\ComputedItem.server?.title == "x") == "server.title")
        #expect(key(\ComputedItem.serverTitle == "x") == "server.title")
        #expect(key(\ComputedItem.server?.profile?.name == "x") == "server.profile.name")
        #expect(key(\ComputedItem.server == nil) == "server")
        #expect(key((\ComputedServer.items).any(\.read) == true) == "items.read")
        #expect(ObjectSortDescriptor(\ComputedItem.server?.rank).key == "server.rank")
    }
}
