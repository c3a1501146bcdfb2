import Foundation
import ObjectGraph
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// The man page, the example config and the embedded demo feeds stay in step with the code.
@Suite struct DocumentationTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func manPageListsEveryAction() throws {
        let man = try String(contentsOf: Self.root.appendingPathComponent("man/zeader.1"), encoding: .utf8)
        for action in Action.allCases {
            let troff = "\\fB" + action.rawValue.replacingOccurrences(of: "-", with: "\\-") + "\\fR"
            #expect(man.contains(troff), "man/zeader.1 does not list \(action.rawValue)")
        }
    }

    @Test func exampleConfigParsesAndItsSmartFeedsCompile() throws {
        let url = Self.root.appendingPathComponent("Resources/config.example")
        let config = try ReaderConfig.load(from: url)
        #expect(config.smartFeeds.count == 2)
        let store = try ZeaderStore.inMemory()
        try DemoFeeds.load(into: store)
        let model = ReaderModel(store: store, smartFeeds: config.smartFeeds)
        let rows = try store.container.viewContext.performAndWait { try model.feedRows() }
        for row in rows { #expect(row.lastError == nil, "\(row.title): \(row.lastError ?? "")") }
        #expect(rows.last?.title == "Unread from Zeader News")
        #expect(rows.last?.unread == 3)
    }

    @Test func embeddedDemoFeedsMatchResources() throws {
        for file in DemoFeeds.files {
            let onDisk = try String(
                contentsOf: Self.root.appendingPathComponent("Resources/demo/\(file.name)"), encoding: .utf8)
            #expect(
                onDisk.trimmingCharacters(in: .newlines) == file.text, "run Resources/demo/embed.sh after editing \(file.name)")
        }
    }
}
