import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Feeds

#if canImport(Glibc)
    import Glibc
#endif

@Suite("GuardedThreads: work over untrusted input on threads with a known stack")
struct GuardedThreadsTests {
    @Test func runHopsToAThreadWithAKnownStackAndAnAlternateStack() async {
        #expect(!GuardedThreads.isCurrentThreadGuarded)
        let seen = await GuardedThreads.run { ThreadFacts.current() }
        #expect(seen.guarded)
        #expect(seen.stackSize >= GuardedThreads.stackSize)
        #expect(seen.hasAlternateStack)
    }

    @Test func runAndWaitReturnsTheResultAndNestsInPlace() {
        let seen = GuardedThreads.runAndWait { () -> (ThreadFacts, ThreadFacts) in
            let outer = ThreadFacts.current()
            return (outer, GuardedThreads.runAndWait { ThreadFacts.current() })
        }
        #expect(seen.0.guarded && seen.0.hasAlternateStack)
        #expect(seen.0.thread == seen.1.thread, "a guarded thread runs nested work itself (no wait on the pool)")
    }

    @Test func articleLayoutThroughAGuardedThreadGivesTheSameText() {
        let html = "<ul><li>one<li>two</ul>"
        #expect(HTMLText.render(html, width: 20).lines == ["  * one", "  * two"])
    }

    @Test func aJobSomeoneWaitsForGoesBeforeQueuedOnes() {
        let queue = JobQueue()
        let order = Mutex<[String]>([])
        queue.submit { order.withLock { $0.append("parse 1") } }
        queue.submit { order.withLock { $0.append("parse 2") } }
        queue.submit(first: true) { order.withLock { $0.append("article") } }
        for _ in 0..<3 { queue.take()() }
        #expect(order.withLock { $0 } == ["article", "parse 1", "parse 2"])
    }

    @Test func manyWaitersAtOnceAllGetTheirOwnResult() async {
        let results = await withTaskGroup(of: (Int, Int).self) { group in
            for number in 0..<64 { group.addTask { (number, await GuardedThreads.run { number * number }) } }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
        #expect(results.count == 64 && results.allSatisfy { $0.value == $0.key * $0.key })
    }
}

/// Hostile depth gives an error or a bounded result, on a stack far smaller than a guarded
/// thread's (256 KiB): the depth limits hold on any thread, the guarded threads are the
/// second line. An overflow here would crash the test process.
@Suite("Deep input on a small stack")
struct DeepInputOnASmallStackTests {
    static let depth = 100_000

    @Test func deeplyNestedJSONFeedIsAParseError() throws {
        let json =
            #"{"version":"https://jsonfeed.org/version/1.1","items":"#
            + String(repeating: "[", count: Self.depth) + String(repeating: "]", count: Self.depth) + "}"
        let result = onSmallStack { Result { try FeedParser.parse(data: Data(json.utf8)) } }
        #expect(throws: FeedParseError.self) { try result.get() }
    }

    @Test func deeplyNestedXMLFeedParsesOrFailsCleanly() {
        let xml =
            "<rss version=\"2.0\"><channel><title>t</title><item><title>x</title><description>"
            + String(repeating: "<b>", count: Self.depth) + "deep" + String(repeating: "</b>", count: Self.depth)
            + "</description></item></channel></rss>"
        let result = onSmallStack { Result { try FeedParser.parse(data: Data(xml.utf8)) } }
        if case .success(let feed) = result { #expect(feed.title == "t") }
    }

    @Test func deeplyNestedArticleHTMLRenders() {
        let html = String(repeating: "<blockquote><ul><li>", count: Self.depth) + "deep"
        let lines = onSmallStack { HTMLText.renderOnThisThread(html, width: 80, baseURL: nil).lines }
        #expect(lines.joined().contains("deep"))
    }

    @Test func deeplyNestedOPMLIsRefusedOrImported() {
        let opml =
            "<opml version=\"2.0\"><body>" + String(repeating: "<outline text=\"f\">", count: Self.depth)
            + "<outline type=\"rss\" xmlUrl=\"https://example.org/feed\"/>"
            + String(repeating: "</outline>", count: Self.depth) + "</body></opml>"
        let result = onSmallStack { Result { try OPML.parse(data: Data(opml.utf8), source: "deep.opml") } }
        if case .success(let subscriptions) = result { #expect(subscriptions.count <= 1) }
    }

    /// Runs `work` on a new thread with a 256 KiB stack and waits for it.
    private func onSmallStack<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
        let box = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let value = work()
            box.withLock { $0 = value }
            done.signal()
        }
        thread.stackSize = 256 * 1024
        thread.start()
        done.wait()
        return box.withLock { $0! }
    }
}

private struct ThreadFacts: Sendable {
    var thread: UInt
    var guarded: Bool
    var stackSize: Int
    var hasAlternateStack: Bool

    static func current() -> ThreadFacts {
        var attributes = pthread_attr_t()
        var size = 0
        // pthread_getattr_np (a GNU extension) is not in Swift's Glibc module.
        typealias GetAttributes = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
        let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np")
        if let symbol, unsafeBitCast(symbol, to: GetAttributes.self)(pthread_self(), &attributes) == 0 {
            pthread_attr_getstacksize(&attributes, &size)
            pthread_attr_destroy(&attributes)
        }
        var alternate = stack_t()
        sigaltstack(nil, &alternate)
        return ThreadFacts(
            thread: UInt(pthread_self()), guarded: GuardedThreads.isCurrentThreadGuarded, stackSize: size,
            hasAlternateStack: alternate.ss_flags & Int32(SS_DISABLE) == 0)
    }
}
