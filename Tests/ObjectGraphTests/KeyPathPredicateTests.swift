import Foundation
import ObjectGraph
import Testing

final class TypedServer: ManagedObject {
    @Managed("title") var title: String?
    @Managed("rank") var rank: Int64
    @Managed("score") var score: Double
    @Managed("active") var active: Bool
    @Managed("created") var created: Date?
    @ToOne("profile") var profile: TypedProfile?
    @ToMany("items") var items: [TypedItem]
    /// Not a model property: key paths through it must not make a plausible key.
    var displayTitle: String { title ?? "" }
}

final class TypedItem: ManagedObject {
    @Managed("title") var title: String?
    @Managed("count") var count: Int64
    @Managed("read") var read: Bool
    @Managed("published") var published: Date?
    @ToOne("server") var server: TypedServer?
}

final class TypedProfile: ManagedObject {
    @Managed("name") var name: String?
    @Managed("level") var level: Int64
    @ToOne("server") var server: TypedServer?
}

/// A class that names its keys itself, as generated code would, with a property whose
/// Swift name differs from its key.
final class NamedNote: ManagedObject, ManagedPropertyKeys {
    @Managed("body_text") var text: String?
    static func managedKey(for keyPath: AnyKeyPath) -> String? { keyPath == \NamedNote.text ? "body_text" : nil }
}

enum TypedModel {
    static let model = try! ManagedObjectModel(
        name: "Typed", version: 1,
        entities: [
            EntityDescription(
                "TypedServer", managedClass: TypedServer.self,
                attributes: [
                    .string("title"), .integer("rank", defaultValue: 0), .double("score", defaultValue: 0),
                    .bool("active", defaultValue: false), .date("created"),
                ],
                relationships: [
                    .toOne("profile", destination: "TypedProfile", inverse: "server"),
                    .toMany("items", destination: "TypedItem", inverse: "server"),
                ]),
            EntityDescription(
                "TypedItem", managedClass: TypedItem.self,
                attributes: [
                    .string("title"), .integer("count", defaultValue: 0), .bool("read", defaultValue: false),
                    .date("published"),
                ],
                relationships: [.toOne("server", destination: "TypedServer", inverse: "items")]),
            EntityDescription(
                "TypedProfile", managedClass: TypedProfile.self,
                attributes: [.string("name"), .integer("level", defaultValue: 0)],
                relationships: [.toOne("server", destination: "TypedServer", inverse: "profile")]),
            EntityDescription("NamedNote", managedClass: NamedNote.self, attributes: [.string("body_text")]),
        ])
}

@Suite("Key-path predicates")
struct KeyPathPredicateTests {
    /// The typed form and its format twin make the same tree.
    func expectSame<Root>(
        _ typed: KeyPathPredicate<Root>, _ format: String, _ arguments: (any PredicateArgument)?...,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let parsed = try ObjectPredicate(format: format, argumentArray: arguments)
        #expect(typed.predicate == parsed, "\(typed) vs \(parsed)", sourceLocation: sourceLocation)
    }

    @Test("comparisons, nil checks and logic make the format language's tree")
    func comparisons() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        try expectSame(\TypedItem.read == false, "read == NO")
        try expectSame(\TypedItem.read != true, "read != YES")
        try expectSame(\TypedItem.count < 3, "count < 3")
        try expectSame(\TypedItem.count <= 3, "count <= 3")
        try expectSame(\TypedItem.count > 3, "count > 3")
        try expectSame(\TypedItem.count >= 3, "count >= 3")
        try expectSame(\TypedServer.score > 1.5, "score > 1.5")
        try expectSame(\TypedItem.published < date, "published < %@", date)
        try expectSame(\TypedItem.title == nil, "title == nil")
        try expectSame(\TypedItem.title != nil, "title != nil")
        try expectSame(\TypedItem.title == "x", "title == 'x'")
        try expectSame(\TypedItem.read == false && \.count > 1, "read == NO AND count > 1")
        try expectSame(\TypedItem.read == false || \.count > 1 && \.title != nil, "read == NO OR (count > 1 AND title != nil)")
        try expectSame(!(\TypedItem.read == true), "NOT read == YES")
        try expectSame(KeyPathPredicate<TypedItem>.true, "TRUEPREDICATE")
    }

    @Test("string operators with case and diacritic options, IN")
    func strings() throws {
        try expectSame((\TypedItem.title).contains("é"), "title CONTAINS 'é'")
        try expectSame(
            (\TypedItem.title).contains("é", options: [.caseInsensitive, .diacriticInsensitive]), "title CONTAINS[cd] 'é'")
        try expectSame((\TypedItem.title).beginsWith("A", options: .caseInsensitive), "title BEGINSWITH[c] 'A'")
        try expectSame((\TypedItem.title).endsWith("e", options: .diacriticInsensitive), "title ENDSWITH[d] 'e'")
        try expectSame((\TypedItem.title).like("S*t"), "title LIKE 'S*t'")
        try expectSame((\TypedItem.title).equals("x", options: .caseInsensitive), "title ==[c] 'x'")
        try expectSame((\TypedItem.count).in([1, 2]), "count IN {1, 2}")
        try expectSame((\TypedItem.title).in(["a", nil]), "title IN %@", ["a", nil] as [String?])
    }

    @Test("to-one paths, to-many counts and quantifiers, objects")
    func relationships() throws {
        try expectSame(\TypedItem.server?.title == "a", "server.title == 'a'")
        try expectSame(\TypedItem.server?.profile?.level > 2, "server.profile.level > 2")
        try expectSame(\TypedItem.server == nil, "server == nil")
        try expectSame(\TypedServer.items.count > 2, "items.@count > 2")
        try expectSame(\TypedItem.server?.items.count == 0, "server.items.@count == 0")
        try expectSame((\TypedServer.items).any(\.read) == false, "ANY items.read == NO")
        try expectSame((\TypedServer.items).all(\.count) >= 1, "ALL items.count >= 1")
        try expectSame(
            (\TypedServer.items).any(\.title).contains("s", options: .caseInsensitive), "ANY items.title CONTAINS[c] 's'")
        try expectSame((\TypedServer.items).any(\.server?.profile?.name) == nil, "ANY items.server.profile.name == nil")
        try expectSame(
            ObjectSortDescriptor(\TypedItem.server?.title, ascending: false),
            ObjectSortDescriptor("server.title", ascending: false))
    }

    func expectSame(
        _ typed: ObjectSortDescriptor, _ named: ObjectSortDescriptor, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(typed == named, sourceLocation: sourceLocation)
    }

    @Test("a key path through a computed property fails the fetch, saying what it reads")
    func computedProperty() throws {
        let typed: KeyPathPredicate<TypedServer> = \.displayTitle == "x"
        guard case .comparison(let c) = typed.predicate.node, case .keyPath(let key) = c.left else {
            Issue.record("not a comparison: \(typed)")
            return
        }
        #expect(key == "a computed property changing title")
        let container = try PersistentContainer(model: TypedModel.model, store: .inMemory)
        do {
            _ = try container.viewContext.performAndWait { try TypedServer.fetch(where: typed, in: container.viewContext) }
            Issue.record("fetched through a computed property")
        } catch {
            guard case .unknownKey(let entity, let named) = error as? ObjectGraphError else {
                Issue.record("\(error)")
                return
            }
            #expect(entity == "TypedServer" && named == "a computed property changing title")
        }
    }

    @Test("a class naming its own keys is asked first")
    func namedKeys() throws {
        try expectSame(\NamedNote.text == "x", "body_text == 'x'")
        let container = try PersistentContainer(model: TypedModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let note = context.insert(NamedNote.self)
            note.text = "x"
            try context.save()
            #expect(try NamedNote.fetch(where: \.text == "x", in: context).count == 1)
        }
    }

    @Test("typed finders and requests fetch, sort and count")
    func finders() throws {
        let container = try PersistentContainer(model: TypedModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait { () throws in
            let server = context.insert(TypedServer.self)
            server.title = "S"
            for i in 0..<5 {
                let item = context.insert(TypedItem.self)
                item.title = "item \(i)"
                item.count = Int64(i)
                item.read = i.isMultiple(of: 2)
                if i < 3 { item.server = server }
            }
            try context.save()
            let unread = try TypedItem.fetch(where: \.read == false, sortedBy: \.count, ascending: false, in: context)
            #expect(unread.map(\.count) == [3, 1])
            #expect(try TypedItem.count(where: \.server?.title == "S", in: context) == 3)
            #expect(
                try TypedItem.fetchFirst(
                    where: \.server == server, sortedBy: [ObjectSortDescriptor(\TypedItem.count, ascending: false)], in: context)?
                    .count
                    == 2)
            #expect(try TypedServer.fetch(where: \.items.count == 3, in: context).count == 1)
            let request = FetchRequest<TypedItem>(where: \.count >= 3, sortDescriptors: [ObjectSortDescriptor(\TypedItem.title)])
            #expect(try context.fetch(request).map(\.count) == [3, 4])
        }
    }
}
