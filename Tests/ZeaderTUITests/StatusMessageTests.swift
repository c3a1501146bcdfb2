import Foundation
import Testing

@testable import ZeaderConfig
@testable import ZeaderTUI

/// Every status line is a typed message whose words live in StatusMessage.swift: one
/// sentence for one situation, whichever key led there.
@Suite struct StatusMessageTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/ZeaderTUI")

    /// The Swift files of the reader's module, with their text.
    func sourceTexts() throws -> [(name: String, text: String)] {
        let files =
            FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        return try files.map { ($0.lastPathComponent, try String(contentsOf: $0, encoding: .utf8)) }
    }

    @Test func everyKeyThatNeedsAnItemSaysTheSame() throws {
        let h = try Harness()
        for key: Key in [.character("D"), .control("e"), .character("N"), .character("s"), .control("b"), .character("#")] {
            #expect(h.type(key).contains("Open or select an item first"), "\(key.name)")
        }
        let sentence = try sourceTexts().filter { $0.text.contains("Open or select an item first") }.map(\.name)
        #expect(sentence == ["StatusMessage.swift"])
        #expect(try sourceTexts().allSatisfy { !$0.text.contains("Select or open an item") })
    }

    @Test func noStatusLineIsWrittenOutsideTheMessages() throws {
        for (name, text) in try sourceTexts() {
            #expect(!text.contains("say(\""), "\(name) writes a status line in its own words")
            #expect(!text.contains("message = \""), "\(name) writes a status line in its own words")
        }
    }
}
