import GRDB
import Testing

@testable import ObjectGraph

@Suite("SQL identifiers quoted")
struct SchemaQuotingTests {
    @Test func namesAreQuotedAndEmbeddedQuotesDoubled() {
        #expect(SchemaGenerator.quote("FeedItem") == #""FeedItem""#)
        #expect(SchemaGenerator.quote("") == #""""#)
        #expect(SchemaGenerator.quote(#"a"b"#) == #""a""b""#)
        #expect(SchemaGenerator.quote(#"""#) == #""""""#)
        #expect(SchemaGenerator.quote("naïve \"x\"") == #""naïve ""x""""#)
    }

    /// What SQLite reads back from a quoted name is the name itself.
    @Test func sqliteReadsTheNameBack() throws {
        let queue = try DatabaseQueue()
        for name in ["plain", #"with "quotes""#, "naïve", "semi;colon", #"""#] {
            let column = try queue.read { db in
                try Row.fetchOne(db, sql: "SELECT 1 AS \(SchemaGenerator.quote(name))")?.columnNames.first
            }
            #expect(column == name)
        }
    }
}
