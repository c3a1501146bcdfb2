import Foundation
import ObjectGraph
import Testing

@Suite("ObjectPredicate parser")
struct PredicateParserTests {
    func parse(_ format: String, _ arguments: (any PredicateArgument)?...) throws -> ObjectPredicate {
        try ObjectPredicate(format: format, argumentArray: arguments)
    }

    func comparison(_ format: String) throws -> PredicateComparison {
        guard case .comparison(let c) = try parse(format).node else {
            Issue.record("\(format) is not a comparison")
            return PredicateComparison(left: .constant(nil), op: .equalTo, right: .constant(nil))
        }
        return c
    }

    @Test(
        "every operator spelling",
        arguments: [
            ("a == 1", ComparisonOperator.equalTo), ("a = 1", .equalTo), ("a != 1", .notEqualTo), ("a <> 1", .notEqualTo),
            ("a < 1", .lessThan), ("a <= 1", .lessThanOrEqualTo), ("a =< 1", .lessThanOrEqualTo), ("a > 1", .greaterThan),
            ("a >= 1", .greaterThanOrEqualTo), ("a => 1", .greaterThanOrEqualTo), ("a BETWEEN {1, 2}", .between),
            ("a IN {1, 2}", .in), ("a BEGINSWITH 'x'", .beginsWith), ("a ENDSWITH 'x'", .endsWith),
            ("a CONTAINS 'x'", .contains), ("a LIKE 'x*'", .like), ("a MATCHES 'x.*'", .matches),
            ("a between {1, 2}", .between), ("a in {1}", .in), ("a beginswith 'x'", .beginsWith),
            ("a Contains 'x'", .contains), ("a like 'x'", .like), ("a matches 'x'", .matches),
        ])
    func operators(format: String, op: ComparisonOperator) throws {
        let c = try comparison(format)
        #expect(c.op == op)
        #expect(c.left == .keyPath("a"))
    }

    @Test("modifiers [c] [d] [cd]")
    func modifiers() throws {
        #expect(try comparison("a ==[c] 'x'").options == .caseInsensitive)
        #expect(try comparison("a CONTAINS[d] 'x'").options == .diacriticInsensitive)
        #expect(try comparison("a LIKE[cd] 'x'").options == [.caseInsensitive, .diacriticInsensitive])
        #expect(try comparison("a BEGINSWITH[dc] 'x'").options == [.caseInsensitive, .diacriticInsensitive])
        #expect(try comparison("a MATCHES[CD] 'x'").options == [.caseInsensitive, .diacriticInsensitive])
        #expect(try comparison("a == 'x'").options == [])
    }

    @Test("quantifiers ANY SOME ALL NONE")
    func quantifiers() throws {
        #expect(try comparison("ANY feedItems.read == NO").modifier == .any)
        #expect(try comparison("some feedItems.read == NO").modifier == .any)
        #expect(try comparison("ALL feedItems.read == NO").modifier == .all)
        #expect(try comparison("none feedItems.read == NO").modifier == .none)
        #expect(try comparison("feedItems.@count > 3").left == .keyPath("feedItems.@count"))
        #expect(try comparison("server.title == 'x'").left == .keyPath("server.title"))
    }

    @Test("literals and keywords")
    func literals() throws {
        #expect(try comparison("a == nil").right == .constant(.null))
        #expect(try comparison("a == NULL").right == .constant(.null))
        #expect(try comparison("a == YES").right == .constant(.bool(true)))
        #expect(try comparison("a == true").right == .constant(.bool(true)))
        #expect(try comparison("a == No").right == .constant(.bool(false)))
        #expect(try comparison("a == FALSE").right == .constant(.bool(false)))
        #expect(try comparison("a == 42").right == .constant(.integer(42)))
        #expect(try comparison("a == -42").right == .constant(.integer(-42)))
        #expect(try comparison("a == 4.5").right == .constant(.double(4.5)))
        #expect(try comparison("a == -0.25").right == .constant(.double(-0.25)))
        #expect(try comparison("a == 1e3").right == .constant(.double(1000)))
        #expect(try comparison("a == 2.5E-2").right == .constant(.double(0.025)))
        #expect(try comparison("a == 99999999999999999999").right == .constant(.double(1e20)))
        #expect(try comparison("a == 'single'").right == .constant("single"))
        #expect(try comparison("a == \"double\"").right == .constant("double"))
        #expect(try comparison(#"a == "q\"\\\n\t\u00e9\u{1F600}'""#).right == .constant("q\"\\\n\té😀'"))
        #expect(try comparison(#"a == 'it\'s'"#).right == .constant("it's"))
        #expect(try comparison("a == CAST(0, \"NSDate\")").right == .constant(.date(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(try comparison("a == CAST(\"AQI=\", \"NSData\")").right == .constant(.data(Data([1, 2]))))
        #expect(try comparison("#in == 1").left == .keyPath("in"))
        #expect(try comparison("server.#like == 1").left == .keyPath("server.like"))
        #expect(try parse("TRUEPREDICATE") == .true)
        #expect(try parse("falsepredicate") == .false)
    }

    @Test("substitutions %@ and %K")
    func substitutions() throws {
        let date = Date(timeIntervalSince1970: 1_000)
        let p = try parse(
            "%K == %@ AND b > %@ AND c IN %@ AND d == %@ AND e == %@", "title", "Swift", date, ["x", "y"], nil, 3.5)
        #expect(
            p
                == .and([
                    .comparison("title", .equalTo, "Swift"), .comparison("b", .greaterThan, .date(date)),
                    .comparison("c", .in, values: ["x", "y"]), .comparison("d", .equalTo, nil),
                    .comparison("e", .equalTo, .double(3.5)),
                ]))
        let optional: String? = nil
        #expect(try parse("a == %@", optional) == .comparison("a", .equalTo, nil))
        #expect(try parse("a BETWEEN %@", [1, 5]) == .comparison("a", .between, values: [1, 5]))
        #expect(
            try parse("a == %d AND b == %@", 7, Value.bool(true))
                == (.comparison("a", .equalTo, 7) && .comparison("b", .equalTo, true)))
        #expect(try parse("%K.title == 'x'", "server") == .comparison("server.title", .equalTo, "x"))
        #expect(try ObjectPredicate(format: "a == %@", argumentArray: [Int64(3)]) == .comparison("a", .equalTo, 3))
        let id = objectID("Server", 12)
        #expect(
            try parse("server == %@", id)
                == .comparison(.keyPath("server"), .equalTo, .objectReference(entity: "Server", rawValue: 12)))
        #expect(try parse("server == %@", id).description == "server == CAST(12, \"ObjectID:Server\")")
    }

    @Test("precedence: NOT binds tighter than AND, AND tighter than OR")
    func precedence() throws {
        let a = ObjectPredicate.comparison("a", .equalTo, 1)
        let b = ObjectPredicate.comparison("b", .equalTo, 2)
        let c = ObjectPredicate.comparison("c", .equalTo, 3)
        #expect(
            try parse("a == 1 OR b == 2 AND NOT c == 3")
                == ObjectPredicate(.or([a, ObjectPredicate(.and([b, ObjectPredicate(.not(c))]))])))
        #expect(
            try parse("a == 1 || b == 2 && !c == 3")
                == ObjectPredicate(.or([a, ObjectPredicate(.and([b, ObjectPredicate(.not(c))]))])))
        #expect(try parse("(a == 1 OR b == 2) AND c == 3") == ObjectPredicate(.and([ObjectPredicate(.or([a, b])), c])))
        #expect(try parse("NOT (a == 1 AND b == 2)") == ObjectPredicate(.not(ObjectPredicate(.and([a, b])))))
        #expect(try parse("NOT NOT a == 1") == !(!a))
        #expect(try parse("a == 1 AND b == 2 AND c == 3") == ObjectPredicate(.and([a, b, c])))
        #expect(try parse("((a == 1))") == a)
    }

    @Test("equality compares strings by Unicode scalars, as evaluation does")
    func scalarEquality() throws {
        #expect(try parse("a == 'é'") != parse("a == 'e\u{301}'"))
        #expect(try parse("a == 'é'") == parse("a == \"\\u00e9\""))
        #expect(try parse("a == 1") != parse("a == 1.0"))
    }

    @Test("builders and operators")
    func builders() {
        let a = ObjectPredicate.comparison("a", .equalTo, 1)
        #expect(ObjectPredicate.and([]) == .true)
        #expect(ObjectPredicate.or([]) == .false)
        #expect(ObjectPredicate.and([a]) == a)
        #expect((a && a && a) == ObjectPredicate(.and([a, a, a])))
        #expect((a || a) == ObjectPredicate(.or([a, a])))
        #expect(!a == ObjectPredicate(.not(a)))
    }

    @Test(
        "description parses back to an equal predicate",
        arguments: [
            "read == NO AND title CONTAINS[cd] \"swift\"",
            "a == 1 OR b == 2 AND NOT c == 3",
            "(a == 1 OR b == 2) AND NOT (c == 3 OR d != nil)",
            "ANY feedItems.title LIKE[c] \"*swift?\" OR ALL feedItems.read == YES OR NONE feedItems.count > 2.5",
            "feedItems.@count BETWEEN {1, 10} AND title IN {\"a\", 'b', nil}",
            "server.title BEGINSWITH[d] \"é\" AND author ENDSWITH \"x\" AND summary MATCHES \"[a-z]+\\\\d\"",
            "#in == \"\\n\\t\\\"\\\\\" AND TRUEPREDICATE AND NOT FALSEPREDICATE",
            "published < CAST(123.25, \"NSDate\") AND icon == CAST(\"AQID\", \"NSData\") AND x >= -1e+20 AND y < 1e999",
            "title == \"\u{301}leading mark\" AND title != \"\u{7}bell\"",
            "title =[c] author AND 3 < count",
            "a IN {}",
            "server == CAST(12, \"ObjectID:Server\") OR ANY feedItems IN {CAST(-3, \"ObjectID:FeedItem\")}",
        ])
    func roundTrip(format: String) throws {
        let p = try ObjectPredicate(format: format)
        let again = try ObjectPredicate(format: p.description)
        #expect(again == p, "\(format) → \(p.description)")
        #expect(again.predicateFormat == p.predicateFormat)
    }

    @Test("canonical format")
    func canonical() throws {
        #expect(try parse("read = no && title contains[cd] 'swift'").description == "read == NO AND title CONTAINS[cd] \"swift\"")
        #expect(try parse("some a =< 1").description == "ANY a <= 1")
        #expect(try parse("NOT (a == 1 AND b == 2) OR c <> nil").description == "NOT (a == 1 AND b == 2) OR c != nil")
        #expect(ObjectPredicate.comparison("in", .equalTo, 1).description == "#in == 1")
        #expect(
            ObjectPredicate.comparison("d", .equalTo, .date(Date(timeIntervalSinceReferenceDate: 10))).description
                == "d == CAST(10.0, \"NSDate\")")
    }
}
