import Foundation
import GRDB
import Testing

@testable import ObjectGraph

final class Post: ManagedObject {
    @Managed("title") var title: String
    @ToMany("tags") var tags: [Tag]
    @ToMany("pinnedBy") var pinnedBy: [Reader]
}

final class Tag: ManagedObject {
    @Managed("name") var name: String
    @ToMany("posts") var posts: [Post]
}

final class Reader: ManagedObject {
    @Managed("name") var name: String
    /// Deleting a reader deletes the posts it pinned (cascade); a post refuses deletion
    /// while readers pin it (deny).
    @ToMany("pinned") var pinned: [Post]
}

enum ManyToManyModel {
    static func entities(postTags: DeleteRule = .nullify) -> [EntityDescription] {
        [
            EntityDescription(
                "Post", managedClass: Post.self, attributes: [.string("title", optional: false)],
                relationships: [
                    .toMany("tags", destination: "Tag", inverse: "posts", deleteRule: postTags),
                    .toMany("pinnedBy", destination: "Reader", inverse: "pinned", deleteRule: .deny),
                ]),
            EntityDescription(
                "Tag", managedClass: Tag.self, attributes: [.string("name", optional: false)],
                relationships: [.toMany("posts", destination: "Post", inverse: "tags")]),
            EntityDescription(
                "Reader", managedClass: Reader.self, attributes: [.string("name", optional: false)],
                relationships: [.toMany("pinned", destination: "Post", inverse: "pinnedBy", deleteRule: .cascade)]),
        ]
    }

    static let model = try! ManagedObjectModel(name: "Blog", version: 1, entities: entities())

    static func container(_ location: StoreLocation = .inMemory) throws -> PersistentContainer {
        try PersistentContainer(model: model, store: location)
    }

    /// The join table's rows as (post title, tag name) pairs, sorted.
    static func storedPairs(_ container: PersistentContainer) throws -> [String] {
        try container.store.database.read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT p.title || '/' || t.name FROM "Z_JOIN_Post_tags" j
                    JOIN Post p ON p.Z_PK = j.Z_SOURCE JOIN Tag t ON t.Z_PK = j.Z_TARGET ORDER BY 1
                    """)
        }
    }
}

/// `post.tags` as sorted names.
func names(_ tags: [Tag]) -> [String] { tags.map(\.name).sorted() }
func titles(_ posts: [Post]) -> [String] { posts.map(\.title).sorted() }

@Suite struct ManyToManyTests {
    @Test func removingByKeyPathIsRemovingByName() throws {
        let container = try ManyToManyModel.container()
        let ctx = container.viewContext
        try ctx.performAndWait { () throws in
            let post = ctx.insert(Post.self)
            post.title = "p"
            let tags = (0..<3).map { n in
                let tag = ctx.insert(Tag.self)
                tag.name = "t\(n)"
                return tag
            }
            for tag in tags { try post.add(tag, toRelationship: "tags") }
            try post.remove(tags[0], from: \.tags)
            try post.remove(tags[1], fromRelationship: "tags")
            #expect(post.tags.map(\.name) == ["t2"] && tags[0].posts.isEmpty && tags[1].posts.isEmpty)
            try ctx.save()
        }
        let folders = try TestModel.container()
        let view = folders.viewContext
        try view.performAndWait { () throws in
            let folder = view.insert(Folder.self)
            folder.name = "A"
            let notes = (0..<2).map { _ in view.insert(Note.self) }
            for note in notes { note.folder = folder }
            try folder.remove(notes[0], from: \.notes)
            #expect(notes[0].folder == nil && folder.notes.map(\.objectID) == [notes[1].objectID])
        }
    }

    @Test func modelChecksManyToManyRelationships() throws {
        #expect(ManyToManyModel.model.schemaDescription.contains("join Z_JOIN_Post_pinnedBy Post.pinnedBy -> Reader"))
        #expect(ManyToManyModel.model.schemaDescription.contains("join Z_JOIN_Post_tags Post.tags -> Tag"))
        // Its own inverse: refused with advice.
        final class Person2: ManagedObject {}
        #expect(
            throws: ModelError(
                message:
                    "Person.friends: a many-to-many relationship cannot be its own inverse; declare two (e.g. 'following' and 'followers')"
            )
        ) {
            try ManagedObjectModel(
                name: "X", version: 1,
                entities: [
                    EntityDescription(
                        "Person", relationships: [.toMany("friends", destination: "Person", inverse: "friends")])
                ])
        }
        // Two relationships of one entity are fine (following/followers).
        let social = try ManagedObjectModel(
            name: "X", version: 1,
            entities: [
                EntityDescription(
                    "Person", attributes: [.string("name")],
                    relationships: [
                        .toMany("following", destination: "Person", inverse: "followers"),
                        .toMany("followers", destination: "Person", inverse: "following"),
                    ])
            ])
        #expect(social.schemaDescription.contains("join Z_JOIN_Person_followers Person.followers -> Person"))
        // A derived count over a many-to-many relationship is accepted (ManyToManyCountTests).
        var tag = ManyToManyModel.entities()[1]
        tag.attributes.append(.derivedCount("postCount", of: "posts"))
        let counted = try ManagedObjectModel(
            name: "X", version: 1, entities: [ManyToManyModel.entities()[0], tag, ManyToManyModel.entities()[2]])
        #expect(counted.entities[1].counters.first?.manyToManyRelationshipIndex != nil)
    }

    @Test func joinTableIsCreatedAndKeptInStepWithBothSides() throws {
        let container = try ManyToManyModel.container()
        let context = container.viewContext
        let columns = try container.store.database.read { db in
            try Row.fetchAll(db, sql: "PRAGMA table_info(\"Z_JOIN_Post_tags\")").map { $0["name"] as String }
        }
        #expect(columns == ["Z_SOURCE", "Z_TARGET", "Z_ORDER"])
        try context.performAndWait { () throws in
            let post = context.insert(Post.self)
            post.title = "Hello"
            let swift = context.insert(Tag.self)
            swift.name = "swift"
            let linux = context.insert(Tag.self)
            linux.name = "linux"
            try post.add(swift, toRelationship: "tags")
            try linux.add(post, toRelationship: "posts")  // from the other side
            try post.add(swift, toRelationship: "tags")  // again: no change
            #expect(names(post.tags) == ["linux", "swift"])
            #expect(titles(swift.posts) == ["Hello"] && titles(linux.posts) == ["Hello"])
            #expect(post.hasChanges && swift.hasChanges)
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container) == ["Hello/linux", "Hello/swift"])
            #expect(!context.hasChanges)
            // Removing through the property: a plain array assignment.
            post.tags = [linux]
            #expect(names(post.tags) == ["linux"] && swift.posts.isEmpty)
            #expect(post.isUpdated && swift.isUpdated && !linux.isUpdated)
            #expect(try ManyToManyModel.storedPairs(container) == ["Hello/linux", "Hello/swift"])  // not saved yet
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container) == ["Hello/linux"])
        }
        // Another context reads the pairs from the store.
        let other = container.newBackgroundContext()
        try other.performAndWait { () throws in
            let tags = try other.fetch(FetchRequest<Tag>(sortDescriptors: [ObjectSortDescriptor("name")]))
            #expect(tags.map { titles($0.posts) } == [["Hello"], []])
        }
    }

    @Test func refreshWithoutMergingDropsUnsavedPairs() throws {
        let container = try ManyToManyModel.container()
        let context = container.viewContext
        try context.performAndWait { () throws in
            let post = context.insert(Post.self)
            post.title = "P"
            let t = context.insert(Tag.self)
            t.name = "t"
            let u = context.insert(Tag.self)
            u.name = "u"
            post.tags = [t]
            try context.save()
            post.tags = [u]
            context.refresh(post, mergeChanges: false)
            #expect(names(post.tags) == ["t"] && u.posts.isEmpty && titles(t.posts) == ["P"])
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container) == ["P/t"])
        }
    }

    @Test func wrongDestinationAndForeignContextAreRefused() throws {
        let container = try ManyToManyModel.container()
        let context = container.viewContext
        let other = container.newBackgroundContext()
        try context.performAndWait { () throws in
            let post = context.insert(Post.self)
            post.title = "P"
            let reader = context.insert(Reader.self)
            reader.name = "R"
            #expect(
                throws: ObjectGraphError.typeMismatch(entity: "Post", key: "tags", expected: "Tag", got: "Reader")
            ) { try post.add(reader, toRelationship: "tags") }
            let foreign = other.performAndWait { () -> Tag in
                let t = other.insert(Tag.self)
                t.name = "x"
                return t
            }
            #expect(throws: ObjectGraphError.self) { try post.add(foreign, toRelationship: "tags") }
        }
    }

    @Test func deleteRulesNullifyCascadeAndDeny() throws {
        let container = try ManyToManyModel.container()
        let context = container.viewContext
        try context.performAndWait { () throws in
            let a = context.insert(Post.self)
            a.title = "A"
            let b = context.insert(Post.self)
            b.title = "B"
            let t = context.insert(Tag.self)
            t.name = "t"
            let u = context.insert(Tag.self)
            u.name = "u"
            a.tags = [t, u]
            b.tags = [t]
            let reader = context.insert(Reader.self)
            reader.name = "R"
            try context.save()

            // Nullify: deleting tag t removes its pairs; the posts are marked changed.
            context.delete(t)
            #expect(names(a.tags) == ["u"] && b.tags.isEmpty)
            #expect(a.isUpdated && b.isUpdated)
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container) == ["A/u"])

            // Deny: a pinned post cannot be deleted.
            try reader.add(a, toRelationship: "pinned")
            try context.save()
            context.delete(a)
            #expect(throws: ObjectGraphError.deleteDenied(entity: "Post", relationship: "pinnedBy", count: 1)) {
                try context.save()
            }
            context.rollback()
            #expect(titles(reader.pinned) == ["A"] && names(a.tags) == ["u"])

            // Cascade: deleting the reader deletes the posts it pinned (A), whose own rule
            // (pinnedBy: deny) is satisfied because the reader goes too; A's tags are nullified.
            context.delete(reader)
            #expect(a.isDeleted && !b.isDeleted && u.posts.isEmpty)
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container).isEmpty)
            let pinnedRows = try container.store.database.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"Z_JOIN_Post_pinnedBy\"")
            }
            #expect(pinnedRows == 0)
            #expect(try context.count(for: FetchRequest<Post>()) == 1)
        }
    }

    @Test func undoAndRedoMembershipAndDeletes() throws {
        let container = try ManyToManyModel.container()
        let context = container.viewContext
        context.undoManager = ContextUndoManager()
        try context.performAndWait { () throws in
            let post = context.insert(Post.self)
            post.title = "P"
            let t = context.insert(Tag.self)
            t.name = "t"
            let u = context.insert(Tag.self)
            u.name = "u"
            try context.save()
            context.undoManager?.removeAllActions()

            post.tags = [t, u]
            context.processPendingChanges()
            try post.remove(u, fromRelationship: "tags")
            context.processPendingChanges()
            #expect(names(post.tags) == ["t"])
            context.undo()
            #expect(names(post.tags) == ["t", "u"] && titles(u.posts) == ["P"])
            context.undo()
            #expect(post.tags.isEmpty && t.posts.isEmpty)
            context.redo()
            #expect(names(post.tags) == ["t", "u"])
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container) == ["P/t", "P/u"])

            // Undo after the save makes new unsaved changes, as for other relationships.
            context.undo()
            #expect(post.tags.isEmpty)
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container).isEmpty)
            context.redo()
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container) == ["P/t", "P/u"])

            // Undoing a delete brings the object and its pairs back.
            context.delete(t)
            context.processPendingChanges()
            #expect(names(post.tags) == ["u"])
            context.undo()
            #expect(!t.isDeleted && names(post.tags) == ["t", "u"] && titles(t.posts) == ["P"])
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container) == ["P/t", "P/u"])

            // An unsaved object, related then deleted, comes back related.
            let fresh = context.insert(Tag.self)
            fresh.name = "fresh"
            try post.add(fresh, toRelationship: "tags")
            context.processPendingChanges()
            context.delete(fresh)
            context.processPendingChanges()
            #expect(names(post.tags) == ["t", "u"])
            context.undo()
            #expect(names(post.tags) == ["fresh", "t", "u"])
            try context.save()
            #expect(try ManyToManyModel.storedPairs(container) == ["P/fresh", "P/t", "P/u"])
        }
    }

    @Test func savesMergeIntoOtherContextsWithTheChangedKeys() throws {
        let container = try ManyToManyModel.container()
        container.automaticallyMergesChangesIntoViewContext = false
        let view = container.viewContext
        let background = container.newBackgroundContext()
        let (postID, tagID) = try view.performAndWait { () throws -> (ObjectID, ObjectID) in
            let post = view.insert(Post.self)
            post.title = "P"
            let tag = view.insert(Tag.self)
            tag.name = "t"
            try view.save()
            return (post.objectID, tag.objectID)
        }
        // The view context holds the objects (and has read their empty relationships).
        let (post, tag) = try view.performAndWait { () throws -> (Post, Tag) in
            let post = try view.existingObject(with: postID) as! Post
            let tag = try view.existingObject(with: tagID) as! Tag
            #expect(post.tags.isEmpty)
            return (post, tag)
        }
        let changes = Recorder<ChangeSummary>()
        let merged = container.bus.observeObjectsDidChange(in: view) { changes.append(summarize($0)) }
        let didSave = container.bus.observeDidSave(excluding: view) { note in
            view.performAndWait { view.mergeChanges(fromDidSave: note) }
        }
        defer {
            merged.cancel()
            didSave.cancel()
        }
        try background.performAndWait { () throws in
            let p = try background.existingObject(with: postID) as! Post
            let t = try background.existingObject(with: tagID) as! Tag
            try p.add(t, toRelationship: "tags")
            try background.save()
        }
        #expect(changes.all.last == ChangeSummary(updated: ["Post", "Tag"], keys: ["posts", "tags"], isMerge: true))
        view.performAndWait {
            #expect(names(post.tags) == ["t"] && titles(tag.posts) == ["P"])
            #expect(!view.hasChanges)
        }
    }

    @Test func predicatesCrossTheJoinTableInSQLAndInMemory() throws {
        let container = try ManyToManyModel.container()
        let context = container.viewContext
        try context.performAndWait { () throws in
            let tags = (0..<3).map { i -> Tag in
                let t = context.insert(Tag.self)
                t.name = "t\(i)"
                return t
            }
            for (i, title) in ["none", "one", "two", "three"].enumerated() {
                let post = context.insert(Post.self)
                post.title = title
                post.tags = Array(tags.prefix(i))
            }
            try context.save()
            func fetch(_ format: String, _ args: any PredicateArgument...) throws -> [String] {
                let predicate = try ObjectPredicate(format: format, argumentArray: args.map { $0 })
                return titles(try context.fetch(FetchRequest<Post>(predicate: predicate)))
            }
            #expect(try fetch("tags.@count == 2") == ["two"])
            #expect(try fetch("ANY tags.name == 't2'") == ["three"])
            #expect(try fetch("ANY tags == %@", tags[1].objectID) == ["three", "two"])
            #expect(try fetch("NONE tags.name BEGINSWITH 't'") == ["none"])
            #expect(try fetch("ALL tags.name != 't2'") == ["none", "one", "two"])
            #expect(try fetch("ANY tags.name IN %@", ["t1", "t2"]) == ["three", "two"])
            let tagNames = try context.fetch(
                FetchRequest<Tag>(predicate: try ObjectPredicate(format: "ANY posts.title == 'one'")))
            #expect(names(tagNames) == ["t0"])
            // Unsaved membership changes count too (the changed objects are judged in memory).
            let none = try context.fetch(FetchRequest<Post>(predicate: try ObjectPredicate(format: "title == 'none'")))[0]
            try none.add(tags[2], toRelationship: "tags")
            #expect(try fetch("ANY tags.name == 't2'") == ["none", "three"])
            #expect(try fetch("tags.@count == 1") == ["none", "one"])
        }
    }

    @Test func childContextPushesMembershipIntoItsParent() throws {
        let container = try ManyToManyModel.container()
        let view = container.viewContext
        let (postID, tagID) = try view.performAndWait { () throws -> (ObjectID, ObjectID) in
            let post = view.insert(Post.self)
            post.title = "P"
            let tag = view.insert(Tag.self)
            tag.name = "t"
            try view.save()
            return (post.objectID, tag.objectID)
        }
        let sheet = view.newChildContext()
        try sheet.performAndWait { () throws in
            let post = try sheet.existingObject(with: postID) as! Post
            let tag = try sheet.existingObject(with: tagID) as! Tag
            let fresh = sheet.insert(Tag.self)
            fresh.name = "fresh"
            post.tags = [tag, fresh]
            try sheet.save()
        }
        try view.performAndWait { () throws in
            let post = try view.existingObject(with: postID) as! Post
            #expect(names(post.tags) == ["fresh", "t"])
            #expect(view.hasChanges)
            #expect(try ManyToManyModel.storedPairs(container).isEmpty)
            try view.save()
        }
        #expect(try ManyToManyModel.storedPairs(container) == ["P/fresh", "P/t"])
    }

    @Test func batchDeleteAppliesTheRules() throws {
        let container = try ManyToManyModel.container()
        let context = container.viewContext
        try context.performAndWait { () throws in
            let post = context.insert(Post.self)
            post.title = "P"
            let kept = context.insert(Post.self)
            kept.title = "K"
            let tag = context.insert(Tag.self)
            tag.name = "t"
            post.tags = [tag]
            kept.tags = [tag]
            let reader = context.insert(Reader.self)
            reader.name = "R"
            try reader.add(post, toRelationship: "pinned")
            try context.save()
            // Deny: a pinned post is not batch-deleted.
            #expect(throws: ObjectGraphError.deleteDenied(entity: "Post", relationship: "pinnedBy", count: 1)) {
                try context.execute(
                    BatchDeleteRequest(entityName: "Post", predicate: try ObjectPredicate(format: "title == 'P'")))
            }
            // Cascade: the reader takes its pinned post along; the post's pairs go.
            context.undoManager = ContextUndoManager()
            try context.execute(BatchDeleteRequest(entityName: "Reader", predicate: nil))
            #expect(try context.count(for: FetchRequest<Post>()) == 1)
            #expect(try ManyToManyModel.storedPairs(container) == ["K/t"])
            // Undo brings rows and pairs back; redo removes them again.
            context.undo()
            #expect(context.undoManager?.lastError == nil)
            #expect(try ManyToManyModel.storedPairs(container) == ["K/t", "P/t"])
            let pinned = try context.fetch(FetchRequest<Reader>())[0].pinned
            #expect(pinned.map(\.title) == ["P"])
            context.redo()
            #expect(try ManyToManyModel.storedPairs(container) == ["K/t"])
        }
    }
}

@Suite struct ManyToManyMigrationTests {
    static let v1 = try! ManagedObjectModel(
        name: "Blog", version: 1,
        entities: [
            EntityDescription("Post", attributes: [.string("title", optional: false)]),
            EntityDescription("Tag", attributes: [.string("name", optional: false)]),
        ])
    /// v2 adds a many-to-many relationship: additive, inferred.
    static let v2 = try! ManagedObjectModel(
        name: "Blog", version: 2,
        entities: [
            EntityDescription(
                "Post", attributes: [.string("title", optional: false)],
                relationships: [.toMany("tags", destination: "Tag", inverse: "posts")]),
            EntityDescription(
                "Tag", attributes: [.string("name", optional: false)],
                relationships: [.toMany("posts", destination: "Post", inverse: "tags")]),
        ])
    /// v3 renames the entity Tag to Label and Post.tags to Post.labels: the join table
    /// changes name (and, Label sorting before Post, owner), its pairs are carried over.
    static let v3 = try! ManagedObjectModel(
        name: "Blog", version: 3,
        entities: [
            EntityDescription(
                "Post", attributes: [.string("title", optional: false)],
                relationships: [
                    RelationshipDescription(
                        name: "labels", destinationEntityName: "Label", inverseName: "posts", isToMany: true,
                        renamingIdentifier: "tags")
                ]),
            EntityDescription(
                "Label", attributes: [.string("name", optional: false)],
                relationships: [
                    RelationshipDescription(
                        name: "posts", destinationEntityName: "Post", inverseName: "labels", isToMany: true)
                ], renamingIdentifier: "Tag"),
        ])

    func string(_ value: Value) -> String {
        if case .string(let s) = value { return s }
        return "?"
    }

    func pairs(_ container: PersistentContainer, _ relationship: String) throws -> [String] {
        let context = container.viewContext
        return try context.performAndWait { () throws in
            var result: [String] = []
            var request = FetchRequest<ManagedObject>(entityName: "Post")
            request.sortDescriptors = [ObjectSortDescriptor("title")]
            for post in try context.fetch(request) {
                for tag in try post.objects(forKey: relationship) {
                    result.append("\(string(post["title"]))/\(string(tag["name"]))")
                }
            }
            return result.sorted()
        }
    }

    @Test func addingAndRenamingManyToManyIsInferred() throws {
        let tmp = TemporaryDirectory()
        let url = tmp.file("blog.sqlite")
        do {
            let container = try PersistentContainer(model: Self.v1, store: .file(url))
            try container.viewContext.performAndWait { () throws in
                for (entity, key, value) in [("Post", "title", "P"), ("Post", "title", "Q"), ("Tag", "name", "t")] {
                    try container.viewContext.insertObject(entityName: entity).setValue(.string(value), forKey: key)
                }
                try container.viewContext.save()
            }
            try container.store.close()
        }
        do {
            let plan = try MigrationPlan(versions: [Self.v1, Self.v2], backupRetention: .remove)
            let container = try PersistentContainer(model: Self.v2, store: .file(url), migrator: plan)
            #expect(try pairs(container, "tags").isEmpty)
            let context = container.viewContext
            try context.performAndWait { () throws in
                var request = FetchRequest<ManagedObject>(entityName: "Post")
                request.sortDescriptors = [ObjectSortDescriptor("title")]
                let posts = try context.fetch(request)
                let tag = try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag"))[0]
                for post in posts { try post.add(tag, toRelationship: "tags") }
                try context.save()
            }
            #expect(try pairs(container, "tags") == ["P/t", "Q/t"])
            try container.store.close()
        }
        let plan = try MigrationPlan(versions: [Self.v1, Self.v2, Self.v3], backupRetention: .remove)
        let container = try PersistentContainer(model: Self.v3, store: .file(url), migrator: plan)
        #expect(try pairs(container, "labels") == ["P/t", "Q/t"])
        let tables = try container.store.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z_JOIN%' ORDER BY 1")
        }
        #expect(tables == ["Z_JOIN_Label_posts"])
        // The inverse reads the same pairs.
        try container.viewContext.performAndWait { () throws in
            let label = try container.viewContext.fetch(FetchRequest<ManagedObject>(entityName: "Label"))[0]
            #expect(try label.objects(forKey: "posts").count == 2)
        }
    }

    @Test func oneToManyBecomingManyToManyIsRefused() throws {
        let before = try ManagedObjectModel(
            name: "Blog", version: 1,
            entities: [
                EntityDescription(
                    "Post", attributes: [.string("title")],
                    relationships: [.toMany("tags", destination: "Tag", inverse: "post")]),
                EntityDescription(
                    "Tag", attributes: [.string("name")], relationships: [.toOne("post", destination: "Post", inverse: "tags")]
                ),
            ])
        let after = try ManagedObjectModel(
            name: "Blog", version: 2,
            entities: [
                EntityDescription(
                    "Post", attributes: [.string("title")],
                    relationships: [.toMany("tags", destination: "Tag", inverse: "posts")]),
                EntityDescription(
                    "Tag", attributes: [.string("name")], relationships: [.toMany("posts", destination: "Post", inverse: "tags")]),
            ])
        let tmp = TemporaryDirectory()
        let url = tmp.file("blog.sqlite")
        do {
            let container = try PersistentContainer(model: before, store: .file(url))
            try container.viewContext.performAndWait { () throws in
                try container.viewContext.insertObject(entityName: "Post").setValue("P", forKey: "title")
                try container.viewContext.save()
            }
            try container.store.close()
        }
        let plan = try MigrationPlan(versions: [before, after], backupRetention: .remove)
        do {
            _ = try PersistentContainer(model: after, store: .file(url), migrator: plan)
            Issue.record("the migration should have been refused")
        } catch {
            #expect("\(error)".contains("relationship 'tags' becomes many-to-many; its pairs cannot be inferred"))
        }
    }
}
