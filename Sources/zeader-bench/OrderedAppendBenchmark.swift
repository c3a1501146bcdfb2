// zeader-bench ordered-append: the reading-list import, N items appended one by one to one
// folder whose to-many is ordered, beside the same import into an unordered folder, plus a
// bulk append, alternated, best of ROUNDS; and the cost Observation adds to reading fetched
// objects.
import Foundation
import ObjectGraph

/// The ordered twin is `benchOrderedModel` (OrderedOneToManyBenchmark.swift).
let benchUnorderedModel = try! ManagedObjectModel(
    name: "BenchPlaylists", version: 1,
    entities: [
        EntityDescription(
            "Playlist", managedClass: BenchPlaylist.self, attributes: [.string("name")],
            relationships: [.toMany("tracks", destination: "Track", inverse: "playlist")]),
        EntityDescription(
            "Track", managedClass: BenchTrack.self, attributes: [.string("title")],
            relationships: [.toOne("playlist", destination: "Playlist", inverse: "tracks")]),
    ])

/// Inserts `members` tracks into one playlist of `model` (through each track's to-one, or in
/// one bulk append), saving every `perSave`; returns the CPU and wall time, up to the view
/// context's merge of the saves (which runs on its own queue and would otherwise be counted
/// in whichever run comes next).
func timeAppends(model: ManagedObjectModel, members: Int, perSave: Int, bulk: Bool) throws -> Timing {
    let url = tempStore("ordered-append")
    defer { removeStore(url) }
    let container = try PersistentContainer(model: model, store: .file(url))
    let context = container.newBackgroundContext(name: "import")
    return try context.performAndWait { () throws -> Timing in
        let playlist = context.insert(BenchPlaylist.self)
        playlist.name = "reading list"
        try context.save()
        let (_, timing) = try measure { () throws in
            var start = 0
            while start < members {
                let end = min(start + perSave, members)
                var tracks: [BenchTrack] = []
                for n in start..<end {
                    let track = context.insert(BenchTrack.self)
                    track.title = "Item \(n)"
                    if bulk { tracks.append(track) } else { track.playlist = playlist }
                }
                if bulk { try playlist.add(contentsOf: tracks, toRelationship: "tracks") }
                try context.save()
                start = end
            }
            container.viewContext.performAndWait {}
        }
        precondition(playlist.tracks.count == members)
        return timing
    }
}

func orderedAppendBenchmark(members: Int, perSave: Int, rounds: Int) throws {
    print(
        "ordered append: \(members) items into one folder, a save every \(perSave), best of \(rounds) alternated rounds; CPU time (wall time)"
    )
    for n in [members / 2, members] {
        var unordered: Timing?
        var ordered: Timing?
        var bulk: Timing?
        func keep(_ best: inout Timing?, _ timing: Timing) { if best.map({ timing.cpu < $0.cpu }) ?? true { best = timing } }
        for _ in 0..<max(1, rounds) {
            keep(&unordered, try timeAppends(model: benchUnorderedModel, members: n, perSave: perSave, bulk: false))
            keep(&ordered, try timeAppends(model: benchOrderedModel, members: n, perSave: perSave, bulk: false))
            keep(&bulk, try timeAppends(model: benchOrderedModel, members: n, perSave: perSave, bulk: true))
        }
        printTiming("\(n) into an unordered folder", unordered!)
        printTiming("\(n) appended to an ordered folder", ordered!)
        printTiming("\(n) bulk-appended to an ordered folder", bulk!)
        print(
            String(
                format: "  ordered / unordered: %.2f×, bulk / unordered: %.2f×", ordered!.cpu / unordered!.cpu,
                bulk!.cpu / unordered!.cpu))
    }
}

/// Reads one attribute of `count` fetched objects twice: the first pass makes each object's
/// observation registrar, the second finds it made.
func observationCostBenchmark(count: Int) throws {
    let url = tempStore("observation")
    defer { removeStore(url) }
    let container = try PersistentContainer(model: benchUnorderedModel, store: .file(url))
    let context = container.newBackgroundContext(name: "bench")
    try context.performAndWait { () throws in
        for n in 0..<count { context.insert(BenchTrack.self).title = "Item \(n)" }
        try context.save()
        context.reset()
        print("observation: \(count) fetched objects, one attribute read each; CPU time (wall time)")
        let (tracks, fetch) = try measure { try context.fetch(FetchRequest<BenchTrack>()) }
        var length = 0
        let (_, first) = measure { for track in tracks { length += track.title?.count ?? 0 } }
        let (_, second) = measure { for track in tracks { length += track.title?.count ?? 0 } }
        precondition(length > 0)
        printTiming("fetch", fetch)
        printTiming("first read (makes the registrar)", first)
        printTiming("second read", second)
        printTiming("first read, per object", first, per: count)
    }
}
