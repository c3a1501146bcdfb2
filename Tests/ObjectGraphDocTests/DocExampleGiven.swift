import Foundation
import GRDB
import ObjectGraph
import Testing

// The context ObjectGraph's doc-comment examples take for granted: the model classes they name
// and the values they use without declaring them ("givens"). scripts/extract-doc-examples.py
// reads the givens below (the stored properties between the two MARK lines) and passes each one
// an example mentions as a parameter of the same name and type; so the example a reader sees
// is exactly the code that compiles. Add a given here (and set it up in `init`) before writing
// an example that needs a new one.

// MARK: - Model classes the examples share

final class Folder: ManagedObject {
    @Managed("name") var name: String
    @Managed("noteCount") var noteCount: Int64
    @ToMany("notes") var notes: [Note]
}

final class Note: ManagedObject {
    @Managed("title") var title: String?
    @Managed("text") var text: String?
    @Managed("read") var read: Bool
    @Managed("rating") var rating: Int64
    @Managed("isPinned") var isPinned: Bool
    @Managed("created") var created: Date?
    @ToOne("folder") var folder: Folder?
}

final class Server: ManagedObject {
    @Managed("url") var url: String
    @Managed("title") var title: String?
    @Managed("displayOrder") var displayOrder: Int64
    @Managed("etag") var etag: String?
    @Managed("unreadCount") var unreadCount: Int64
    @ToMany("feedItems") var feedItems: [FeedItem]
}

final class FeedItem: ManagedObject {
    @Managed("guid") var guid: String?
    @Managed("title") var title: String?
    @Managed("author") var author: String?
    @Managed("content") var content: String?
    @Managed("read") var read: Bool
    @Managed("published") var published: Date?
    @Managed("sortDate") var sortDate: Date?
    @ToOne("server") var server: Server?
}

final class Post: ManagedObject {
    @Managed("title") var title: String?
    @ToMany("tags") var tags: [Tag]
}

final class Tag: ManagedObject {
    @Managed("name") var name: String?
    @ToMany("posts") var posts: [Post]
}

final class Playlist: ManagedObject {
    @Managed("name") var name: String?
    @ToMany("songs") var songs: [Song]
}

final class Song: ManagedObject {
    @Managed("title") var title: String?
    @ToMany("playlists") var playlists: [Playlist]
}

final class Doc: ManagedObject {
    @Managed("uid") var uid: UUID
}

final class ToDo: ManagedObject {
    @Managed("name") var name: String?
    @Managed("doNotAlert") var doNotAlert: Bool
}

struct Layout: Codable, Equatable {
    var columns: Int
    var sort: String
}

final class Feed: ManagedObject {
    @Encoded("layout") var layout: Layout?
}

enum DocExampleModel {
    static func entities() -> [EntityDescription] {
        [
            EntityDescription(
                "Folder", managedClass: Folder.self,
                attributes: [.string("name", optional: false), .integer("noteCount", defaultValue: 0)],
                relationships: [.toMany("notes", destination: "Note", inverse: "folder", deleteRule: .cascade)]),
            EntityDescription(
                "Note", managedClass: Note.self,
                attributes: [
                    .string("title"), .string("text"), .bool("read", defaultValue: false),
                    .integer("rating", defaultValue: 0), .bool("isPinned", defaultValue: false), .date("created"),
                ],
                relationships: [.toOne("folder", destination: "Folder", inverse: "notes")]),
            EntityDescription(
                "Server", managedClass: Server.self,
                attributes: [
                    .string("url", optional: false), .string("title"), .integer("displayOrder", defaultValue: 0),
                    .string("etag"), .derivedCount("unreadCount", of: "feedItems", where: "read == NO"),
                ],
                relationships: [
                    .toMany("feedItems", destination: "FeedItem", inverse: "server", deleteRule: .cascade)
                ],
                uniquenessConstraints: [["url"]]),
            EntityDescription(
                "FeedItem", managedClass: FeedItem.self,
                attributes: [
                    .string("guid"), .string("title"), .string("author"), .string("content"),
                    .bool("read", defaultValue: false), .date("published"), .date("sortDate"),
                ],
                relationships: [.toOne("server", destination: "Server", inverse: "feedItems")],
                fullTextIndex: FullTextIndexDescription(attributes: ["title", "author"])),
            EntityDescription(
                "Post", managedClass: Post.self, attributes: [.string("title")],
                relationships: [.toMany("tags", destination: "Tag", inverse: "posts")]),
            EntityDescription(
                "Tag", managedClass: Tag.self, attributes: [.string("name")],
                relationships: [.toMany("posts", destination: "Post", inverse: "tags")]),
            EntityDescription(
                "Playlist", managedClass: Playlist.self, attributes: [.string("name")],
                relationships: [.toMany("songs", destination: "Song", inverse: "playlists", ordered: true)]),
            EntityDescription(
                "Song", managedClass: Song.self, attributes: [.string("title")],
                relationships: [.toMany("playlists", destination: "Playlist", inverse: "songs")]),
            EntityDescription("Doc", managedClass: Doc.self, attributes: [.string("uid", optional: false)]),
            EntityDescription("Feed", managedClass: Feed.self, attributes: [.string("layout")]),
            EntityDescription(
                "ToDo", managedClass: ToDo.self,
                attributes: [.string("name"), .bool("doNotAlert", defaultValue: false)]),
        ]
    }

    static func model(version: Int) -> ManagedObjectModel {
        // The entities above are a valid model; a failure here is a bug in this file.
        try! ManagedObjectModel(name: "DocExamples", version: version, entities: entities())
    }
}

/// Fresh givens for one example: a store (in memory, or in a new temporary directory) holding a
/// server with three items, a folder with four notes, a post and a tag, a playlist with songs,
/// saved; `url` is another store file (version 1, closed) and `cache` a newsboat-like cache, both
/// copied from ``DocExampleFiles``. Made on the view context's queue, to be used there.
final class DocExampleGiven {
    // MARK: - Givens
    let container: PersistentContainer
    let store: PersistentStore
    let model: ManagedObjectModel
    let bus: ChangeBus
    let context: ManagedObjectContext
    let viewContext: ManagedObjectContext
    let background: ManagedObjectContext
    let importContext: ManagedObjectContext
    let sheet: ManagedObjectContext
    let server: Server
    let someServer: Server
    let item: FeedItem
    let items: [FeedItem]
    let id: ObjectID
    let folder: Folder
    let note: Note
    let noteID: ObjectID
    let object: Note
    let entity: Entity
    let predicate: ObjectPredicate
    let controller: FetchedResultsController<Note>
    let batch: [FetchedResultsChange]
    let post: Post
    let tag: Tag
    let playlist: Playlist
    let song: Song
    let doc: Doc
    let uid: UUID
    let feed: Feed
    let url: URL
    let data: Data
    let format: String
    let importer: BatchImporter
    let records: [[String: ImportValue]]
    let lines: [String]
    let parse: (String) throws -> [String: ImportValue]
    let rfc822Formatter: DateFormatter
    let dbQueue: DatabaseQueue
    let v1: ManagedObjectModel
    let v2: ManagedObjectModel
    let v3: ManagedObjectModel
    let toDoV1: ManagedObjectModel
    let toDoV2: ManagedObjectModel
    let plan: MigrationPlan
    let cache: ForeignDatabase
    let record: [String: ImportValue]
    // MARK: - End of givens

    let directory: URL

    /// A new temporary directory holding copies of ``DocExampleFiles``, and a new store: in
    /// memory, or in that directory when `onFile` (a file store costs a few fsyncs).
    static func container(onFile: Bool) throws -> (PersistentContainer, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-doc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try DocExampleFiles.copy(into: directory)
        let location = onFile ? StoreLocation.file(directory.appendingPathComponent("given.sqlite")) : .inMemory
        return (try PersistentContainer(model: DocExampleModel.model(version: 1), store: location), directory)
    }

    /// Call on `container.viewContext`'s queue; `directory` is removed with the givens.
    init(_ container: PersistentContainer, directory: URL) throws {
        self.container = container
        self.directory = directory
        store = container.store
        model = container.model
        bus = container.bus
        context = container.viewContext
        viewContext = container.viewContext
        background = container.newBackgroundContext(name: "background")
        importContext = container.newBackgroundContext(name: "import")

        server = context.insert(Server.self)
        server.url = "https://example.org/feed"
        server.title = "Example"
        someServer = context.insert(Server.self)
        someServer.url = "https://example.com/atom.xml"
        let context = container.viewContext
        let server = server
        items = (1...3).map { n in
            let item = context.insert(FeedItem.self)
            item.guid = "guid-\(n)"
            item.title = "Swift on Linux \(n)"
            item.author = "Ann"
            item.published = Date(timeIntervalSince1970: 1_700_000_000 + Double(n) * 3_600)
            item.sortDate = item.published
            item.server = server
            return item
        }
        item = items[0]
        folder = context.insert(Folder.self)
        folder.name = "Inbox"
        note = context.insert(Note.self)
        note.title = "Groceries"
        note.text = "milk"
        note.folder = folder
        for title in ["Books", "Travel", "Work"] {
            let other = context.insert(Note.self)
            other.title = title
            other.folder = folder
        }
        object = note
        post = context.insert(Post.self)
        post.title = "Hello"
        tag = context.insert(Tag.self)
        tag.name = "swift"
        playlist = context.insert(Playlist.self)
        playlist.name = "Mix"
        let songs = (1...5).map { n in
            let song = context.insert(Song.self)
            song.title = "Song \(n)"
            return song
        }
        playlist.songs = Array(songs.prefix(4))
        song = songs[4]
        uid = UUID()
        doc = context.insert(Doc.self)
        doc.uid = uid
        feed = context.insert(Feed.self)
        try context.save()

        id = item.objectID
        noteID = note.objectID
        sheet = context.newChildContext(name: "sheet")
        entity = try model.entity(named: "FeedItem")
        predicate = try ObjectPredicate(format: "read == NO")
        controller = try FetchedResultsController(
            fetchRequest: FetchRequest<Note>(sortDescriptors: [ObjectSortDescriptor("title")]), context: context)
        try controller.performFetch()
        batch = [.insert(noteID, at: ResultIndexPath(section: 0, item: 0))]

        url = directory.appendingPathComponent(DocExampleFiles.store)
        data = Data(#"{"guid": "from-json", "title": "JSON", "read": true}"#.utf8)
        format = "read == NO"
        importer = BatchImporter(container: container, name: "doc-example")
        records = [["guid": "r1", "title": "One"], ["guid": "r2", "title": "Two"]]
        lines = [#"{"guid": "l1"}"#, #"{"guid": "l2"}"#]
        parse = { line in
            guard case .object(let record) = try ImportValue(json: Data(line.utf8)) else { return [:] }
            return record
        }
        rfc822Formatter = DateFormatter()
        rfc822Formatter.locale = Locale(identifier: "en_US_POSIX")
        rfc822Formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        dbQueue = try DatabaseQueue()
        v1 = DocExampleModel.model(version: 1)
        v2 = DocExampleModel.model(version: 2)
        v3 = DocExampleModel.model(version: 3)
        toDoV1 = v1
        toDoV2 = v2
        plan = try MigrationPlan(versions: [v1, v2])
        record = records[0]
        cache = try ForeignDatabase(readingAt: directory.appendingPathComponent(DocExampleFiles.cache))
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The files the givens copy, made once per test run: an empty version-1 store (`url`) and a
/// newsboat-like cache (`cache`). Creating them costs fsyncs; copying them does not.
enum DocExampleFiles {
    static let store = "store.sqlite"
    static let cache = "cache.db"
    private static let template = Result { try makeTemplate() }

    static func copy(into directory: URL) throws {
        let template = try template.get()
        for name in try FileManager.default.contentsOfDirectory(atPath: template.path) {
            try FileManager.default.copyItem(
                at: template.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
    }

    private static func makeTemplate() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("og-doc-template-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = try PersistentContainer(
            model: DocExampleModel.model(version: 1), store: .file(directory.appendingPathComponent(store)))
        try DatabaseQueue(path: directory.appendingPathComponent(cache).path).write { db in
            try db.execute(
                sql: """
                    CREATE TABLE rss_feed (rssurl TEXT PRIMARY KEY, title TEXT);
                    CREATE TABLE rss_item (id INTEGER PRIMARY KEY, guid TEXT, flags TEXT);
                    INSERT INTO rss_feed VALUES ('https://example.org/feed', 'Example');
                    INSERT INTO rss_item VALUES (1, 'a', NULL), (2, 'b', 'N');
                    """)
        }
        return directory
    }
}

/// One generated example: its id (file stem and documented symbol), where it is written, and
/// the function that runs it with fresh givens.
struct DocExample: Sendable, CustomTestStringConvertible {
    enum Body: Sendable {
        case sync(@Sendable (DocExampleGiven) throws -> Void)
        case async(@Sendable (DocExampleGiven) async throws -> Void)
    }

    let id: String
    let origin: String
    let body: Body

    init(id: String, origin: String, run: @escaping @Sendable (DocExampleGiven) throws -> Void) {
        (self.id, self.origin, body) = (id, origin, .sync(run))
    }

    init(id: String, origin: String, runAsync: @escaping @Sendable (DocExampleGiven) async throws -> Void) {
        (self.id, self.origin, body) = (id, origin, .async(runAsync))
    }

    var testDescription: String { id }
}
