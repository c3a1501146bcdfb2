import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Many-to-many members are cached like one-to-many ones and prefetched in one query. Pairs
/// removed behind ObjectGraph's back (plain SQL, announced to no one) show whether a read came
/// from the cache.
@Suite struct ManyToManyPrefetchTests {
    /// Posts p0…p3; p0 and p1 tagged a and b, p2 tagged b, p3 untagged.
    func populated() throws -> PersistentContainer {
        let container = try ManyToManyModel.container()
        try container.viewContext.performAndWait { () throws in
            let ctx = container.viewContext
            let tags = ["a", "b"].map { name -> Tag in
                let tag = ctx.insert(Tag.self)
                tag.name = name
                return tag
            }
            for n in 0..<4 {
                let post = ctx.insert(Post.self)
                post.title = "p\(n)"
                post.tags = n < 2 ? tags : n == 2 ? [tags[1]] : []
            }
            try ctx.save()
        }
        return container
    }

    func removeEveryPairBehindTheBack(_ container: PersistentContainer) throws {
        try container.store.writer.write { db in try db.execute(sql: "DELETE FROM \"Z_JOIN_Post_tags\"") }
    }

    @Test func prefetchReadsEveryObjectsMembersInOneQuery() throws {
        let container = try populated()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            var request = FetchRequest<Post>(sortDescriptors: [ObjectSortDescriptor("title")])
            request.relationshipKeyPathsForPrefetching = ["tags"]
            let posts = try ctx.fetch(request)
            try removeEveryPairBehindTheBack(container)
            #expect(posts.map { names($0.tags) } == [["a", "b"], ["a", "b"], ["b"], []], "all came with the fetch")
            #expect(posts[0].tags.allSatisfy { !$0.isFault })
            // Unsaved changes apply on top of the prefetched members.
            let tag = posts[2].tags[0]
            try posts[3].add(tag, toRelationship: "tags")
            #expect(names(posts[3].tags) == ["b"])
        }
    }

    @Test func aSaveChangingPairsInvalidatesTheCache() throws {
        let container = try populated()
        let ctx = container.viewContext
        let other = container.newBackgroundContext()
        let posts = try ctx.performAndWait { () throws in
            let posts = try ctx.fetch(FetchRequest<Post>(sortDescriptors: [ObjectSortDescriptor("title")]))
            try ctx.prefetch(["tags"], for: posts)
            #expect(names(posts[2].tags) == ["b"])
            return posts
        }
        // Another context pairs p2 with a: both tables' stamps move, so p2 reads the store again
        // (which, behind the back, has lost the other pairs meanwhile).
        try removeEveryPairBehindTheBack(container)
        try other.performAndWait { () throws in
            let post = try other.fetch(FetchRequest<Post>(predicate: try ObjectPredicate(format: "title == 'p2'")))[0]
            let tag = try other.fetch(FetchRequest<Tag>(predicate: try ObjectPredicate(format: "name == 'a'")))[0]
            try post.add(tag, toRelationship: "tags")
            try other.save()
        }
        ctx.performAndWait {
            #expect(names(posts[2].tags) == ["a"])
            // The stamps are per table: every post reads the store again after that save.
            #expect(names(posts[0].tags) == [])
        }
    }

    @Test func prefetchKeepsAnOrderedSidesOrder() throws {
        let container = try PersistentContainer(model: PlaylistModel.model, store: .inMemory)
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let list = ctx.insert(Playlist.self)
            list.name = "Mix"
            let songs = ["a", "b", "c"].map { title -> Song in
                let song = ctx.insert(Song.self)
                song.title = title
                return song
            }
            list.songs = [songs[2], songs[0], songs[1]]
            try ctx.save()
            ctx.reset()
            var request = FetchRequest<Playlist>()
            request.relationshipKeyPathsForPrefetching = ["songs"]
            let fetched = try ctx.fetch(request)
            try container.store.writer.write { db in try db.execute(sql: "DELETE FROM \"Z_JOIN_Playlist_songs\"") }
            #expect(titles(fetched[0].songs) == ["c", "a", "b"])
        }
    }
}
