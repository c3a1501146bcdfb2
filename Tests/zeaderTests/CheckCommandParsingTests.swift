import Testing
import ZeaderKit

@testable import zeader

/// `zeader check` reads only `--db`, before or after its name.
@Suite struct CheckCommandParsingTests {
    @Test func checkTakesTheStoreBeforeOrAfterItsName() {
        AssertParse(CheckCommand.self, ["--db", "x.sqlite", "check"]) { #expect($0.store.db == "x.sqlite") }
        AssertParse(CheckCommand.self, ["check", "--db", "y.sqlite"]) { #expect($0.store.db == "y.sqlite") }
        AssertParse(CheckCommand.self, ["check"]) { #expect($0.store.db == nil) }
    }
}
