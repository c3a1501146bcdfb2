import Foundation
import ObjectGraph
import Testing

@testable import ZeaderKit

@Suite("JSON backup: zeader export --json and its restore")
struct BackupTests {
    func temporaryFile(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent(name)
    }

    func export(_ library: FeedLibrary, batchSize: Int = 2_000) throws -> String {
        var out = ""
        try library.exportBackup(batchSize: batchSize) { out += $0 }
        return out
    }

    /// Two feeds with awkward values: control characters, quotes, fractional dates, nils,
    /// tags, flags, and more items than one export batch.
    func populatedStore(items: Int = 25) throws -> FeedLibrary {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        try library.add(url: "http://a.example/feed", title: "A \"quoted\"\u{1B}[31m", tags: ["Linux", "Big News"])
        // A file: feed: restoring it takes allowCommands, as `import --allow-commands`.
        try library.add(url: "file:///srv/b.xml")
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            let servers = try Server.findAll(sortedBy: "displayOrder", in: context)
            servers[0].etag = "W/\"abc\""
            servers[0].lastModified = "Sun, 22 Nov 2026 04:46:12 GMT"
            servers[0].siteLink = "http://a.example/"
            servers[1].displayOrder = 7
            for n in 0..<items {
                let item = context.insert(FeedItem.self)
                item.guid = "g\(n)"
                item.title = n % 3 == 0 ? nil : "Title \(n) \u{7}\u{85}é 日本\n\\"
                item.link = "http://a.example/\(n)"
                item.author = n % 2 == 0 ? "Ann" : nil
                item.summary = "summary \(n)\t"
                item.content = "<p>content \(n) \u{2028}</p>"
                item.published = n % 4 == 0 ? nil : Date(timeIntervalSince1970: 1_700_000_000.123456 + Double(n))
                item.updated = n % 5 == 0 ? Date(timeIntervalSince1970: 1_700_000_100 + Double(n)) : nil
                item.read = n % 2 == 1
                item.flagged = n % 7 == 0
                item.firstSeen = Date(timeIntervalSince1970: 1_763_000_000.5 + Double(n) / 1000)
                item.sortDate = item.published ?? item.updated ?? item.firstSeen
                if item.flagged { item.flagLetters = n % 14 == 0 ? "Ia" : "Z" }
                if n % 3 == 1 {
                    // Podcast episodes: queued, downloaded, or neither; length and type optional.
                    item.enclosureURL = "https://cdn.a.example/ep\(n).mp3?x=\"1\""
                    item.enclosureType = n % 6 == 1 ? "audio/mpeg" : nil
                    item.enclosureLength = n == 4 ? nil : Int64(n) * 1_000_003
                    item.enclosureQueued = n % 2 == 0
                    item.enclosureFile = n % 9 == 1 ? "/home/u/podcasts/A/ep\(n) \u{7}.mp3" : nil
                }
                item.server = servers[n % 2]
            }
            try context.save()
        }
        return library
    }

    @Test("export, restore into an empty store, export again: the same document")
    func roundTripLosesNothing() throws {
        let library = try populatedStore()
        let first = try export(library, batchSize: 4)
        let file = try temporaryFile("backup.json")
        try Data(first.utf8).write(to: file)
        let json = try JSONSerialization.jsonObject(with: Data(first.utf8)) as! [String: Any]
        #expect((json["feeds"] as! [Any]).count == 2)
        #expect((json["items"] as! [Any]).count == 25)
        #expect(!first.contains("\u{1B}") && !first.contains("\u{85}"))  // escaped, not dropped

        let restored = FeedLibrary(store: try makeStore())
        let report = try restored.restoreBackup(from: file, batchSize: 3, allowCommands: true)
        #expect(report.feedsAdded == 2 && report.itemsAdded == 25 && report.itemsUpdated == 0)
        #expect(try export(restored) == first)
        // Derived counts, sort dates and flags work on the restored items.
        #expect(try restored.servers().map(\.unread) == [13, 0])
        #expect(try restored.items(ItemQuery(flaggedOnly: true)).count == 4)
        #expect(try restored.items(ItemQuery()).map(\.id) == (try library.items(ItemQuery()).map(\.id)))
        // The marker of the finished restore is gone.
        #expect(
            try restored.store.container.store.metadata(
                forKey: "objectgraph.import.zeader.restore:\(file.path):\(first.utf8.count)") == nil)
    }

    @Test("enclosures (URL, type, length, queue, downloaded file) and flag letters survive a round trip")
    func roundTripKeepsEnclosures() throws {
        let library = try populatedStore()
        let text = try export(library)
        let json = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        #expect(json["version"] as? Int == 2)
        let records = (json["items"] as! [[String: Any]])
        let g7 = try #require(records.first { $0["guid"] as? String == "g7" })
        let enclosure = try #require(g7["enclosure"] as? [String: Any])
        #expect(enclosure["url"] as? String == "https://cdn.a.example/ep7.mp3?x=\"1\"")
        #expect(enclosure["type"] as? String == "audio/mpeg")
        #expect(enclosure["length"] as? Int == 7_000_021)
        #expect(enclosure["queued"] as? Bool == false)
        #expect(enclosure["file"] is NSNull)
        #expect(try #require(records.first { $0["guid"] as? String == "g0" })["enclosure"] is NSNull)
        #expect(try #require(records.first { $0["guid"] as? String == "g0" })["flagLetters"] as? String == "Ia")

        let file = try temporaryFile("backup.json")
        try Data(text.utf8).write(to: file)
        let restored = FeedLibrary(store: try makeStore())
        _ = try restored.restoreBackup(from: file, batchSize: 4, allowCommands: true)
        func enclosures(_ library: FeedLibrary) throws -> [String: EnclosureSummary?] {
            let context = library.store.container.newBackgroundContext()
            return try context.performAndWait {
                var result: [String: EnclosureSummary?] = [:]
                for item in try FeedItem.findAll(in: context) { result[item.guid] = EnclosureSummary(item) }
                return result
            }
        }
        let before = try enclosures(library)
        #expect(before.values.compactMap { $0 }.count == 8)
        #expect(before.values.contains { $0?.queued == true } && before.values.contains { $0?.file != nil })
        #expect(before.values.contains { $0 != nil && $0?.length == nil })
        #expect(try enclosures(restored) == before)
        #expect(try export(restored) == text)
        // The queue is a podcast queue again.
        #expect(try restored.podcasts().count == before.values.filter { $0?.queued == true }.count)
    }

    @Test("a version 1 backup (no enclosures) leaves stored enclosures alone; null clears one; bad ones are refused")
    func enclosureVersions() throws {
        let library = try populatedStore()
        let feed = #""feeds":[{"url":"http://a.example/feed"}],"items":[{"feed":"http://a.example/feed","guid":"g10""#
        func restore(_ json: String) throws -> EnclosureSummary? {
            let file = try temporaryFile("b.json")
            try Data(json.utf8).write(to: file)
            _ = try library.restoreBackup(from: file)
            let context = library.store.container.newBackgroundContext()
            return try context.performAndWait {
                let predicate = try ObjectPredicate(format: "guid == 'g10' AND server.url == 'http://a.example/feed'")
                let item = try #require(try context.fetch(FetchRequest<FeedItem>(predicate: predicate)).first)
                return EnclosureSummary(item)
            }
        }
        let stored = try #require(try restore(#"{"format":"zeader-backup","version":1,"# + feed + #","title":"v1"}]}"#))
        #expect(stored.url == "https://cdn.a.example/ep10.mp3?x=\"1\"" && stored.queued && stored.file != nil)
        let changed = try restore(
            #"{"format":"zeader-backup","version":2,"# + feed
                + #","enclosure":{"url":"http://b.example/x.ogg","type":null,"length":12,"queued":true,"file":"/tmp/x.ogg"}}]}"#)
        #expect(changed == EnclosureSummary(url: "http://b.example/x.ogg", length: 12, queued: true, file: "/tmp/x.ogg"))
        #expect(try restore(#"{"format":"zeader-backup","version":2,"# + feed + #","enclosure":null}]}"#) == nil)

        let refused: [(String, String)] = [
            (#"{"url":"javascript:alert(1)"}"#, "not an http or https URL"),
            (#"{"url":"file:///etc/passwd"}"#, "not an http or https URL"),
            (#"{"type":"audio/mpeg"}"#, "has no \"url\""),
            (#"{"url":"http://b.example/x","length":-1}"#, "\"length\""),
            (#"{"url":"http://b.example/x","queued":"yes"}"#, "\"queued\""),
            (#""http://b.example/x""#, "not an object or null"),
        ]
        for (value, message) in refused {
            do {
                _ = try restore(#"{"format":"zeader-backup","version":2,"# + feed + #","enclosure":"# + value + "}]}")
                Issue.record("\(value) was accepted")
            } catch {
                #expect("\(error)".contains("item 1: \"enclosure\""), "\(error)")
                #expect("\(error)".contains(message), "\(error)")
            }
        }
        #expect(try restore(#"{"format":"zeader-backup","version":2,"# + feed + "}]}") == nil)  // missing: unchanged
    }

    @Test("restoring into a store that has some of the feeds and items merges without duplicates")
    func restoreMerges() throws {
        let source = try populatedStore()
        let file = try temporaryFile("backup.json")
        try Data(try export(source).utf8).write(to: file)

        let target = FeedLibrary(store: try makeStore())
        try target.add(url: "http://other.example/feed", title: "Other")
        try target.add(url: "http://a.example/feed", title: "Mine", tags: ["keep"])
        let context = target.store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            let a = try #require(try Server.findFirst(byAttribute: "url", value: .string("http://a.example/feed"), in: context))
            let item = context.insert(FeedItem.self)
            item.guid = "g0"
            item.title = "stale"
            item.read = false
            item.server = a
            let extra = context.insert(FeedItem.self)
            extra.guid = "only-here"
            extra.server = a
            try context.save()
        }
        let report = try target.restoreBackup(from: file, allowCommands: true)
        #expect(report.feedsAdded == 1 && report.feedsUpdated == 1)
        #expect(report.itemsAdded == 24 && report.itemsUpdated == 1)
        let servers = try target.servers()
        #expect(servers.map(\.url) == ["http://other.example/feed", "http://a.example/feed", "file:///srv/b.xml"])
        #expect(servers.map(\.total) == [0, 14, 12])
        #expect(servers[1].tags == ["Big News", "Linux"])  // the backup's values win for keys it has
        let g0 = try target.items(ItemQuery(feed: "http://a.example/feed", wherePredicate: "guid == \"g0\""))
        #expect(g0.count == 1 && g0[0].title == nil && g0[0].flagged)

        // Again: nothing new.
        let again = try target.restoreBackup(from: file, allowCommands: true)
        #expect(again.feedsAdded == 0 && again.itemsAdded == 0 && again.itemsUpdated == 25)
        #expect(try target.servers().map(\.total) == [0, 14, 12])
    }

    @Test("an interrupted restore resumes after its last saved batch")
    func interruptedRestoreResumes() throws {
        let source = try populatedStore(items: 40)
        var text = try export(source)
        // The item g22 gets a value that cannot be imported; the fix later keeps the
        // file's size, as an edit in place would.
        var lines = text.components(separatedBy: "\n")
        let line = try #require(lines.firstIndex { $0.contains("\"guid\":\"g22\",") })
        #expect(lines[line].contains("\"flagged\":false,"))
        lines[line] = lines[line].replacingOccurrences(of: "\"flagged\":false,", with: "\"flagged\":\"nah\",")
        text = lines.joined(separator: "\n")
        let file = try temporaryFile("backup.json")
        try Data(text.utf8).write(to: file)

        let target = FeedLibrary(store: try makeStore())
        #expect(throws: ZeaderError.self) { try target.restoreBackup(from: file, batchSize: 5, allowCommands: true) }
        let saved = try target.items(ItemQuery()).count
        #expect(saved > 0 && saved < 40 && saved % 5 == 0)

        try Data(text.replacingOccurrences(of: "\"flagged\":\"nah\",", with: "\"flagged\":false,").utf8).write(to: file)
        let report = try target.restoreBackup(from: file, batchSize: 5, allowCommands: true)
        #expect(report.resumedAfter == saved)
        #expect(report.itemsAdded == 40 - saved)
        #expect(try target.items(ItemQuery()).count == 40)
        #expect(try export(target) == (try export(source)))
    }

    @Test("a restore keeps the order of items that share a date, within a feed and across feeds")
    func restoreKeepsTheOrderOfTies() throws {
        let store = try makeStore()
        let library = FeedLibrary(store: store)
        try library.add(url: "http://a.example/feed")
        try library.add(url: "http://b.example/feed")
        let shared = Date(timeIntervalSince1970: 1_700_000_000)
        let context = store.container.newBackgroundContext()
        try context.performAndWait { () throws in
            let servers = try Server.findAll(sortedBy: "displayOrder", in: context)
            // Stored in an order their guids do not follow, feeds interleaved, over several saves.
            for n in 0..<30 {
                let item = context.insert(FeedItem.self)
                item.guid = String(format: "%02d-%@", 29 - n, n % 3 == 0 ? "z" : "a")
                switch n % 5 {
                case 0: item.published = shared
                case 1: item.updated = shared
                case 2: item.firstSeen = shared
                case 3: break  // undated: listed last, by the order stored
                default: item.published = Date(timeIntervalSince1970: 1_600_000_000 + Double(n / 10))
                }
                item.sortDate = item.published ?? item.updated ?? item.firstSeen
                item.server = servers[n % 3 == 1 ? 1 : 0]
                if n % 7 == 6 { try context.save() }
            }
            try context.save()
        }
        func listed(_ library: FeedLibrary, feed: String? = nil) throws -> [String] {
            try library.items(ItemQuery(feed: feed)).map { "\($0.feed) \($0.id)" }
        }
        let file = try temporaryFile("backup.json")
        try Data(try export(library, batchSize: 4).utf8).write(to: file)
        let restored = FeedLibrary(store: try makeStore())
        _ = try restored.restoreBackup(from: file, batchSize: 3)
        #expect(try listed(restored) == (try listed(library)))
        for feed in ["http://a.example/feed", "http://b.example/feed"] {
            #expect(try listed(restored, feed: feed) == (try listed(library, feed: feed)))
        }
        #expect(try export(restored, batchSize: 5) == (try export(library, batchSize: 7)))
    }

    @Test("an item the backup lists again, batches later, is stored once: the later values win")
    func repeatedItemStoredOnce() throws {
        var items = (0..<9).map { #"{"feed":"http://a.example/feed","guid":"g\#($0)","title":"first"}"# }
        items.insert(#"{"feed":"http://a.example/feed","guid":"g0","title":"again","read":true}"#, at: 6)
        items.append(#"{"feed":"http://a.example/feed","guid":"g0","title":"last"}"#)
        let text =
            #"{"format":"zeader-backup","version":2,"feeds":[{"url":"http://a.example/feed"}],"items":["#
            + items.joined(separator: ",\n") + "]}"
        let file = try temporaryFile("backup.json")
        try Data(text.utf8).write(to: file)
        // Saved by an editor that writes a byte order mark: the same document.
        let marked = try temporaryFile("marked.json")
        try Data(("\u{FEFF}\n" + text).utf8).write(to: marked)
        #expect(try FeedLibrary(store: try makeStore()).restoreBackup(from: marked).itemsAdded == 9)
        for batchSize in [2, 3, 100] {
            let library = FeedLibrary(store: try makeStore())
            let report = try library.restoreBackup(from: file, batchSize: batchSize)
            #expect(report.itemsAdded == 9 && report.itemsUpdated == 2, "batch size \(batchSize)")
            let g0 = try library.items(ItemQuery(wherePredicate: "guid == \"g0\""))
            #expect(g0.count == 1 && g0.first?.title == "last" && g0.first?.read == true, "batch size \(batchSize)")
            #expect(try library.servers().map(\.total) == [9])
        }
    }

    @Test("files that are not backups are refused with a clear message")
    func notABackup() throws {
        let library = FeedLibrary(store: try makeStore())
        let cases: [(String, String)] = [
            (#"{"feeds": [], "items": []}"#, "not a Zeader backup (\"format\" is missing"),
            (#"{"format":"zeader-backup","feeds":[{"title":"x"}],"items":[]}"#, "feed 1 has no \"url\""),
            (
                #"{"format":"zeader-backup","feeds":[],"items":[{"feed":"http://x/","guid":"1"}]}"#,
                "item 1 names no feed the backup lists (\"feed\": string \"http://x/\")"
            ),
            (#"{"format":"zeader-backup","feeds":[], "items":[{"a":1}"#, "expected ',' or ']' in \"items\""),
        ]
        for (text, message) in cases {
            let file = try temporaryFile("b.json")
            try Data(text.utf8).write(to: file)
            do {
                _ = try library.restoreBackup(from: file)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.description.hasPrefix(file.path + ": "))
                #expect("\(error)".contains(message), "\(error)")
            }
        }
        #expect(FeedLibrary.looksLikeBackup(Data("\u{FEFF}\n {\"format\"".utf8)))
        #expect(!FeedLibrary.looksLikeBackup(Data("<?xml".utf8)))
        #expect(BackupJSON.dateString(Date(timeIntervalSince1970: 0.5)) == "\"1970-01-01T00:00:00.500000Z\"")
    }
}

extension BackupJSON {
    static func dateString(_ date: Date) -> String {
        var out = ""
        appendDate(date, to: &out)
        return out
    }
}
