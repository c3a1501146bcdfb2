// zeader-bench relationships, ordered part: reads of an ordered one-to-many relationship
// (a playlist of M tracks, positions in the tracks' rows), cached beside re-queried.
import Foundation
import ObjectGraph

final class BenchPlaylist: ManagedObject {
    @Managed("name") var name: String?
    @ToMany("tracks") var tracks: [BenchTrack]
}

final class BenchTrack: ManagedObject {
    @Managed("title") var title: String?
    @ToOne("playlist") var playlist: BenchPlaylist?
}

let benchOrderedModel = try! ManagedObjectModel(
    name: "BenchPlaylists", version: 1,
    entities: [
        EntityDescription(
            "Playlist", managedClass: BenchPlaylist.self, attributes: [.string("name")],
            relationships: [.toMany("tracks", destination: "Track", inverse: "playlist", ordered: true)]),
        EntityDescription(
            "Track", managedClass: BenchTrack.self, attributes: [.string("title")],
            relationships: [.toOne("playlist", destination: "Playlist", inverse: "tracks")]),
    ])

func orderedOneToManyBenchmark(members: Int, reads: Int = 100) throws {
    let url = tempStore("ordered")
    defer { removeStore(url) }
    let container = try PersistentContainer(model: benchOrderedModel, store: .file(url))
    container.automaticallyMergesChangesIntoViewContext = false
    let build = container.newBackgroundContext(name: "build")
    let playlistID = try build.performAndWait { () throws -> ObjectID in
        let playlist = build.insert(BenchPlaylist.self)
        playlist.name = "mix"
        for n in 0..<members {
            let track = build.insert(BenchTrack.self)
            track.title = "Track \(n)"
            try playlist.insert(track, at: n / 2, inRelationship: "tracks")
        }
        try build.save()
        build.reset()
        return playlist.objectID
    }
    print("ordered one-to-many: reads of a \(members)-track playlist, \(reads) times; CPU time (wall time)")
    let context = container.newBackgroundContext(name: "bench")
    try context.performAndWait { () throws in
        let playlist = try context.existingObject(with: playlistID) as! BenchPlaylist
        var total = 0
        let (_, uncached) = measure {
            for _ in 0..<reads {
                context.refresh(playlist, mergeChanges: false)
                total += playlist.tracks.count
            }
        }
        let (_, cached) = measure { for _ in 0..<reads { total += playlist.tracks.count } }
        precondition(total == 2 * reads * members)
        printTiming("re-queried on every access (before)", uncached)
        printTiming("cached, invalidated by saved reorders (now)", cached)
    }
    // A reorder saved by another context: the next read sees it (one re-read), then reads are cached again.
    let moved = try build.performAndWait { () throws -> String? in
        let playlist = try build.existingObject(with: playlistID) as! BenchPlaylist
        let last = playlist.tracks.last?.title
        try playlist.moveObject(at: members - 1, to: 0, inRelationship: "tracks")
        try build.save()
        return last
    }
    try context.performAndWait { () throws in
        let playlist = try context.existingObject(with: playlistID) as! BenchPlaylist
        var first: String?
        let (_, afterReorder) = measure {
            for _ in 0..<reads { first = playlist.tracks.first?.title }
        }
        precondition(first == moved, "the reorder was not seen: \(first ?? "none")")
        printTiming("after another context's saved reorder (1 re-read)", afterReorder)
    }
}
