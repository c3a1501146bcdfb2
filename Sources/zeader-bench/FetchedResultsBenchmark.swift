// zeader-bench fetched-results: what one change costs a FetchedResultsController over a
// large result (N unread items sorted newest first), against fetching the results again.
// Each change is made in the view context and announced (processPendingChanges), with and
// without a controller: the difference is the controller's own cost.
import Foundation
import ObjectGraph

func fetchedResultsBenchmark(count: Int, changes: Int) throws {
    let url = tempStore("fetched-results")
    defer { removeStore(url) }
    let container = try PersistentContainer(model: benchModel, store: .file(url))
    container.automaticallyMergesChangesIntoViewContext = false
    let build = container.newBackgroundContext(name: "build")
    try build.performAndWait { () throws in
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        for i in 0..<count {
            let item = build.insert(BenchItem.self)
            item.guid = "item-\(i)"
            item.title = "Item \(i)"
            item.published = start.addingTimeInterval(Double((i &* 7919) % count) * 60)
            if (i + 1) % 20_000 == 0 {
                try build.save()
                build.reset()
            }
        }
        try build.save()
        build.reset()
    }
    let view = container.viewContext
    let request = FetchRequest<BenchItem>(
        predicate: try ObjectPredicate(format: "read == NO"),
        sortDescriptors: [ObjectSortDescriptor("published", ascending: false)],
        timeLimit: nil)
    print("FetchedResultsController over \(count) unread items sorted by date, \(changes) changes of each kind")

    var random = SystemRandomNumberGenerator()
    /// Makes `changes` changes of one kind, each announced on its own, then rolls them back;
    /// returns the CPU seconds per change (steadier than wall time on a shared machine).
    func perChange(_ items: [BenchItem], _ change: (BenchItem, Int) -> Void) -> Double {
        let (_, timing) = measure {
            for n in 0..<changes {
                change(items[Int.random(in: 0..<items.count, using: &random)], n)
                view.processPendingChanges()
            }
        }
        view.rollback()
        return timing.cpu / Double(changes)
    }
    let kinds: [(String, (BenchItem, Int) -> Void)] = [
        (
            "update that moves an item",
            { item, n in item.published = Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 61) }
        ),
        ("update that leaves or rejoins", { item, _ in item.read = !item.read }),
        ("update in place", { item, n in item.title = "Title \(n)" }),
        (
            "insert",
            { item, n in
                let new = view.insert(BenchItem.self)
                new.guid = "new-\(n)"
                new.published = item.published
            }
        ),
        ("delete", { item, _ in if !item.isDeleted { view.delete(item) } }),
    ]

    try view.performAndWait { () throws in
        let items = try view.fetch(request)
        let baselines = kinds.map { perChange(items, $0.1) }

        let controller = try FetchedResultsController(fetchRequest: request, context: view)
        let (_, fetchTiming) = try measure { try controller.performFetch() }
        var reported = 0
        let counter = ChangeCounter { reported += $0 }
        controller.delegate = counter
        let costs = kinds.map { perChange(items, $0.1) }
        let exact = try view.fetch(request).map(ObjectIdentifier.init) == controller.fetchedObjects.map(ObjectIdentifier.init)
        print(
            String(
                format: "performFetch (what a refetch costs)   %9.3f ms wall, %9.3f ms CPU", fetchTiming.wall * 1000,
                fetchTiming.cpu * 1000))
        print("CPU µs per change (each announced by processPendingChanges):  with controller / without / controller's own")
        for (k, kind) in kinds.enumerated() {
            print(
                String(
                    format: "%@ %9.1f %9.1f %9.1f", kind.0.padding(toLength: 37, withPad: " ", startingAt: 0), costs[k] * 1e6,
                    baselines[k] * 1e6, (costs[k] - baselines[k]) * 1e6))
        }
        print("changes reported: \(reported); live results equal a fresh fetch after the rollbacks: \(exact ? "yes" : "NO")")
        withExtendedLifetime(controller) {}
    }
}

/// Counts the changes a controller reports.
final class ChangeCounter: FetchedResultsControllerDelegate {
    let onChange: (Int) -> Void
    init(_ onChange: @escaping (Int) -> Void) { self.onChange = onChange }
    func controller(_ controller: FetchedResultsController<BenchItem>, didChange change: FetchedResultsChange) {
        onChange(1)
    }
}
