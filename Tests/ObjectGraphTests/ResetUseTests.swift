import Foundation
import ObjectGraph
import Testing

/// An object kept past its context's reset is refused with a message naming the reset
/// (never changed to no effect), and relating it to another object names the reset rather
/// than "another context".
@Suite struct ResetUseTests {
    @Test func aThrowingSetterAfterResetNamesTheReset() throws {
        let container = try TestModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let saved = ctx.insert(Note.self)
            saved.title = "kept"
            try ctx.save()
            let unsaved = ctx.insert(Note.self)
            ctx.reset()
            let folder = ctx.insert(Folder.self)
            folder.name = "F"
            for note in [saved, unsaved] {
                let setError = #expect(throws: ObjectGraphError.self) { try note.setValue("changed", forKey: "title") }
                #expect(setError.map { "\($0)".contains("reset()") } == true)
                let relateError = #expect(throws: ObjectGraphError.self) { try note.setObject(folder, forKey: "folder") }
                #expect(relateError.map { "\($0)".contains("reset()") } == true)
            }
            #expect(folder.notes.isEmpty)
        }
    }

    @Test func aPropertySetAfterResetStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let container = try TestModel.container()
            let ctx = container.viewContext
            try ctx.performAndWait { () throws in
                let note = ctx.insert(Note.self)
                note.title = "kept"
                try ctx.save()
                ctx.reset()
                note.title = "lost"
                try ctx.save()
            }
        }
    }

    @Test func anUnsavedObjectSetAfterResetStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let container = try TestModel.container()
            let ctx = container.viewContext
            ctx.performAndWait {
                let note = ctx.insert(Note.self)
                ctx.reset()
                note.title = "lost"
            }
        }
    }

    @Test func anObjectKeptAcrossImportBatchesNamesTheImportersReset() throws {
        let container = try TestModel.container()
        let importer = BatchImporter(container: container, name: "keep", batchSize: 2)
        var kept: Folder?
        let error = #expect(throws: ObjectGraphError.self) {
            try importer.run(0..<5) { i, context in
                let note = try #require(try context.insertObject(entityName: "Note") as? Note)
                note.title = "note \(i)"
                if kept == nil {
                    let folder = context.insert(Folder.self)
                    folder.name = "F"
                    kept = folder
                }
                try note.setObject(kept, forKey: "folder")
            }
        }
        #expect(error.map { "\($0)".contains("BatchImporter 'keep'") } == true)
    }
}
