import Dispatch
import Foundation
import GRDB
import Synchronization
import Testing

@testable import ObjectGraph

/// GRDB's own observation (`DatabaseRegionObservation`, `ValueObservation`) on a store that
/// contexts write: inserts, updates and deletes made through contexts are all seen.
/// (Inserts used to be missed: a save steps its INSERT statement through SQLite's C API,
/// which GRDB does not see; the save now tells GRDB which tables it inserted into.)
@Suite struct DatabaseObservationTests {
    @Test func regionObservationSeesEveryKindOfWrite() throws {
        let dir = TemporaryDirectory()
        let container = try TestModel.container(.file(dir.file("s.sqlite")))
        let table = try container.model.entity(for: Note.self).tableName
        let commits = Mutex(0)
        // Notified synchronously, inside each commit: counts are exact once save() returns.
        let cancellable = DatabaseRegionObservation(tracking: Table(table)).start(
            in: container.store.writer, onError: { Issue.record("\($0)") }, onChange: { _ in commits.withLock { $0 += 1 } })
        defer { cancellable.cancel() }
        let ctx = container.newBackgroundContext()
        try ctx.performAndWait { () throws in
            let note = ctx.insert(Note.self)
            note.title = "inserted"
            try ctx.save()
            #expect(commits.withLock { $0 } == 1, "insert")
            note.title = "updated"
            try ctx.save()
            #expect(commits.withLock { $0 } == 2, "update")
            ctx.delete(note)
            try ctx.save()
            #expect(commits.withLock { $0 } == 3, "delete")
            // A save that writes no note is not a change of the table.
            ctx.insert(Folder.self).name = "F"
            try ctx.save()
            #expect(commits.withLock { $0 } == 3, "another table")
        }
    }

    @Test func valueObservationReportsRowsInsertedThroughContexts() throws {
        let dir = TemporaryDirectory()
        let container = try TestModel.container(.file(dir.file("s.sqlite")))
        let table = SchemaGenerator.quote(try container.model.entity(for: Note.self).tableName)
        let counts = Mutex<[Int]>([])
        let observation = ValueObservation.trackingConstantRegion { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0
        }
        let cancellable = observation.start(
            in: container.store.databaseReader, scheduling: .async(onQueue: DispatchQueue(label: "observer")),
            onError: { Issue.record("\($0)") }, onChange: { n in counts.withLock { $0.append(n) } })
        defer { cancellable.cancel() }
        let ctx = container.newBackgroundContext()
        for _ in 0..<3 {
            try ctx.performAndWait { () throws in
                ctx.insert(Note.self).title = "n"
                try ctx.save()
            }
        }
        // Values arrive asynchronously; wait for the last (a generous bound, not a speed goal).
        let deadline = Date().addingTimeInterval(60)
        while counts.withLock({ $0.last }) != 3 && Date() < deadline { usleep(10_000) }
        #expect(counts.withLock { $0.last } == 3)
    }
}
