import Foundation
import ObjectGraph
import Testing

/// ObjectGraph's doc-comment examples: generated from the sources by
/// scripts/extract-doc-examples.py, compiled with this target, kept in step with the sources by
/// `generatedExamplesAreCurrent`, and run with fresh givens unless `notRun` says why not.
@Suite struct DocExampleTests {
    /// Examples that compile but are not run, with the reason.
    static let readingModel = "uses the model of EntityDescription.init(_:parent:…)'s example (InheritanceTests runs it)"
    static let notRun: [String: String] = [
        "ManagedObject_ManagedObject": "inserts a class it declares, which the givens' model does not know",
        "CodableAttribute_Encoded": "inserts a class it declares, which the givens' model does not know",
        "UUIDValue_UUID": "fetches a class it declares, which the givens' model does not know",
        "FetchedResultsController_changeBatches": "waits for changes forever",
        "ForeignDatabase_ForeignDatabase": "reads newsboat's cache.db in the working directory",
        "AttributeMove_AttributeMove": "needs models in which Note's body moves to NoteBody",
        "ManagedObjectModel_ManagedObjectModel": "a small model for the givens' Note and Folder: it lacks their keys",
        "Inheritance_isKind": readingModel,
        "Inheritance_subentities": readingModel,
        "ManagedObjectFinders_default": finders,
        "ManagedObjectFinders_findAll_2": finders,
        "ManagedObjectFinders_findAll_3": finders,
        "ManagedObjectFinders_findAll_4": finders,
        "ManagedObjectFinders_findAll_5": finders,
        "ManagedObjectFinders_findFirst": finders,
        "ManagedObjectFinders_findFirst_2": finders,
        "ManagedObjectFinders_findSingle": finders,
        "ManagedObjectFinders_count": finders,
        "ManagedObjectFinders_aggregate": finders,
        "ManagedObjectFormatFinders_findAll": finders,
        "ManagedObjectFormatFinders_findAll_2": finders,
        "ManagedObjectFormatFinders_findFirst": finders,
        "ManagedObjectFormatFinders_findFirst_2": finders,
        "ManagedObjectFormatFinders_findFirst_3": finders,
        "ManagedObjectFormatFinders_findSingle": finders,
        "ManagedObjectFormatFinders_findSingle_2": finders,
        "ManagedObjectFormatFinders_count": finders,
        "ManagedObjectFormatFinders_count_2": finders,
        "ManagedObjectFormatFinders_aggregate": finders,
        "ManagedObjectFormatFinders_aggregate_2": finders,
    ]
    /// Examples that need a file store (the others get an in-memory one, which is faster).
    static let onFileStore: Set<String> = [
        "ManagedObjectContextGeneration_ManagedObjectContext", "ManagedObjectContextGeneration_pinReadGeneration",
        "ManagedObjectContextGeneration_advanceReadGeneration", "PersistentContainer_startWatchingOtherProcesses",
    ]
    private static let finders =
        "uses PersistentContainer.default, a process-wide setting that FinderTests changes while the suite runs"

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
        #expect(Set(Self.notRun.keys).union(Self.onFileStore).subtracting(ids).sorted() == [])
        #expect(ids.count == allDocExamples.count)
    }

    @Test(arguments: allDocExamples.filter { notRun[$0.id] == nil })
    func example(_ example: DocExample) async throws {
        let (container, directory) = try DocExampleGiven.container(onFile: Self.onFileStore.contains(example.id))
        let given = try container.viewContext.performAndWait { try DocExampleGiven(container, directory: directory) }
        // The givens hold the view context's objects, whose release touches the context: they
        // go on its queue, after whatever the example left it to do (a background save's merge).
        defer {
            let last = Unmanaged.passRetained(given)
            container.viewContext.performAndWait { last.release() }
        }
        switch example.body {
        case .sync(let run):
            try container.viewContext.performAndWait { try run(given) }
        case .async(let run):
            try await run(given)
        }
    }
}
