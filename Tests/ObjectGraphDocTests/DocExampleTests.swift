import Foundation
import ObjectGraph
import Testing

/// ObjectGraph's doc-comment and README examples: generated from the sources by
/// scripts/extract-doc-examples.py, compiled with this target, kept in step with the sources by
/// `generatedExamplesAreCurrent`, and run with fresh givens unless `notRun` says why not.
@Suite struct DocExampleTests {
    /// Examples that compile but are not run, with the reason.
    static let notRun: [String: String] = [:]

    @Test func generatedExamplesAreCurrent() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("scripts/extract-doc-examples.py").path, "--check"]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(message)")
    }

    @Test func everyNotRunEntryNamesAnExample() {
        let ids = Set(allDocExamples.map(\.id))
        #expect(Set(Self.notRun.keys).subtracting(ids).sorted() == [])
        #expect(ids.count == allDocExamples.count)
    }

    @Test(arguments: allDocExamples.filter { notRun[$0.id] == nil })
    func example(_ example: DocExample) async throws {
        let container = try PersistentContainer(
            model: DocExampleModel.model(version: 1), store: .inMemory)
        let given = try container.viewContext.performAndWait { try DocExampleGiven(container) }
        switch example.body {
        case .sync(let run):
            try container.viewContext.performAndWait { try run(given) }
        case .async(let run):
            try await run(given)
        }
    }
}
