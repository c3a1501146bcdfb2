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
            #expect(try Folder.findSingle(where: try Predicate(format: "name == 'a'"), in: ctx)?.name == "a")
            #expect(throws: ObjectGraphError.multipleMatches(entity: "Folder", predicate: "name != \"a\"", count: 2)) {
                try Folder.findSingle(where: try Predicate(format: "name != 'a'"), in: ctx)
            }
            #expect(try Folder.findAll(matching: ["name": "a", "position": 2], combinedWith: .and, in: ctx).count == 1)
            #expect(try Folder.findAll(matching: ["name": "a", "position": 1], combinedWith: .or, in: ctx).count == 2)
            #expect(try Folder.count(where: try Predicate(format: "position > 1"), in: ctx) == 2)
            #expect(try Folder.aggregate(.max, of: "position", in: ctx) == .integer(3))
            try Folder.truncateAll(where: try Predicate(format: "name == 'b'"), in: ctx)
            try ctx.save()
            #expect(try Folder.count(in: ctx) == 2)
            try Folder.truncateAll(in: ctx)
            try ctx.save()
            #expect(try Folder.count(in: ctx) == 0)
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
