import Foundation
import Testing

@testable import ZeaderKit

/// The sync folder's file handling, one thing a sync tool or a person does to a folder at a time.
@Suite("Sync folder files")
struct SyncFolderTests {
    static let key = ItemSyncKey(feedURL: "https://a.example/feed", guid: "post-1")
    static let other = ItemSyncKey(feedURL: "https://a.example/feed", guid: "post-2")

    /// A shared folder with devices `a` and `b`, each in its own copy of it.
    struct Pair {
        var base: URL
        var a: SyncFolder
        var b: SyncFolder

        init() throws {
            base = try temporaryDirectory()
            for name in ["a", "b"] {
                try FileManager.default.createDirectory(at: base.appendingPathComponent(name), withIntermediateDirectories: true)
            }
            a = try SyncFolder(root: base.appendingPathComponent("a"), device: "dev-a")
            b = try SyncFolder(root: base.appendingPathComponent("b"), device: "dev-b")
        }

        /// Where `a`'s file `name` arrives in `b`'s copy.
        func arrival(_ name: String) throws -> URL {
            let directory = b.devicesDirectory.appendingPathComponent("dev-a")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory.appendingPathComponent(name)
        }

        /// Copies `a`'s own files into `b`'s copy.
        func deliver() throws {
            for name in SyncFolder.names(in: a.ownDirectory) {
                let target = try arrival(name)
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(at: a.ownDirectory.appendingPathComponent(name), to: target)
            }
        }
    }

    static func stamp(_ millis: Int64, _ device: String = "dev-a") -> HybridTimestamp {
        HybridTimestamp(millis: millis, counter: 0, device: device)
    }

    @Test("every kind of change survives its line, and damaged lines are refused")
    func lines() throws {
        let changes: [FolderSyncChange] = [
            .subscribed(feed: "https://a.example/feed", true), .subscribed(feed: "https://a.example/feed", false),
            .title(feed: "https://a.example/feed", "Ünïcode \"quoted\"\nline"), .title(feed: "https://a.example/feed", nil),
            .tagAdded(feed: "https://a.example/feed", tag: "News"),
            .tagRemoved(feed: "https://a.example/feed", tag: "News", seen: [Self.stamp(1), Self.stamp(2, "dev-b")]),
            .read(Self.key, true), .read(Self.key, false), .flagged(Self.key, true), .deleted(Self.key),
            .smartFeed(name: "unread", query: "read == NO"), .smartFeed(name: "unread", query: nil),
            .ignoreRule("title CONTAINS 'ad'", true), .ignoreRule("title CONTAINS 'ad'", false),
        ]
        for change in changes {
            let entry = FolderSyncEntry(stamp: Self.stamp(1_765_000_000_000), change: change)
            #expect(!entry.line.contains("\n"))
            #expect(FolderSyncEntry(line: Substring(entry.line)) == entry, "\(change)")
        }
        let good = FolderSyncEntry(stamp: Self.stamp(1_765_000_000_000), change: .read(Self.key, true)).line
        let damaged = [
            String(good.dropLast()), String(good.dropFirst()), "", "{}", "null", "[1]",
            good.replacingOccurrences(of: "true", with: "1"), good.replacingOccurrences(of: "\"read\"", with: "\"reap\""),
            good.replacingOccurrences(of: "dev-a", with: "dev/a"), good.replacingOccurrences(of: Self.key.text, with: "short"),
            #"{"op":"read","item":"\#(Self.key.text)","t":"zzzzzzzzzzzz.0.dev-a","v":true}"#,
            #"{"op":"read","item":"\#(Self.key.text)","t":"1.zzzzzzzzzz.dev-a","v":true}"#,
            #"{"op":"sub","feed":"","t":"1.0.dev-a","v":true}"#,
            #"{"op":"title","feed":"x","t":"1.0.dev-a"}"#,
            #"{"op":"tag-","feed":"x","tag":"a","t":"1.0.dev-a","seen":["bad"]}"#,
            #"{"op":"sub","feed":"\#(String(repeating: "x", count: 5000))","t":"1.0.dev-a","v":true}"#,
        ]
        for line in damaged { #expect(FolderSyncEntry(line: Substring(line)) == nil, "\(line.prefix(80))") }
    }

    @Test("SHA-256 gives FIPS 180's digests, and item keys are stable")
    func digests() {
        #expect(SHA256Digest.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256Digest.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            SHA256Digest.hex(of: Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            SHA256Digest.hex(of: [UInt8](repeating: 0x61, count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let key = ItemSyncKey(feedURL: "https://a.example/feed", guid: "post-1")
        #expect(key == Self.key && key.text.count == 22 && ItemSyncKey(text: key.text) == key)
        #expect(ItemSyncKey(feedURL: "https://a.example/feedp", guid: "ost-1") != key)
    }

    @Test("the clock stamps after everything made or seen, even when the wall clock goes back")
    func clock() {
        var clock = HybridClock(device: "dev-a")
        let first = clock.stamp(now: 5_000)
        let second = clock.stamp(now: 4_000)
        #expect(second > first && second.millis == 5_000)
        clock.observe(HybridTimestamp(millis: 9_000, counter: 3, device: "dev-b"))
        let third = clock.stamp(now: 6_000)
        #expect(third > HybridTimestamp(millis: 9_000, counter: 3, device: "dev-b") && third.device == "dev-a")
        var full = HybridClock(device: "dev-a")
        full.observe(HybridTimestamp(millis: 1, counter: HybridTimestamp.largestCounter, device: "dev-b"))
        let next = full.stamp(now: 0)
        #expect(next.millis == 2 && HybridTimestamp(text: next.text) == next)
    }

    @Test("files in transit are skipped; a line still being written waits for its newline")
    func transit() throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.base) }
        var state = FolderSyncState()
        state.apply(FolderSyncEntry(stamp: Self.stamp(1_000), change: .read(Self.key, true)))
        state.apply(FolderSyncEntry(stamp: Self.stamp(2_000), change: .flagged(Self.key, true)))
        try pair.a.publish(state)
        let whole = try Data(contentsOf: pair.a.ownDirectory.appendingPathComponent("log-1.jsonl"))
        try whole.write(to: try pair.arrival(".syncthing.log-1.jsonl.tmp"))
        try whole.write(to: try pair.arrival("~syncthing~log-1.jsonl.tmp"))
        try whole.prefix(whole.count - 10).write(to: try pair.arrival("log-1.jsonl"))
        var result = try pair.b.read(after: FolderReadMarks())
        #expect(result.entries.count == 1)
        #expect(result.report.incompleteFiles == ["zeader-sync/dev-a/log-1.jsonl"])
        #expect(result.report.skippedFiles.count == 2)
        #expect(result.report.damagedLines.isEmpty)
        try whole.write(to: try pair.arrival("log-1.jsonl"))
        result = try pair.b.read(after: result.marks)
        var seen = FolderSyncState()
        seen.apply(result.entries)
        #expect(seen == state && result.report.incompleteFiles.isEmpty)
        #expect(try pair.b.read(after: result.marks).entries.isEmpty)
    }

    @Test("a damaged line is named by file and line; the lines around it are read; CRLF is read")
    func damaged() throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.base) }
        let lines = [
            FolderSyncEntry(stamp: Self.stamp(1_000), change: .read(Self.key, true)).line,
            "{\"t\":\"1.0.dev-a\",\"op\":\"read\",\u{0}\u{0}\u{0}",
            FolderSyncEntry(stamp: Self.stamp(2_000), change: .read(Self.other, true)).line,
        ]
        try Data((lines.joined(separator: "\r\n") + "\r\n").utf8).write(to: try pair.arrival("log-1.jsonl"))
        let result = try pair.b.read(after: FolderReadMarks())
        #expect(result.entries.count == 2)
        #expect(result.report.damagedLines == [.init(file: "zeader-sync/dev-a/log-1.jsonl", line: 2)])
    }

    @Test("conflict copies are read and named; the same file twice changes nothing")
    func conflictCopies() throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.base) }
        let first = FolderSyncEntry(stamp: Self.stamp(1_000), change: .read(Self.key, true))
        let second = FolderSyncEntry(stamp: Self.stamp(2_000), change: .read(Self.key, false))
        try Data((first.line + "\n").utf8).write(to: try pair.arrival("log-1.jsonl"))
        try Data((first.line + "\n" + second.line + "\n").utf8).write(
            to: try pair.arrival("log-1.sync-conflict-20261206-101010-ABCDEFG.jsonl"))
        try Data((first.line + "\n").utf8).write(to: try pair.arrival("log-1 (Laptop's conflicted copy 2026-12-06).jsonl"))
        try Data((first.line + "\n").utf8).write(to: try pair.arrival("log-1 (1).jsonl"))
        let result = try pair.b.read(after: FolderReadMarks())
        #expect(result.report.conflictCopies.count == 3)
        var state = FolderSyncState()
        state.apply(result.entries)
        #expect(state.item(Self.key) == .init(read: false, flagged: nil, deleted: false))
    }

    @Test("a device folds conflict copies of its own files back, and compaction keeps every change")
    func ownConflictCopiesAndCompaction() throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.base) }
        var state = FolderSyncState()
        for (index, change) in [
            FolderSyncChange.read(Self.key, true), .read(Self.key, false), .read(Self.key, true), .flagged(Self.other, true),
            .subscribed(feed: "https://a.example/feed", true), .tagAdded(feed: "https://a.example/feed", tag: "News"),
        ].enumerated() {
            state.apply(FolderSyncEntry(stamp: Self.stamp(Int64(1_000 * (index + 1))), change: change))
            try pair.a.publish(state)
        }
        let lost = FolderSyncEntry(stamp: Self.stamp(9_000), change: .title(feed: "https://a.example/feed", "Kept"))
        try Data((lost.line + "\n").utf8).write(
            to: pair.a.ownDirectory.appendingPathComponent("log-1.sync-conflict-20261206-101010-ABCDEFG.jsonl"))
        let own = try pair.a.read(after: FolderReadMarks())
        state.apply(own.entries)
        #expect(own.report.conflictCopies.count == 1)
        try pair.a.compact(state)
        let names = SyncFolder.names(in: pair.a.ownDirectory)
        #expect(names.count == 1 && names[0].hasPrefix("snapshot-"))
        try pair.deliver()
        var fresh = FolderSyncState()
        fresh.apply(try pair.b.read(after: FolderReadMarks()).entries)
        #expect(FolderSyncConvergenceTests.View(fresh) == FolderSyncConvergenceTests.View(state))
        #expect(fresh.feed("https://a.example/feed")?.title == "Kept")
        #expect(try pair.a.publish(state) == 0)
    }

    @Test("a git checkout that rewrites files: the owner writes back what went missing, readers lose nothing")
    func rewrittenFiles() throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.base) }
        var state = FolderSyncState()
        state.apply(FolderSyncEntry(stamp: Self.stamp(1_000), change: .read(Self.key, true)))
        try pair.a.publish(state)
        let older = try Data(contentsOf: pair.a.ownDirectory.appendingPathComponent("log-1.jsonl"))
        state.apply(FolderSyncEntry(stamp: Self.stamp(2_000), change: .flagged(Self.other, true)))
        try pair.a.publish(state)
        try pair.deliver()
        var reader = FolderSyncState()
        let first = try pair.b.read(after: FolderReadMarks())
        reader.apply(first.entries)
        // The checkout puts the older file back on both sides.
        try older.write(to: pair.a.ownDirectory.appendingPathComponent("log-1.jsonl"))
        try older.write(to: try pair.arrival("log-1.jsonl"))
        let second = try pair.b.read(after: first.marks)
        #expect(!second.entries.isEmpty)
        reader.apply(second.entries)
        #expect(reader == state)
        #expect(try pair.a.publish(state) == 1)
        try pair.deliver()
        var fresh = FolderSyncState()
        fresh.apply(try pair.b.read(after: FolderReadMarks()).entries)
        #expect(fresh == state)
    }

    @Test("a device's clock ahead is named; a device whose folder goes is named and its changes are kept")
    func clocksAndGoneDevices() throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.base) }
        let now = Date(timeIntervalSince1970: 1_765_000_000)
        let future = FolderSyncEntry(stamp: Self.stamp(1_765_000_000_000 + 7_200_000), change: .read(Self.key, true))
        try Data((future.line + "\n").utf8).write(to: try pair.arrival("log-1.jsonl"))
        let first = try pair.b.read(after: FolderReadMarks(), now: now)
        #expect((first.report.clocksAhead["dev-a"] ?? 0) > 7_000)
        var state = FolderSyncState()
        state.apply(first.entries)
        var clock = HybridClock(device: "dev-b")
        for entry in first.entries { clock.observe(entry.stamp) }
        #expect(clock.stamp(at: now) > future.stamp)
        try FileManager.default.removeItem(at: pair.b.devicesDirectory.appendingPathComponent("dev-a"))
        let second = try pair.b.read(after: first.marks, now: now)
        #expect(second.report.goneDevices == ["dev-a"])
        #expect(state.item(Self.key)?.read == true)
        try pair.b.compact(state, carrying: second.report.goneDevices)
        var fresh = FolderSyncState()
        fresh.apply(try pair.b.read(after: FolderReadMarks()).entries)
        #expect(fresh.item(Self.key)?.read == true)
    }

    @Test("links, folders that are not devices and oversized files are not read")
    func strangeFiles() throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.base) }
        let secret = pair.base.appendingPathComponent("secret.jsonl")
        try Data((FolderSyncEntry(stamp: Self.stamp(1), change: .read(Self.key, true)).line + "\n").utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(at: try pair.arrival("log-1.jsonl"), withDestinationURL: secret)
        try FileManager.default.createDirectory(
            at: pair.b.devicesDirectory.appendingPathComponent("dev-a (conflicted copy)"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(
            at: pair.b.devicesDirectory.appendingPathComponent(".stversions"), withIntermediateDirectories: true)
        let result = try pair.b.read(after: FolderReadMarks())
        #expect(result.entries.isEmpty)
        #expect(result.report.devices == ["dev-a"])
        #expect(result.report.skippedFiles.count == 3)
        #expect(throws: FolderSyncError.missingFolder(path: "/nonexistent-zeader")) {
            try SyncFolder(root: URL(fileURLWithPath: "/nonexistent-zeader"), device: "dev-b").read(after: FolderReadMarks())
        }
        #expect(throws: FolderSyncError.invalidDevice("../x")) { try SyncFolder(root: pair.base, device: "../x") }
    }

    @Test("a year of use — 100 feeds, 20,000 items read day by day, synced weekly — leaves the folder under 5 MB")
    func yearOfUse() throws {
        let pair = try Pair()
        defer { try? FileManager.default.removeItem(at: pair.base) }
        var state = FolderSyncState()
        var clock = HybridClock(device: "dev-a")
        var rng = SplitMix64(state: 365)
        var now: Int64 = 1_765_000_000_000
        let feeds = (0..<100).map { "https://feed\($0).example.org/articles/feed.xml" }
        for feed in feeds {
            state.apply(FolderSyncEntry(stamp: clock.stamp(now: now), change: .subscribed(feed: feed, true)))
            state.apply(FolderSyncEntry(stamp: clock.stamp(now: now), change: .tagAdded(feed: feed, tag: "news")))
        }
        var item = 0
        var marks = FolderPublishMarks()
        for day in 0..<365 {
            now += 86_400_000
            for _ in 0..<55 {
                let key = ItemSyncKey(feedURL: feeds[item % 100], guid: "https://example.org/posts/\(item)?utm=feed")
                state.apply(FolderSyncEntry(stamp: clock.stamp(now: now), change: .read(key, true)))
                if Int.random(in: 0..<100, using: &rng) == 0 {
                    state.apply(FolderSyncEntry(stamp: clock.stamp(now: now), change: .flagged(key, true)))
                }
                if Int.random(in: 0..<20, using: &rng) == 0 {
                    state.apply(FolderSyncEntry(stamp: clock.stamp(now: now), change: .read(key, false)))
                    state.apply(FolderSyncEntry(stamp: clock.stamp(now: now + 1), change: .read(key, true)))
                }
                item += 1
            }
            // Synced once a week: what is appended does not depend on how often.
            guard day % 7 == 6 || day == 364 else { continue }
            try pair.a.publish(state, marks: &marks)
            if pair.a.ownSize() > SyncFolder.compactionSize { try pair.a.compact(state) }
        }
        let size = pair.a.ownSize()
        #expect(item >= 20_000)
        #expect(size < 5_000_000, "the folder takes \(size) bytes")
    }
}
