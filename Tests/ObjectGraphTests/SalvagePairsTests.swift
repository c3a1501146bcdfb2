import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Salvage of a damaged store carries many-to-many pairs (join tables) and the positions of
/// ordered one-to-many relationships, not only rows.
@Suite struct SalvagePairsTests {
    /// A store of 60 playlists × 100 songs each (6,000 pairs over several join-table pages), closed.
    func makeStore(_ url: URL) throws -> [Int64: [Int64]] {
        let container = try PersistentContainer(model: PlaylistModel.model, store: .file(url))
        let order = try container.viewContext.performAndWait { () throws -> [Int64: [Int64]] in
            let context = container.viewContext
            let songs = (0..<100).map { n -> Song in
                let song = context.insert(Song.self)
                song.title = "s\(n)"
                return song
            }
            var lists: [Playlist] = []
            for n in 0..<60 {
                let list = context.insert(Playlist.self)
                list.name = "p\(n)"
                list.songs = songs.shuffled()
                lists.append(list)
            }
            try context.save()
            var order: [Int64: [Int64]] = [:]
            for list in lists { order[list.objectID.primaryKey!] = list.songs.map { $0.objectID.primaryKey! } }
            return order
        }
        try container.store.close()
        return order
    }

    @Test func pairsAndPositionsOfASoundStore() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("music.sqlite")
        let order = try makeStore(url)
        let store = try PersistentContainer(model: PlaylistModel.model, store: .file(url)).store
        var skipped: Int64 = 0
        var pairs: [SalvagedPair] = []
        try store.salvagePairs(of: "Playlist", relationship: "songs", chunk: 7, skipped: &skipped, unreadable: { _, _ in }) {
            pairs.append($0)
        }
        #expect(skipped == 0 && pairs.count == 6_000)
        var salvaged: [Int64: [Int64]] = [:]
        for pair in pairs.sorted(by: { ($0.objectKey, $0.position) < ($1.objectKey, $1.position) }) {
            salvaged[pair.objectKey, default: []].append(pair.memberKey)
        }
        #expect(salvaged == order)
        // From the other side: the same pairs, turned round, without positions (that side is not ordered).
        var inverse: [SalvagedPair] = []
        try store.salvagePairs(of: "Song", relationship: "playlists", skipped: &skipped, unreadable: { _, _ in }) {
            inverse.append($0)
        }
        #expect(
            Set(inverse.map { "\($0.memberKey)/\($0.objectKey)/\($0.position)" })
                == Set(pairs.map { "\($0.objectKey)/\($0.memberKey)/0" }))
        #expect(
            throws: ObjectGraphError.typeMismatch(
                entity: "Playlist", key: "name", expected: "many-to-many relationship", got: "another kind")
        ) {
            try store.salvagePairs(of: "Playlist", relationship: "name", skipped: &skipped, unreadable: { _, _ in }) { _ in }
        }
    }

    @Test func pairsOnADamagedPageAreSkippedAndTheRestRead() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("music.sqlite")
        let order = try makeStore(url)
        let damaged = try damageOneLeaf(of: "Z_JOIN_Playlist_songs", in: url)
        #expect(damaged > 0)
        let store = try PersistentContainer(model: PlaylistModel.model, store: .file(url)).store
        var skipped: Int64 = 0
        var reported: [ClosedRange<Int64>] = []
        var pairs: [SalvagedPair] = []
        try store.salvagePairs(
            of: "Playlist", relationship: "songs", chunk: 8, skipped: &skipped, unreadable: { keys, _ in reported.append(keys) }
        ) { pairs.append($0) }
        #expect(skipped > 0 && !reported.isEmpty)
        // A playlist whose pairs straddle the damaged page is lost; the others come back whole and in order.
        var salvaged: [Int64: [Int64]] = [:]
        for pair in pairs.sorted(by: { ($0.objectKey, $0.position) < ($1.objectKey, $1.position) }) {
            salvaged[pair.objectKey, default: []].append(pair.memberKey)
        }
        let lost = Set(order.keys).subtracting(salvaged.keys)
        #expect(!lost.isEmpty && lost.count <= order.count / 2, "lost \(lost.sorted())")
        for (list, members) in salvaged { #expect(members == order[list], "playlist \(list)") }
        #expect(reported.allSatisfy { range in lost.contains { range.contains($0) } })
    }

    @Test func positionsOfAnOrderedOneToManyAreSalvaged() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("todo.sqlite")
        let container = try PersistentContainer(model: TodoModel.model, store: .file(url))
        try container.viewContext.performAndWait { () throws in
            let context = container.viewContext
            let list = context.insert(TodoList.self)
            list.name = "home"
            for title in ["a", "b", "c"] {
                let task = context.insert(TodoTask.self)
                task.title = title
                try list.insert(task, at: 0, inRelationship: "tasks")
            }
            try context.save()
        }
        var skipped: Int64 = 0
        var positions: [String: Int64] = [:]
        try container.store.salvageObjects(of: "TodoTask", skipped: &skipped, unreadable: { _, _ in }) { object in
            if case .string(let title)? = object.values["title"], case .integer(let position)? = object.values["Z_FOK_list"] {
                positions[title] = position
            }
        }
        #expect(positions == ["c": 0, "b": 1, "a": 2])
    }

    /// Overwrites the header of one leaf page in the middle of `table`'s B-tree (found from its
    /// root page), as a bad sector would; returns the page's number.
    func damageOneLeaf(of table: String, in url: URL) throws -> Int {
        let root = try DatabaseQueue(path: url.path).read { db in
            try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table])
        }
        var data = try Data(contentsOf: url)
        let rawSize = Int(data[16]) << 8 | Int(data[17])
        let pageSize = rawSize == 1 ? 65_536 : rawSize
        func u16(_ offset: Int) -> Int { Int(data[offset]) << 8 | Int(data[offset + 1]) }
        func u32(_ offset: Int) -> Int { u16(offset) << 16 | u16(offset + 2) }
        var leaves: [Int] = []
        var pending = [try #require(root)]
        while let page = pending.popLast() {
            let start = (page - 1) * pageSize
            switch data[start] {
            case 0x02:  // interior index page: cells begin with their left child's page number
                for cell in 0..<u16(start + 3) { pending.append(u32(start + u16(start + 12 + 2 * cell))) }
                pending.append(u32(start + 8))
            case 0x0A:
                leaves.append(page)
            default:
                Issue.record("page \(page) of \(table) is of type \(data[start])")
            }
        }
        #expect(leaves.count >= 3, "the join table should span several pages")
        let victim = leaves.sorted()[leaves.count / 2]
        let start = (victim - 1) * pageSize
        data.replaceSubrange(start..<(start + 3), with: [0x07, 0xFF, 0xFF])
        try data.write(to: url)
        return victim
    }
}
