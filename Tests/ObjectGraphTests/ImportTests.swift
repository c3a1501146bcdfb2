import Foundation
import Testing

@testable import ObjectGraph

enum ImportModel {
    static let model = try! ManagedObjectModel(
        name: "Import", version: 1,
        entities: [
            EntityDescription(
                "Item",
                attributes: [
                    .string("guid", optional: false), .string("title"), .integer("score", defaultValue: 0),
                    .double("rating", defaultValue: 0), .bool("read", defaultValue: false), .date("published"),
                    .data("icon"), .string("note", transient: true),
                ],
                relationships: [.toOne("server", destination: "Server", inverse: "items")],
                uniquenessConstraints: [["guid"]]),
            EntityDescription(
                "Server", attributes: [.string("url"), .derivedCount("itemCount", of: "items")],
                relationships: [.toMany("items", destination: "Item", inverse: "server")]),
        ])
}

/// Inserts an Item in a fresh in-memory container and runs `body` on the view context's queue.
func withNewItem<T>(_ body: (ManagedObject, ManagedObjectContext) throws -> T) throws -> T {
    let container = try PersistentContainer(model: ImportModel.model, store: .inMemory)
    let context = container.viewContext
    return try context.performAndWait {
        let item = try context.insertObject(entityName: "Item")
        return try body(item, context)
    }
}

@Suite struct ImportTests {
    @Test func onlyTheEntitysKeysAreSetAndUnknownKeysAreIgnored() throws {
        try withNewItem { item, _ in
            let report = try item.importValues(
                from: ["guid": "g1", "title": "Hello", "colour": "red", "server": "http://x", "itemCount": 3]
                    as [String: ImportValue])
            #expect(item["guid"] == "g1")
            #expect(item["title"] == "Hello")
            #expect(report.setKeys == ["guid", "title"])
            #expect(report.ignoredKeys == ["colour", "itemCount", "server"])
            #expect(try item.object(forKey: "server") == nil)
        }
    }

    @Test func missingKeysNeverOverwrite() throws {
        try withNewItem { item, context in
            try item.importValues(from: ["guid": "g1", "title": "First", "score": 5] as [String: ImportValue])
            try context.save()
            try item.importValues(from: ["score": 6] as [String: ImportValue])
            #expect(item["title"] == "First")
            #expect(item["guid"] == "g1")
            #expect(item["score"] == 6)
            #expect(item.changedValues() == ["score": 6])
        }
    }

    @Test func explicitNullClearsOptionalAndIsAnErrorForRequired() throws {
        try withNewItem { item, _ in
            try item.importValues(from: ["guid": "g", "title": "t"] as [String: ImportValue])
            try item.importValues(from: ["title": nil] as [String: ImportValue])
            #expect(item["title"] == .null)
            #expect(throws: ObjectGraphError.missingValue(entity: "Item", key: "guid")) {
                try item.importValues(from: ["guid": nil] as [String: ImportValue])
            }
            #expect(item["guid"] == "g")
        }
    }

    @Test func stringsAndNumbersAreCoercedByAttributeType() throws {
        try withNewItem { item, _ in
            try item.importValues(
                from: ["guid": 12345, "title": 3.5, "score": "42", "rating": "4.25", "read": "yes"] as [String: ImportValue])
            #expect(item["guid"] == "12345")
            #expect(item["title"] == "3.5")
            #expect(item["score"] == 42)
            #expect(item["rating"] == 4.25)
            #expect(item["read"] == true)
            try item.importValues(from: ["title": 7.0, "score": 9.0, "rating": 2, "read": 0] as [String: ImportValue])
            #expect(item["title"] == "7")
            #expect(item["score"] == 9)
            #expect(item["rating"] == 2.0)
            #expect(item["read"] == false)
            try item.importValues(from: ["score": " 17 ", "read": "FALSE", "title": true] as [String: ImportValue])
            #expect(item["score"] == 17)
            #expect(item["read"] == false)
            #expect(item["title"] == "true")
        }
    }

    @Test func typeErrorsNameEntityAndKeyAndChangeNothing() throws {
        try withNewItem { item, _ in
            try item.importValues(from: ["guid": "g", "score": 1] as [String: ImportValue])
            let cases: [(String, ImportValue, String)] = [
                ("score", "forty-two", "integer"), ("score", 2.5, "integer"), ("rating", "fast", "double"),
                ("read", "maybe", "bool"), ("read", 2, "bool"), ("published", "yesterday", "date"),
                ("icon", "%%%", "data"), ("guid", .array([1]), "string"), ("icon", .object([:]), "data"),
            ]
            for (key, value, type) in cases {
                #expect(
                    throws: ObjectGraphError.typeMismatch(entity: "Item", key: key, expected: type, got: value.description)
                ) {
                    try item.importValues(from: ["title": "changed", key: value])
                }
                #expect(item["title"] == .null, "nothing is set when one value is bad")
            }
            #expect(item["score"] == 1)
        }
    }

    @Test func typeErrorsCanBeSkippedAndReported() throws {
        try withNewItem { item, _ in
            var options = ImportOptions()
            options.onTypeError = .skip
            let report = try item.importValues(
                from: ["guid": "g", "score": "lots", "title": "kept"] as [String: ImportValue], options: options)
            #expect(item["title"] == "kept")
            #expect(item["score"] == 0)
            #expect(report.setKeys == ["guid", "title"])
            #expect(report.skipped == [.typeMismatch(entity: "Item", key: "score", expected: "integer", got: "string \"lots\"")])
        }
    }

    @Test func datesFromISO8601StringsFormattersAndNumbers() throws {
        try withNewItem { item, _ in
            let expectations: [(ImportValue, Double)] = [
                ("2024-05-01T10:00:00Z", 1_714_557_600), ("2024-05-01T12:00:00+02:00", 1_714_557_600),
                ("2024-05-01T10:00:00.250Z", 1_714_557_600.25), ("2024-05-01 10:00:00", 1_714_557_600),
                ("2024-05-01", 1_714_521_600), ("1969-12-31T23:59:59Z", -1), ("2000-02-29T00:00:00-0130", 951_787_800),
                (1_714_557_600, 1_714_557_600), (1.5, 1.5),
            ]
            for (value, seconds) in expectations {
                try item.importValues(from: ["published": value])
                #expect(item["published"] == .date(Date(timeIntervalSince1970: seconds)), "\(value)")
            }
            for bad in ["2024-02-30", "2024-13-01", "2024-05-01T25:00:00Z", "2024-05-01T10:00:00Zjunk", "1 May 2024", ""] {
                #expect(throws: ObjectGraphError.self, "\(bad)") { try item.importValues(from: ["published": .string(bad)]) }
            }
            var millis = ImportOptions()
            millis.numericDates = .millisecondsSince1970
            try item.importValues(from: ["published": 1_500] as [String: ImportValue], options: millis)
            #expect(item["published"] == .date(Date(timeIntervalSince1970: 1.5)))
            let rfc822 = DateFormatter()
            rfc822.locale = Locale(identifier: "en_US_POSIX")
            rfc822.timeZone = TimeZone(identifier: "UTC")
            rfc822.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
            var withFormatter = ImportOptions()
            withFormatter.dates = .formatter(rfc822)
            try item.importValues(
                from: ["published": "Wed, 01 May 2024 10:00:00 +0000"] as [String: ImportValue], options: withFormatter)
            #expect(item["published"] == .date(Date(timeIntervalSince1970: 1_714_557_600)))
            var custom = ImportOptions()
            custom.dates = .custom { s in s == "epoch" ? Date(timeIntervalSince1970: 0) : nil }
            try item.importValues(from: ["published": "epoch"] as [String: ImportValue], options: custom)
            #expect(item["published"] == .date(Date(timeIntervalSince1970: 0)))
        }
    }

    @Test func iso8601ParserAgreesWithFoundation() throws {
        let formatter = ISO8601DateFormatter()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let date = Date(timeIntervalSince1970: Double(Int64.random(in: -2_000_000_000...4_000_000_000, using: &generator)))
            let text = formatter.string(from: date)
            #expect(ISO8601Parser.date(from: text) == date, "\(text)")
        }
    }

    @Test func keyMapRenamesSourceKeys() throws {
        try withNewItem { item, _ in
            var options = ImportOptions()
            options.keyMap = ["id": "guid", "headline": "title"]
            let report = try item.importValues(from: ["id": "x1", "headline": "H"] as [String: ImportValue], options: options)
            #expect(item["guid"] == "x1")
            #expect(item["title"] == "H")
            #expect(report.setKeys == ["guid", "title"])
        }
    }

    @Test func dataFromBase64AndTransientAttributes() throws {
        try withNewItem { item, _ in
            try item.importValues(from: ["icon": "AAEC/w==", "note": "scratch"] as [String: ImportValue])
            #expect(item["icon"] == .data(Data([0, 1, 2, 255])))
            #expect(item["note"] == "scratch")
        }
    }

    @Test func jsonSerializationDictionariesImport() throws {
        let json = Data(
            #"{"guid": "j1", "title": 12, "score": "7", "rating": 1.5, "read": true, "published": "2024-05-01T10:00:00Z", "extra": [1, 2], "icon": null}"#
                .utf8)
        let any = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        try withNewItem { item, _ in
            let report = try item.importValues(from: any)
            #expect(item["guid"] == "j1")
            #expect(item["title"] == "12")
            #expect(item["score"] == 7)
            #expect(item["rating"] == 1.5)
            #expect(item["read"] == true)
            #expect(item["published"] == .date(Date(timeIntervalSince1970: 1_714_557_600)))
            #expect(item["icon"] == .null)
            #expect(report.ignoredKeys == ["extra"])
            // JSON false/0/1 stay distinct from numbers.
            try item.importValues(
                from: try #require(
                    try JSONSerialization.jsonObject(with: Data(#"{"read": false, "score": 1}"#.utf8)) as? [String: Any]))
            #expect(item["read"] == false)
            #expect(item["score"] == 1)
            // Swift values of kinds JSON does not have are type errors.
            #expect(throws: ObjectGraphError.self) { try item.importValues(from: ["title": URL(fileURLWithPath: "/")]) }
        }
        #expect(
            try ImportValue(json: Data(#"{"a": [1, 2.5, "x", null, true]}"#.utf8))
                == .object(["a": .array([.integer(1), .double(2.5), .string("x"), .null, .bool(true)])]))
    }

    @Test func swiftValuesInAnyDictionariesImport() throws {
        try withNewItem { item, _ in
            let when = Date(timeIntervalSince1970: 1_714_557_600)
            let values: [String: Any] = [
                "guid": "s", "read": true, "score": 3, "rating": 2.5, "published": when, "title": Optional<String>.none as Any,
            ]
            try item.importValues(from: values)
            #expect(item["read"] == true)
            #expect(item["score"] == 3)
            #expect(item["rating"] == 2.5)
            #expect(item["published"] == .date(when))
            #expect(item["title"] == .null)
            // A Swift Bool stays a bool (a double attribute refuses it), not the number 1.
            #expect(throws: ObjectGraphError.typeMismatch(entity: "Item", key: "rating", expected: "double", got: "bool true")) {
                try item.importValues(from: ["rating": true] as [String: Any])
            }
        }
    }

    @Test func importedObjectsSaveAndFetch() throws {
        let container = try PersistentContainer(model: ImportModel.model, store: .inMemory)
        let context = container.viewContext
        try context.performAndWait {
            for i in 0..<3 {
                try context.insertObject(entityName: "Item").importValues(from: [
                    "guid": .integer(Int64(i)), "score": .string("\(i * 10)"),
                ])
            }
            try context.save()
            var request = FetchRequest<ManagedObject>(entityName: "Item")
            request.predicate = try ObjectPredicate(format: "score >= 10")
            #expect(try context.count(for: request) == 2)
        }
    }
}
