import Foundation
import ObjectGraph
import Testing

@Suite("ObjectPredicate errors")
struct PredicateErrorTests {
    /// The position and message of the syntax error `format` raises.
    func syntaxError(_ format: String, _ arguments: [(any PredicateArgument)?] = []) -> (Int, String)? {
        do {
            let p = try ObjectPredicate(format: format, argumentArray: arguments)
            Issue.record("\(format) parsed as \(p)")
        } catch {
            if case .predicateSyntax(let f, let position, let message) = error {
                #expect(f == format)
                return (position, message)
            }
            Issue.record("\(format): unexpected error \(error)")
        }
        return nil
    }

    @Test(
        "syntax errors name the position and what was expected",
        arguments: [
            ("", 0, "empty predicate"),
            ("title ==", 8, "expected a value after '==', found the end of the format"),
            ("title == 'abc", 9, "unterminated string literal"),
            ("title ~ 3", 6, "unexpected character '~'"),
            ("title == 3 AND", 14, "found the end of the format"),
            ("(title == 3", 11, "expected ')'"),
            ("title == 3)", 10, "found ')'"),
            ("title CONTAINS[x] 'a'", 15, "unknown comparison option 'x'"),
            ("title == 'a\\q'", 11, "unknown escape '\\q'"),
            ("title & 3", 6, "expected '&&'"),
            ("title == %@", 9, "substitution 1 has no argument"),
            ("title == 3 extra", 11, "found 'extra'"),
            ("title foo 3", 6, "expected a comparison operator"),
            ("ANY == 3", 4, "expected a key path or value to compare, found '=='"),
            ("title IN 3", 9, "IN needs a collection"),
            ("a BETWEEN {1}", 10, "BETWEEN needs a collection of two bounds"),
            ("a == 1e", 6, "expected digits in the exponent"),
            ("a == 12abc", 7, "unexpected 'a' after number 12"),
            ("a == #", 5, "expected a key name after '#'"),
            ("AND == 3", 0, "found the reserved word 'AND' (write #and"),
            ("a.in == 3", 2, "found the reserved word 'IN'"),
            ("a.@sum > 3", 2, "unsupported collection operator '@sum'"),
            ("a == CAST(1, \"NSFoo\")", 13, "unsupported CAST"),
            ("a == %x", 5, "unknown substitution"),
            ("a == \"\\u{110000}\"", 6, "invalid \\u escape"),
            ("a ==[c 'x'", 7, "expected ']'"),
            ("a == {1, 2", 10, "expected '}'"),
            ("a.b. == 1", 5, "expected a key after '.'"),
            ("título == 'é' AND ñ ~", 20, "unexpected character '~'"),
        ])
    func syntax(format: String, position: Int, message: String) {
        guard let (p, m) = syntaxError(format) else { return }
        #expect(p == position, "\(format): \(m)")
        #expect(m.contains(message), "\(format): \(m)")
    }

    @Test("substitution arguments must match the format")
    func argumentErrors() {
        #expect(syntaxError("%K == 1", [3])?.1.contains("%K needs a non-empty String key path") == true)
        #expect(syntaxError("a == 1", [3]).map { $0.0 == 6 && $0.1.contains("1 argument given but the format uses 0") } == true)
        #expect(syntaxError("a == %@ AND b == %@", ["x"])?.0 == 17)
    }

    @Test("the error's description quotes format and position")
    func description() {
        let error = ObjectGraphError.predicateSyntax(format: "a ~ 1", position: 2, message: "unexpected character '~'")
        #expect(error.description == "predicate syntax error at position 2: unexpected character '~' in \"a ~ 1\"")
    }

    func validationError(_ entity: String, _ format: String, _ arguments: (any PredicateArgument)?...) throws -> ObjectGraphError?
    {
        let predicate = try ObjectPredicate(format: format, argumentArray: arguments)
        let model = PredicateTestModel.model
        do {
            try predicate.validate(for: PredicateTestModel.entity(entity), in: model)
        } catch {
            // SQL compilation validates the same way.
            #expect(throws: error) { try predicate.sqlExpression(for: PredicateTestModel.entity(entity), in: model, alias: "t0") }
            return error
        }
        Issue.record("\(format) validated for \(entity)")
        return nil
    }

    @Test("unknown keys name the entity in which they were looked up")
    func unknownKeys() throws {
        #expect(try validationError("FeedItem", "nope == 1") == .unknownKey(entity: "FeedItem", key: "nope"))
        #expect(try validationError("FeedItem", "server.nope == 1") == .unknownKey(entity: "Server", key: "nope"))
        #expect(try validationError("Server", "ANY feedItems.nope == 1") == .unknownKey(entity: "FeedItem", key: "nope"))
        #expect(
            try validationError("Server", "title == 'x' OR NOT profile.nope == 1") == .unknownKey(entity: "Profile", key: "nope"))
        #expect(try validationError("Server", "title == nope") == .unknownKey(entity: "Server", key: "nope"))
        #expect(try validationError("Server", "title IN {'a', nope}") == .unknownKey(entity: "Server", key: "nope"))
    }

    @Test(
        "type errors name the key",
        arguments: [
            ("FeedItem", "read == 'yes'", "cannot compare a bool with a string: 'read' (bool)"),
            ("FeedItem", "count CONTAINS 'x'", "CONTAINS needs strings, but 'count' (integer) is a number"),
            ("FeedItem", "title LIKE 3", "LIKE needs strings, but 3 is a number"),
            ("FeedItem", "ANY server.title == 'x'", "ANY needs a key path through a to-many relationship, but 'server.title'"),
            ("FeedItem", "title.@count > 1", "'title' is an attribute of FeedItem; no key can follow it"),
            ("FeedItem", "server.@count > 1", "@count must follow a to-many relationship"),
            ("Server", "feedItems.@count.title > 1", "@count must come last"),
            (
                "Server", "feedItems.title == 'x'",
                "'feedItems.title' crosses the to-many relationship 'feedItems': use ANY, ALL or NONE"
            ),
            ("Server", "feedItems == nil", "'feedItems' crosses the to-many relationship 'feedItems': use ANY, ALL or NONE"),
            ("Server", "ANY feedItems.server.feedItems.title == 'x'", "crosses more than one to-many relationship"),
            ("Server", "title == ANY feedItems.title", "expected"),
            ("FeedItem", "server == 'x'", "relationship 'server' is a relationship to Server, \"x\" is a string"),
            ("FeedItem", "server < nil", "relationships and objects can only be compared using ==, != or IN"),
            (
                "FeedItem", "server == CAST(3, 'ObjectID:Profile')",
                "relationship 'server' is a relationship to Server, CAST(3, \"ObjectID:Profile\") is a Profile object"
            ),
            ("Server", "ANY feedItems == CAST(3, 'ObjectID:Server')", "is a relationship to FeedItem"),
            ("FeedItem", "read == 2", "'read' (bool) compares with YES/NO or 1/0, not 2"),
            ("FeedItem", "published > 'x'", "cannot compare a date with a string: 'published' (date)"),
            ("FeedItem", "published > count", "cannot compare a date with a number"),
            ("FeedItem", "title MATCHES '('", "\"(\" is not a valid ICU regular expression"),
            ("Server", "title IN {1, 'a'}", "cannot compare a string with a number: 'title' (string) IN 1"),
            ("Server", "{1} == rank", "a collection {1} can only be the right side of IN or BETWEEN"),
            ("Server", "rank == ANY", "expected"),
        ])
    func typeErrors(entity: String, format: String, message: String) throws {
        let error: ObjectGraphError?
        do {
            error = try validationError(entity, format)
        } catch {
            // A few of these are already syntax errors.
            guard case .predicateSyntax(_, _, let m) = error as? ObjectGraphError else { throw error }
            #expect(m.contains(message), "\(format): \(m)")
            return
        }
        guard case .invalidPredicate(let e, let m)? = error else {
            Issue.record("\(format): expected invalidPredicate, got \(String(describing: error))")
            return
        }
        #expect(e == entity)
        #expect(m.contains(message), "\(format): \(m)")
    }

    @Test("object references name an existing entity")
    func objectReferences() throws {
        #expect(try validationError("FeedItem", "server == CAST(3, 'ObjectID:Nope')") == .unknownEntity("Nope"))
    }

    @Test("data attributes only compare for equality")
    func dataComparisons() throws {
        guard case .invalidPredicate(_, let m)? = try validationError("Server", "icon < %@", Data([1])) else {
            Issue.record("icon < data validated")
            return
        }
        #expect(m.contains("data can only be compared with ==, != or IN: 'icon' (data)"))
    }

    @Test("transient attributes cannot be compiled to SQL but evaluate in memory")
    func transient() throws {
        let predicate = try ObjectPredicate(format: "scratch == 'x'")
        let server = PredicateTestModel.entity("Server")
        try predicate.validate(for: server, in: PredicateTestModel.model)
        #expect(
            throws: ObjectGraphError.invalidPredicate(
                entity: "Server", message: "'scratch': transient attribute 'scratch' is not stored and cannot be used in a fetch")
        ) { try predicate.sqlExpression(for: server, in: PredicateTestModel.model, alias: "t0") }
        #expect(try predicate.evaluate(with: TestObject(server, ["scratch": "x"])))
    }

    @Test("constants are accepted where Core Data coerces them")
    func coercions() throws {
        let model = PredicateTestModel.model
        for (entity, format) in [
            ("FeedItem", "rating == 1"), ("FeedItem", "read == 1"), ("FeedItem", "read == 0"), ("FeedItem", "read != YES"),
            ("FeedItem", "count == YES"), ("FeedItem", "published > 1700000000"), ("FeedItem", "published < 1.7e9"),
            ("FeedItem", "title == nil"), ("FeedItem", "read == nil"), ("FeedItem", "count < nil"),
            ("FeedItem", "server.profile == nil"), ("FeedItem", "server != nil"), ("FeedItem", "title == server.title"),
            ("Server", "rank == score"), ("Server", "feedItems.@count BETWEEN {0, 2.5}"),
        ] {
            try ObjectPredicate(format: format).validate(for: PredicateTestModel.entity(entity), in: model)
        }
    }
}
