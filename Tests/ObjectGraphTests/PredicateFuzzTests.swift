import Foundation
import ObjectGraph
import Testing

/// Mutated formats must either parse (and then round-trip through their description) or fail
/// with a syntax error whose position lies inside the format; never crash.
@Suite("ObjectPredicate parser fuzzing")
struct PredicateFuzzTests {
    static let corpus = [
        "read == NO AND title CONTAINS[cd] \"swift\"",
        "ANY feedItems.title LIKE[c] '*swift?' OR ALL feedItems.read == YES",
        "feedItems.@count BETWEEN {1, 10} AND NOT (title IN {'a', \"b\", nil})",
        "server.title BEGINSWITH[d] 'é' && author ENDSWITH 'x' || summary MATCHES '[a-z]+\\\\d'",
        "#in == 'a\\n\\t\\u00e9' AND TRUEPREDICATE OR FALSEPREDICATE",
        "published < CAST(123.25, \"NSDate\") AND x >= -1.5e+3 AND y =< 7 AND z <> 0",
        "NONE feedItems.count > 2 AND SOME feedItems.read = true",
    ]
    static let fragments = [
        "(", ")", "{", "}", ",", ".", "'", "\"", "\\", "[", "]", "[cd]", "==", "=", "!", "!=", "<", ">", "<=", "=>", "&&",
        "||", "AND", "OR", "NOT", "ANY", "ALL", "@count", "@", "#", "%@", "%K", "%", "-", "1e", "1.", "3", "nil", "YES",
        "CAST(", "BETWEEN", "IN", "LIKE", "é", "\u{301}", "😀", " ", "\n", "\\u{", "\\u12", "x.y", "0x1",
    ]

    @Test("mutated formats parse and round-trip, or fail with a position inside the format")
    func mutations() {
        var g = PredicateRandomGenerator(seed: 4242)
        var parsed = 0
        for _ in 0..<8_000 {
            var scalars = Array(Self.corpus.randomElement(using: &g)!.unicodeScalars)
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                let at = Int.random(in: 0...scalars.count, using: &g)
                switch Int.random(in: 0..<3, using: &g) {
                case 0:
                    scalars.insert(contentsOf: Self.fragments.randomElement(using: &g)!.unicodeScalars, at: at)
                case 1 where at < scalars.count:
                    scalars.removeSubrange(at..<min(scalars.count, at + Int.random(in: 1...4, using: &g)))
                default:
                    let from = Int.random(in: 0..<max(1, scalars.count), using: &g)
                    if from < scalars.count { scalars.insert(contentsOf: scalars[from..<min(scalars.count, from + 5)], at: at) }
                }
            }
            var format = String.UnicodeScalarView()
            format.append(contentsOf: scalars)
            check(String(format), parsed: &parsed)
        }
        #expect(parsed > 400, "only \(parsed) mutated formats parsed; the fuzzer explores too little")
    }

    func check(_ format: String, parsed: inout Int) {
        do {
            let predicate = try ObjectPredicate(format: format)
            parsed += 1
            do {
                let again = try ObjectPredicate(format: predicate.description)
                #expect(again == predicate, "\(format.debugDescription) → \(predicate.description.debugDescription)")
            } catch {
                Issue.record("description of \(format.debugDescription) does not parse: \(predicate.description) \(error)")
            }
        } catch {
            guard case .predicateSyntax(let f, let position, let message) = error else {
                Issue.record("\(format.debugDescription): unexpected error \(error)")
                return
            }
            #expect(f == format)
            #expect(position >= 0 && position <= format.unicodeScalars.count, "\(format.debugDescription): \(position)")
            #expect(!message.isEmpty)
        }
    }

    @Test(
        "deep nesting is refused, not a stack overflow",
        arguments: [
            String(repeating: "(", count: 60_000) + "a == 1",
            String(repeating: "NOT ", count: 16_000) + "a == 1",
            String(repeating: "!", count: 60_000) + "a == 1",
            "a IN " + String(repeating: "{", count: 60_000) + "1",
            "a == " + String(repeating: "CAST(", count: 12_000) + "1",
        ])
    func deepNesting(format: String) {
        #expect {
            try ObjectPredicate(format: format)
        } throws: { error in
            guard case .predicateSyntax(_, _, let message) = error as? ObjectGraphError else { return false }
            return message.contains("nested more than")
        }
    }

    @Test("moderate nesting is fine")
    func moderateNesting() throws {
        let format =
            String(repeating: "(", count: 60) + String(repeating: "(NOT ", count: 9) + "a == 1"
            + String(repeating: ")", count: 69)
        let p = try ObjectPredicate(format: format)
        #expect(try ObjectPredicate(format: p.description) == p)
    }
}
