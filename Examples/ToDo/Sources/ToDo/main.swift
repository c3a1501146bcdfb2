// ToDo: a v1 store of tasks, migrated to v2 (priorities), listed live by a
// FetchedResultsController while an edit sheet (a child context) changes a task.
import Foundation
import ObjectGraph

/// A task, declared once: its stored properties are the entity of the current version.
@ManagedEntity
final class ToDoItem: ManagedObject {
    @Attribute(.validated(.minLength(1))) var title: String
    var done = false
    /// 0–3; stores of version 1 had none and get the default.
    @Attribute(.validated(.minimum(0), .maximum(3))) var priority: Int64 = 1
}

/// Version 1, as the first release described it: a title and a done flag. It is declared the
/// explicit way on purpose, as a release from before the macro shipped it: the two versions of a
/// model need not be declared alike, and the migration does not care.
func version1() throws -> ManagedObjectModel {
    try ManagedObjectModel(
        name: "ToDo", version: 1,
        entities: [
            EntityDescription(
                "ToDoItem", managedClass: ToDoItem.self,
                attributes: [.string("title", optional: false), .bool("done", defaultValue: false)])
        ])
}

/// Version 2 adds a priority (0–3, default 1): an additive change, so the migration is inferred.
func version2() throws -> ManagedObjectModel {
    try ManagedObjectModel(name: "ToDo", version: 2, classes: [ToDoItem.self])
}

/// Prints each change the list hears of.
final class ListPrinter: FetchedResultsControllerDelegate {
    var lines: [String] = []
    func controller(_ controller: FetchedResultsController<ToDoItem>, didChange change: FetchedResultsChange) {
        lines.append("  \(change)")
    }
}

func run() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("todo-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("todo.sqlite")
    let v1 = try version1()
    let v2 = try version2()

    // An old version of the app writes a v1 store.
    do {
        let old = try PersistentContainer(model: v1, store: .file(url))
        let context = old.viewContext
        try context.performAndWait { () throws in
            for (title, done) in [("Buy milk", false), ("Write report", false), ("Call Ann", true)] {
                let item = context.insert(ToDoItem.self)
                item.title = title
                item.done = done
            }
            try context.save()
        }
        try old.store.close()
    }

    // The new version opens it, migrating v1 → v2.
    let container = try PersistentContainer(
        model: v2, store: .file(url), migrator: try MigrationPlan(versions: [v1, v2]))
    let view = container.viewContext
    try view.performAndWait { () throws in
        let list = try FetchedResultsController(
            fetchRequest: FetchRequest<ToDoItem>(
                sortDescriptors: [
                    ObjectSortDescriptor(\ToDoItem.done), ObjectSortDescriptor(\ToDoItem.priority, ascending: false),
                    ObjectSortDescriptor(\ToDoItem.title),
                ]),
            context: view, sectionNameKeyPath: "done")
        try list.performFetch()
        let printer = ListPrinter()
        list.delegate = printer
        func show(_ heading: String) {
            print(heading)
            for (s, section) in list.sections.enumerated() {
                print("  \(section.name == "NO" ? "To do" : "Done") (section \(s)):")
                for item in section.objects { print("    [\(item.done ? "x" : " ")] \(item.title) (priority \(item.priority))") }
            }
        }
        show("After migration to v2:")

        // An edit sheet: a child context, saved into the view context, then to the store.
        let sheet = view.newChildContext(name: "edit sheet")
        let report = try ToDoItem.fetch(where: \.title == "Write report", in: sheet)[0]
        report.priority = 3
        report.title = "Write the report"
        let bad = sheet.insert(ToDoItem.self)
        bad.title = ""
        do {
            try sheet.save()
        } catch {
            print("Sheet refused: \(error)")
            sheet.delete(bad)
        }
        try sheet.save()
        print("Changes the list heard of:")
        for line in printer.lines { print(line) }
        try view.save()

        // A discarded sheet changes nothing.
        let cancelled = view.newChildContext()
        try cancelled.fetch(FetchRequest<ToDoItem>())[0].title = "never saved"
        show("Saved:")
    }
    let check = container.newBackgroundContext()
    let titles = try check.performAndWait { () throws in
        try ToDoItem.fetch(sortedBy: \.title, in: check).map(\.title)
    }
    guard titles == ["Buy milk", "Call Ann", "Write the report"] else {
        print("unexpected store contents: \(titles)")
        exit(1)
    }
    print("Store holds: \(titles.joined(separator: ", "))")
}

do {
    try run()
} catch {
    print("ToDo failed: \(error)")
    exit(1)
}
