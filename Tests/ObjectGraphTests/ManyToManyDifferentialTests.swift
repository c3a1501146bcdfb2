import Foundation
import GRDB
import Testing

@testable import ObjectGraph

/// Random operations on a many-to-many relationship in two contexts, checked after every step
/// against what each context must show:
/// - context B (no undo) against a reference: the store's pairs with B's own unsaved pair
///   changes, insertions and deletions applied (kept by the test as it acts);
/// - context A (with undo) against its own history: an undo shows the state before the
///   undone step again, a redo the state after it;
/// - in both, each side of every pair agrees with the other, and a fetch whose predicate
///   crosses the join table (SQL for stored rows, memory for changed ones) finds exactly the
///   members the relationship holds;
/// - after every save, the store holds exactly what the saving context showed.
@Suite struct ManyToManyDifferentialTests {
    struct View: Equatable, CustomStringConvertible {
        var posts: Set<String> = []
        var tags: Set<String> = []
        var pairs: Set<String> = []
        var description: String { "posts \(posts.sorted()) tags \(tags.sorted()) pairs \(pairs.sorted())" }
    }

    /// What `context` shows, checking on the way that both sides agree and that fetches agree.
    /// Only objects that exist are considered: the store's rows and the context's insertions
    /// (a context still shows an object it changed after another context deleted it, until it
    /// merges that save, as for any other change).
    func view(of context: ManagedObjectContext, _ step: String) throws -> View {
        let stored = try storeView(context.container)
        return try context.performAndWait { () throws -> View in
            let inserted = Set(context.insertedObjects.map(\.object.objectID))
            func exists(_ object: ManagedObject, _ name: String, _ names: Set<String>) -> Bool {
                inserted.contains(object.objectID) || (names.contains(name) && !object.objectID.isTemporary)
            }
            let posts = try context.fetch(FetchRequest<Post>()).filter { exists($0, $0.title, stored.posts) }
            let tags = try context.fetch(FetchRequest<Tag>()).filter { exists($0, $0.name, stored.tags) }
            var view = View(posts: Set(posts.map(\.title)), tags: Set(tags.map(\.name)))
            for post in posts {
                for tag in post.tags where view.tags.contains(tag.name) { view.pairs.insert("\(post.title)/\(tag.name)") }
            }
            var inverse = Set<String>()
            for (n, tag) in tags.enumerated() {
                let members = tag.posts.filter { view.posts.contains($0.title) }
                for post in members { inverse.insert("\(post.title)/\(tag.name)") }
                if n >= 3 { continue }  // a few fetches per view keep the test quick
                let predicate = try ObjectPredicate(format: "ANY tags == %@", tag.objectID)
                let fetched = try context.fetch(FetchRequest<Post>(predicate: predicate)).filter {
                    view.posts.contains($0.title)
                }
                #expect(Set(fetched.map(\.title)) == Set(members.map(\.title)), "\(step): fetch of \(tag.name)'s posts")
            }
            #expect(inverse == view.pairs, "\(step): the two sides disagree")
            return view
        }
    }

    func storeView(_ container: PersistentContainer) throws -> View {
        try container.store.database.read { db in
            View(
                posts: Set(try String.fetchAll(db, sql: "SELECT title FROM Post")),
                tags: Set(try String.fetchAll(db, sql: "SELECT name FROM Tag")),
                pairs: Set(
                    try String.fetchAll(
                        db,
                        sql: """
                            SELECT p.title || '/' || t.name FROM "Z_JOIN_Post_tags" j
                            JOIN Post p ON p.Z_PK = j.Z_SOURCE JOIN Tag t ON t.Z_PK = j.Z_TARGET
                            """)))
        }
    }

    /// B's unsaved changes, as the test made them.
    struct Reference {
        var pairs: [String: Bool] = [:]
        var insertedPosts: Set<String> = []
        var insertedTags: Set<String> = []
        var deletedPosts: Set<String> = []
        var deletedTags: Set<String> = []

        func expected(from store: View) -> View {
            var view = View(
                posts: store.posts.union(insertedPosts).subtracting(deletedPosts),
                tags: store.tags.union(insertedTags).subtracting(deletedTags))
            var pairs = store.pairs
            for (pair, isMember) in self.pairs {
                if isMember { pairs.insert(pair) } else { pairs.remove(pair) }
            }
            view.pairs = pairs.filter { pair in
                let parts = pair.split(separator: "/").map(String.init)
                return view.posts.contains(parts[0]) && view.tags.contains(parts[1])
            }
            return view
        }
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomOperationsMatchTheReference(seed: UInt64) throws {
        var rng = PredicateRandomGenerator(seed: seed)  // SplitMix64, in PredicateTestSupport.swift
        let container = try ManyToManyModel.container()
        container.automaticallyMergesChangesIntoViewContext = false
        let a = container.newContext(queue: DispatchQueue(label: "A"), name: "A")
        a.undoManager = ContextUndoManager()
        a.undoManager?.levelsOfUndo = 0
        a.mergePolicy = .storeTrumps
        let b = container.newContext(queue: DispatchQueue(label: "B"), name: "B")
        b.mergePolicy = .objectTrumps
        let saves = Recorder<DidSaveNotification>()
        let token = container.bus.observeDidSave { saves.append($0) }
        defer { token.cancel() }
        var delivered = 0
        var counter = 0
        var reference = Reference()
        var history: [View] = [try view(of: a, "start")]
        var redoHistory: [View] = []

        for step in 0..<200 {
            let context = Int.random(in: 0..<2, using: &rng) == 0 ? a : b
            let op = Int.random(in: 0..<100, using: &rng)
            var description = "seed \(seed) step \(step) \(context.name!) op \(op)"
            let before = try view(of: context, description + " (before)")
            var changedByA = false
            var savedB = false
            var saved = false
            try context.performAndWait { () throws in
                let posts = try context.fetch(FetchRequest<Post>(sortDescriptors: [ObjectSortDescriptor("title")]))
                let tags = try context.fetch(FetchRequest<Tag>(sortDescriptors: [ObjectSortDescriptor("name")]))
                switch op {
                case 0..<8:
                    counter += 1
                    let post = context.insert(Post.self)
                    post.title = "p\(counter)"
                    if context === b { reference.insertedPosts.insert(post.title) }
                    changedByA = true
                    description += " insert \(post.title)"
                case 8..<16:
                    counter += 1
                    let tag = context.insert(Tag.self)
                    tag.name = "t\(counter)"
                    if context === b { reference.insertedTags.insert(tag.name) }
                    changedByA = true
                    description += " insert \(tag.name)"
                case 16..<40:
                    guard let post = posts.randomElement(using: &rng), let tag = tags.randomElement(using: &rng) else { return }
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: try post.add(tag, toRelationship: "tags")
                    case 1: try tag.add(post, toRelationship: "posts")
                    default: post.tags = post.tags + [tag]
                    }
                    let pair = "\(post.title)/\(tag.name)"
                    if context === b { reference.pairs[pair] = true }
                    changedByA = !before.pairs.contains(pair)
                    description += " add \(pair)"
                case 40..<58:
                    guard let post = posts.filter({ !$0.tags.isEmpty }).randomElement(using: &rng),
                        let tag = post.tags.randomElement(using: &rng)
                    else { return }
                    switch Int.random(in: 0..<3, using: &rng) {
                    case 0: try post.remove(tag, fromRelationship: "tags")
                    case 1: try tag.remove(post, fromRelationship: "posts")
                    default: tag.posts = tag.posts.filter { $0 !== post }
                    }
                    let pair = "\(post.title)/\(tag.name)"
                    if context === b { reference.pairs[pair] = false }
                    changedByA = true
                    description += " remove \(pair)"
                case 58..<64:
                    guard let post = posts.randomElement(using: &rng) else { return }
                    context.delete(post)
                    if context === b { reference.deletedPosts.insert(post.title) }
                    changedByA = true
                    description += " delete \(post.title)"
                case 64..<70:
                    guard let tag = tags.randomElement(using: &rng) else { return }
                    context.delete(tag)
                    if context === b { reference.deletedTags.insert(tag.name) }
                    changedByA = true
                    description += " delete \(tag.name)"
                case 70..<85:
                    do {
                        try context.save()
                        description += " save"
                        saved = true
                        savedB = context === b
                    } catch {
                        context.rollback()
                        description += " save failed (\(error)), rolled back"
                    }
                case 85..<88:
                    context.rollback()
                    description += " rollback"
                case 88..<95:
                    if context === a, a.undo() { description += " undo" }
                case 95..<98:
                    if context === a, a.redo() { description += " redo" }
                default:
                    break
                }
            }
            if ProcessInfo.processInfo.environment["OG_TRACE"] != nil { print(description) }
            let after = try view(of: context, description)
            if saved {
                // The store now holds exactly what the saving context showed.
                #expect(try storeView(container) == before, "\(description): store after the save")
            }
            if context === b {
                if description.hasSuffix(" save") || description.contains("rolled back") || description.hasSuffix(" rollback") {
                    reference = Reference()
                }
                let expected = reference.expected(from: try storeView(container))
                #expect(after == expected, "\(description): B shows \(after), the reference \(expected)")
                if after != expected { return }
                // B's save changes what A reads from the store: A's history no longer applies.
                if savedB {
                    history = [try view(of: a, description)]
                    redoHistory = []
                }
            } else {
                if description.hasSuffix(" undo") {
                    if history.count >= 2 {
                        redoHistory.append(history.removeLast())
                        #expect(after == history.last!, "\(description): undo shows \(after), expected \(history.last!)")
                    } else {
                        history = [after]
                        redoHistory = []
                    }
                } else if description.hasSuffix(" redo") {
                    if let next = redoHistory.popLast() {
                        #expect(after == next, "\(description): redo shows \(after), expected \(next)")
                        history.append(next)
                    } else {
                        history = [after]
                    }
                } else if description.contains("rollback") || description.contains("rolled back") {
                    history = [after]
                    redoHistory = []
                } else if changedByA && after != before {
                    history.append(after)
                    redoHistory = []
                }
            }
            // Deliver saves to the other context now and then (merges arrive late).
            if Int.random(in: 0..<3, using: &rng) == 0 {
                let pending = saves.all.dropFirst(delivered)
                delivered = saves.all.count
                for note in pending {
                    for target in [a, b] where ObjectIdentifier(target) != note.contextID {
                        target.performAndWait { target.mergeChanges(fromDidSave: note) }
                    }
                    if note.contextID != ObjectIdentifier(a) {
                        history = [try view(of: a, description + " (merged)")]
                        redoHistory = []
                    }
                }
                let expected = reference.expected(from: try storeView(container))
                #expect(try view(of: b, description + " (merged)") == expected, "\(description): B after merging")
            }
        }
    }
}
