import Foundation
import Testing

@testable import ObjectGraph

@Suite(.serialized) struct FinderTests {
    @Test func oneLineFetches() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            for (i, name) in ["b", "a", "c"].enumerated() {
                let f = Folder.create(in: ctx)
                f.name = name
                f.position = Int64(3 - i)
            }
            try ctx.save()
            #expect(try Folder.findAll(in: ctx).count == 3)
            #expect(try Folder.findAll(sortedBy: "name", in: ctx).map(\.name) == ["a", "b", "c"])
            #expect(try Folder.findAll(sortedBy: "position,name", ascending: false, in: ctx).map(\.name) == ["b", "a", "c"])
            #expect(try Folder.findAll(where: "name IN %@", ["a", "c"], in: ctx).count == 2)
            #expect(try Folder.findFirst(byAttribute: "name", value: "c", in: ctx)?.position == 1)
            #expect(try Folder.findFirst(byAttribute: "name", value: "zz", in: ctx) == nil)
            #expect(try Folder.findSingle(where: try ObjectPredicate(format: "name == 'a'"), in: ctx)?.name == "a")
            #expect(throws: ObjectGraphError.multipleMatches(entity: "Folder", predicate: "name != \"a\"", count: 2)) {
                try Folder.findSingle(where: try ObjectPredicate(format: "name != 'a'"), in: ctx)
            }
            #expect(try Folder.findAll(matching: ["name": "a", "position": 2], combinedWith: .and, in: ctx).count == 1)
            #expect(try Folder.findAll(matching: ["name": "a", "position": 1], combinedWith: .or, in: ctx).count == 2)
            #expect(try Folder.count(where: try ObjectPredicate(format: "position > 1"), in: ctx) == 2)
            #expect(try Folder.aggregate(.max, of: "position", in: ctx) == .integer(3))
            try Folder.truncateAll(where: try ObjectPredicate(format: "name == 'b'"), in: ctx)
            try ctx.save()
            #expect(try Folder.count(in: ctx) == 2)
            try Folder.truncateAll(in: ctx)
            try ctx.save()
            #expect(try Folder.count(in: ctx) == 0)
        }
    }

    @Test func everyFinderTakesAFormatStringAndPlainValues() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let created = Date(timeIntervalSince1970: 1_700_000_000)
            for (i, name) in ["b", "a", "c"].enumerated() {
                let f = Folder.create(in: ctx)
                f.name = name
                f.position = Int64(3 - i)
                let n = Note.create(in: ctx)
                n.title = "note \(name)"
                n.read = i == 1
                n.rating = Double(i) + 0.5
                n.created = created.addingTimeInterval(Double(i))
                n.folder = f
            }
            try ctx.save()
            // findSingle: varargs and array.
            #expect(try Folder.findSingle(where: "name == %@", "a", in: ctx)?.position == 2)
            #expect(try Folder.findSingle(where: "name == %@", argumentArray: ["zz"], in: ctx) == nil)
            #expect(throws: ObjectGraphError.multipleMatches(entity: "Folder", predicate: "position > 1", count: 2)) {
                try Folder.findSingle(where: "position > %@", 1, in: ctx)
            }
            #expect(throws: ObjectGraphError.self) { try Folder.findSingle(where: "name ==", in: ctx) }
            // count, aggregate.
            #expect(try Folder.count(where: "position > %@", 1, in: ctx) == 2)
            #expect(try Folder.count(where: "%K IN %@", argumentArray: ["name", ["a", "b", "x"]], in: ctx) == 2)
            #expect(try Note.count(where: "read == %@", true, in: ctx) == 1)
            #expect(try Folder.aggregate(.sum, of: "position", where: "name != %@", "c", in: ctx) == .integer(5))
            #expect(try Folder.aggregate(.min, of: "position", where: "name != %@", argumentArray: ["a"], in: ctx) == .integer(1))
            // findAll with an array and with a sort; findFirst with a format.
            #expect(
                try Folder.findAll(where: "position >= %@", argumentArray: [2], sortedBy: "name", in: ctx).map(\.name) == [
                    "a", "b",
                ])
            #expect(
                try Folder.findAll(where: "position < %@", 9, sortedBy: "position", ascending: false, in: ctx).map(\.name) == [
                    "b", "a", "c",
                ])
            #expect(try Folder.findFirst(where: "name != %@", "c", sortedBy: "position", in: ctx)?.name == "a")
            #expect(try Folder.findFirst(where: "name == %@", argumentArray: ["c"], in: ctx)?.position == 1)
            // findFirst(byAttribute:value:) with plain Swift values held in variables.
            let name: String = "c"
            let position: Int = 2
            let read: Bool = true
            let rating: Double = 2.5
            let date: Date = created.addingTimeInterval(1)
            let missing: String? = nil
            #expect(try Folder.findFirst(byAttribute: "name", value: name, in: ctx)?.position == 1)
            #expect(try Folder.findFirst(byAttribute: "position", value: position, in: ctx)?.name == "a")
            #expect(try Folder.findFirst(byAttribute: "position", value: Int64(3), in: ctx)?.name == "b")
            #expect(try Note.findFirst(byAttribute: "read", value: read, in: ctx)?.title == "note a")
            #expect(try Note.findFirst(byAttribute: "rating", value: rating, in: ctx)?.title == "note c")
            #expect(try Note.findFirst(byAttribute: "created", value: date, in: ctx)?.title == "note a")
            #expect(try Note.findFirst(byAttribute: "body", value: missing, in: ctx) != nil)
            let folderA = try #require(try Folder.findFirst(byAttribute: "name", value: "a", in: ctx))
            #expect(try Note.findFirst(byAttribute: "folder", value: folderA.objectID, in: ctx)?.title == "note a")
            #expect(throws: ObjectGraphError.self) { try Folder.findFirst(byAttribute: "nope", value: name, in: ctx) }
            // truncateAll.
            try Note.truncateAll(where: "read == %@", false, in: ctx)
            try Folder.truncateAll(where: "name IN %@", argumentArray: [["a"]], in: ctx)
            try ctx.save()
            #expect(try Note.count(in: ctx) == 0)  // note a went with folder a (cascade)
            #expect(try Folder.findAll(sortedBy: "name", in: ctx).map(\.name) == ["b", "c"])
        }
    }

    @Test func defaultContextIsTheDefaultContainersViewContext() throws {
        let container = try TestModel.container()
        PersistentContainer.default = container
        defer { PersistentContainer.default = nil }
        try container.viewContext.performAndWait { () throws in
            let f = Folder.create()
            f.name = "default"
            try container.viewContext.save()
            #expect(try Folder.findAll().map(\.name) == ["default"])
            f.deleteObject()
            #expect(try Folder.count() == 0)
        }
    }
}
