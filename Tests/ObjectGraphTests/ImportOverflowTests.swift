import Foundation
import Testing

@testable import ObjectGraph

/// Numbers from untrusted records: every coercion either stores the exact value or reports a
/// type mismatch naming the key; none traps on overflow or stores something else silently.
@Suite struct ImportOverflowTests {
    func mismatch(_ key: String, _ value: ImportValue) -> ObjectGraphError {
        let type = ImportModel.model.entityIfPresent(named: "Item")!.attribute(named: key)!.type.rawValue
        return .typeMismatch(entity: "Item", key: key, expected: type, got: value.description)
    }

    @Test func integersOutOfRangeAreMismatchesNotTraps() throws {
        try withNewItem { item, _ in
            let accepted: [(ImportValue, Int64)] = [
                ("9223372036854775807", .max), ("-9223372036854775808", .min), (" 42 ", 42), ("1e3", 1000),
                ("42.0", 42), (.double(9_007_199_254_740_991), 9_007_199_254_740_991), (.integer(.max), .max),
            ]
            for (value, expected) in accepted {
                try item.importValues(from: ["score": value])
                #expect(item["score"] == .integer(expected), "\(value)")
            }
            let refused: [ImportValue] = [
                "9223372036854775808", "-9223372036854775809", "99999999999999999999999999", "1e300", "-1e300", "inf",
                "nan", "1e400", "9007199254740993.0", "1e17", .double(9_223_372_036_854_775_808),
                .double(-9_223_372_036_854_775_808), .double(9_007_199_254_740_992), .double(1e300), .double(.infinity),
                .double(.nan), .double(0.5),
            ]
            for value in refused {
                #expect(throws: mismatch("score", value)) { try item.importValues(from: ["score": value]) }
                #expect(item["score"] == .integer(.max), "\(value) changed nothing")
            }
        }
    }

    @Test func doublesMustBeFiniteWhateverTheirSource() throws {
        try withNewItem { item, _ in
            try item.importValues(from: ["rating": "1.7976931348623157e308"])
            #expect(item["rating"] == .double(.greatestFiniteMagnitude))
            try item.importValues(from: ["rating": .integer(.max)])
            #expect(item["rating"] == .double(9.223372036854775807e18))
            for value: ImportValue in ["1e400", "-inf", "nan", .double(.nan), .double(.infinity), .double(-.infinity)] {
                #expect(throws: mismatch("rating", value)) { try item.importValues(from: ["rating": value]) }
            }
        }
    }

    @Test func hugeNumbersBecomeStringsAndDatesWithoutTrapping() throws {
        try withNewItem { item, context in
            try item.importValues(from: ["guid": .double(1e300), "title": .double(-9.3e18)])
            #expect(item["guid"] == "1e+300")
            #expect(item["title"] == "-9.3e+18")
            try item.importValues(from: ["published": .integer(.max)])
            try item.importValues(from: ["published": .double(-1e300)])
            for value: ImportValue in [.double(.nan), .double(.infinity)] {
                #expect(throws: mismatch("published", value)) { try item.importValues(from: ["published": value]) }
            }
            try context.save()
        }
    }

    @Test func jsonNumbersOfAnySizeImportOrMismatch() throws {
        let json =
            #"{"a": 18446744073709551615, "b": -9223372036854775809, "c": 123456789012345678901234567890, "d": 1e308, "e": 9223372036854775807}"#
        let record = try ImportValue(json: Data(json.utf8))
        guard case .object(let members) = record else {
            Issue.record("not an object: \(record)")
            return
        }
        try withNewItem { item, _ in
            for key in ["a", "b", "c", "d"] {
                let value = try #require(members[key])
                #expect(throws: mismatch("score", value)) { try item.importValues(from: ["score": value]) }
                try item.importValues(from: ["title": value])  // any number reads as text
            }
            try item.importValues(from: ["score": members["e"]!])
            #expect(item["score"] == .integer(.max))
        }
    }
}
