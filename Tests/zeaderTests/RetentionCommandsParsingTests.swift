import Foundation
import Testing
import ZeaderKit

@testable import zeader

/// `cleanup`, `ignore` and `import --urls` as the parser reads them.
@Suite struct RetentionCommandsParsingTests {
    @Test func cleanupOptions() {
        AssertParse(CleanupCommand.self, ["cleanup", "--vacuum", "--max-items", "50", "--db", "x"]) {
            #expect($0.vacuum && $0.maxItems == 50 && $0.keepDays == nil && $0.store.db == "x")
        }
        AssertParse(CleanupCommand.self, ["--db", "y", "cleanup", "--keep-days", "30"]) {
            #expect(!$0.vacuum && $0.keepDays == 30 && $0.store.db == "y")
        }
    }

    @Test func ignoreSubcommands() {
        AssertParse(IgnoreCommand.Add.self, ["ignore", "add", "title == \"x\"", "--tag", "news"]) {
            #expect($0.predicate == "title == \"x\"" && $0.tag == "news" && $0.feed == nil)
        }
        AssertParse(IgnoreCommand.Remove.self, ["ignore", "remove", "2"]) { #expect($0.number == 2) }
    }

    @Test func importTakesAURLsFile() {
        AssertParse(ImportCommand.self, ["import", "cache.db", "--urls", "urls"]) {
            #expect($0.file == "cache.db" && $0.urls == "urls")
        }
    }

    @Test func newsboatSummaryLine() {
        var report = NewsboatImportReport()
        report.feedsAdded = 1
        report.items.added = 2
        report.items.deleted = 1
        #expect(
            ImportCommand.summary(report, file: "c.db")
                == "imported 1 feed and 2 items from c.db (1 deleted in newsboat kept hidden)")
    }
}
