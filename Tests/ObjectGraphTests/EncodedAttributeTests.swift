import Foundation
import GRDB
import Testing

@testable import ObjectGraph

struct Layout: Codable, Equatable {
    var columns: Int
    var sort: String
    var hidden: [String] = []
}

final class Board: ManagedObject {
    @Encoded("layout") var layout: Layout?
    @Encoded("packed") var packed: Layout?
}

/// `@Encoded` attributes: Codable values as JSON in TEXT or BLOB columns.
@Suite struct EncodedAttributeTests {
    static let model = try! ManagedObjectModel(
        name: "Boards", version: 1,
        entities: [EntityDescription("Board", managedClass: Board.self, attributes: [.string("layout"), .data("packed")])])

    @Test func valuesRoundTripThroughTextAndBlob() throws {
        let dir = TemporaryDirectory()
        let url = dir.file("b.sqlite")
        let layout = Layout(columns: 2, sort: "date", hidden: ["a/b"])
        do {
            let container = try PersistentContainer(model: Self.model, store: .file(url))
            let ctx = container.viewContext
            try ctx.performAndWait { () throws in
                let board = ctx.insert(Board.self)
                #expect(board.layout == nil)
                board.layout = layout
                board.packed = layout
                try ctx.save()
                // Setting an equal value is no change.
                board.layout = Layout(columns: 2, sort: "date", hidden: ["a/b"])
                #expect(!board.hasChanges)
            }
            try container.store.close()
        }
        let container = try PersistentContainer(model: Self.model, store: .file(url))
        let table = try Self.model.entity(named: "Board").tableName
        let (text, blobType) = try container.store.writer.read { db in
            let row = try #require(
                try Row.fetchOne(db, sql: "SELECT layout, typeof(packed) AS t FROM \(SchemaGenerator.quote(table))"))
            return (row["layout"] as String, row["t"] as String)
        }
        #expect(text == #"{"columns":2,"hidden":["a/b"],"sort":"date"}"#)
        #expect(blobType == "blob")
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let board = try #require(try ctx.fetch(FetchRequest<Board>()).first)
            #expect(board.layout == layout)
            #expect(board.packed == layout)
            board.packed = nil
            try ctx.save()
            #expect(board.packed == nil)
            #expect(try board.value(forKey: "packed") == .null)
        }
    }

    @Test func undecodableJSONReadsNilAndTheThrowingAccessorSaysWhy() throws {
        let container = try PersistentContainer(model: Self.model, store: .inMemory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let board = ctx.insert(Board.self)
            try board.setValue(.string(#"{"columns":"two"}"#), forKey: "layout")
            #expect(board.layout == nil)
            #expect(throws: ObjectGraphError.self) { try board.decodedValue(Layout.self, forKey: "layout") }
            do {
                _ = try board.decodedValue(Layout.self, forKey: "layout")
            } catch {
                #expect("\(error)".contains("Board.layout"))
            }
            try board.setEncodedValue(Layout(columns: 1, sort: "title"), forKey: "packed")
            #expect(try board.decodedValue(Layout.self, forKey: "packed")?.columns == 1)
            #expect(throws: ObjectGraphError.unknownKey(entity: "Board", key: "nope")) {
                try board.setEncodedValue(1, forKey: "nope")
            }
        }
    }

    @Test func aNumericAttributeIsRefusedAtLoad() throws {
        let wrong = try ManagedObjectModel(
            name: "Boards", version: 1,
            entities: [EntityDescription("Board", managedClass: Board.self, attributes: [.integer("layout"), .data("packed")])])
        #expect(throws: ObjectGraphError.self) { try wrong.checkClassesMatch() }
        try Self.model.checkClassesMatch()
    }
}
