import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Each per-feed setting seen to take effect through `zeader refresh`, against servers on
/// 127.0.0.1, beside a feed without it: a header the server sees, the HTTP cache ignored, a
/// timeout, a download speed limit, a self-signed certificate accepted, a feed left out of
/// the notification, old items dropped.
@Suite struct FeedSettingsEffectTests {
    /// A folder with `config`, two feeds of `http` subscribed (`/set`, which gets `settings`
    /// through `zeader set`, and `/plain`), and the store's path.
    func subscribe(_ http: LoopbackHTTPServer, settings: [(String, String)], config: String = "") throws -> (URL, String) {
        let dir = try temporaryDirectory()
        try writeConfig(config, in: dir)
        let db = dir.appendingPathComponent("z.sqlite").path
        let urls = [http.url("/set").absoluteString, http.url("/plain").absoluteString]
        let r = try zeader(["import", "-", "--db", db], in: dir, input: Data(urls.map { $0 + "\n" }.joined().utf8))
        #expect(r.status == 0, "\(r.stderr)")
        for (key, value) in settings {
            let r = try zeader(["set", urls[0], key, value, "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
        }
        return (dir, db)
    }

    /// Each feed's total items, by the last part of its URL.
    func totals(_ dir: URL, _ db: String) throws -> [String: Int] {
        let list = try zeader(["list", "--json", "--db", db], in: dir)
        let feeds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        return Dictionary(
            uniqueKeysWithValues: feeds.map {
                (($0["url"] as? String ?? "").split(separator: "/").last.map(String.init) ?? "", $0["total"] as? Int ?? -1)
            })
    }

    @Test func aHeaderIsSentToItsFeedOnly() async throws {
        let seen = Mutex<[String: String]>([:])
        try await withLoopbackServer({ request in
            seen.withLock { $0[request.path] = request.headers["x-feed-token"] ?? "-" }
            return .ok(rss(items: [("g1", "One")]))
        }) { http in
            let (dir, db) = try subscribe(http, settings: [("header", "X-Feed-Token: t0ken")])
            defer { try? FileManager.default.removeItem(at: dir) }
            #expect(try zeader(["refresh", "--db", db], in: dir).status == 0)
            #expect(seen.withLock { $0 } == ["/set": "t0ken", "/plain": "-"])
        }
    }

    @Test func ignoreHTTPCacheFetchesTheWholeFeedEachTime() async throws {
        let conditional = Mutex<[String]>([])
        try await withLoopbackServer({ request in
            if let tag = request.headers["if-none-match"] {
                conditional.withLock { $0.append(request.path) }
                if tag == "\"v1\"" { return .status(304) }
            }
            return .respond(
                status: 200, headers: [("ETag", "\"v1\""), ("Content-Type", "application/rss+xml")],
                body: Data(rss(items: [("g1", "One")]).utf8))
        }) { http in
            let (dir, db) = try subscribe(http, settings: [("ignore-http-cache", "yes")])
            defer { try? FileManager.default.removeItem(at: dir) }
            for _ in 0..<2 { #expect(try zeader(["refresh", "--db", db], in: dir).status == 0) }
            #expect(conditional.withLock { $0 } == ["/plain"])
        }
    }

    @Test func aTimeoutEndsItsFeedsFetchOnly() async throws {
        try await withLoopbackServer({ request in
            request.path == "/set" ? .stall(seconds: 30) : .ok(rss(items: [("g1", "One")]))
        }) { http in
            let (dir, db) = try subscribe(http, settings: [("timeout", "1")])
            defer { try? FileManager.default.removeItem(at: dir) }
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr.contains(http.url("/set").absoluteString) && r.stderr.lowercased().contains("time"), "\(r.stderr)")
            #expect(try totals(dir, db) == ["set": 0, "plain": 1])
        }
    }

    @Test func notifyNoLeavesTheFeedOutOfTheNotification() async throws {
        try await withLoopbackServer({ request in
            request.path == "/set" ? .ok(rss(items: [("a", "A"), ("b", "B")])) : .ok(rss(items: [("c", "C")]))
        }) { http in
            let dir0 = try temporaryDirectory()
            let out = dir0.appendingPathComponent("notified.txt")
            let script = try writeExecutableScript(
                "printf '%s\\n' \"$@\" > '\(out.path)'", to: dir0.appendingPathComponent("n.sh"))
            let (dir, db) = try subscribe(http, settings: [("notify", "no")], config: "notify-program \(script.path)\n")
            defer {
                try? FileManager.default.removeItem(at: dir)
                try? FileManager.default.removeItem(at: dir0)
            }
            #expect(try zeader(["refresh", "--db", db], in: dir).status == 0)
            // The quiet feed's two new items are not counted; the other's one is.
            let message = try String(contentsOf: out, encoding: .utf8)
            #expect(message.hasPrefix("Zeader: 1 new item in 1 feed"), "\(message)")
        }
    }

    @Test func notifyNoFromTheConfigLeavesTheFeedOutOfTheNotification() async throws {
        try await withLoopbackServer({ request in
            request.path == "/set" ? .ok(rss(items: [("a", "A"), ("b", "B")])) : .ok(rss(items: [("c", "C"), ("d", "D")]))
        }) { http in
            let dir0 = try temporaryDirectory()
            let out = dir0.appendingPathComponent("notified.txt")
            let script = try writeExecutableScript(
                "printf '%s\\n' \"$@\" > '\(out.path)'", to: dir0.appendingPathComponent("n.sh"))
            // The config's own line, upper-case value, and a notify-format's new-item fields.
            let config = "notify-program \(script.path)\nnotify-format \"%d new in %D\"\nfeed \(http.url("/set")) < notify No\n"
            let (dir, db) = try subscribe(http, settings: [], config: config)
            defer {
                try? FileManager.default.removeItem(at: dir)
                try? FileManager.default.removeItem(at: dir0)
            }
            #expect(try zeader(["refresh", "--db", db], in: dir).status == 0)
            #expect(try String(contentsOf: out, encoding: .utf8) == "2 new in 1\n")
        }
    }

    @Test func maxDownloadSpeedHoldsItsFeedBackOnly() async throws {
        // Two MiB at 1 KiB a second take more than half an hour: the limited feed's transfer
        // is still going when the timeout both feeds share ends it, and nothing of it is
        // stored, while the other feed's whole body arrives at once. No time is measured.
        let body = "<p>" + String(repeating: "x", count: 2 << 20) + "</p>"
        let feed = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Large</title>
            <item><guid>big</guid><title>Big</title><description>\(body)</description></item>
            </channel></rss>
            """
        try await withLoopbackServer({ _ in .ok(feed) }) { http in
            let (dir, db) = try subscribe(http, settings: [("max-download-speed", "1")], config: "feed * < timeout 8\n")
            defer { try? FileManager.default.removeItem(at: dir) }
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 1)
            #expect(r.stderr.contains(http.url("/set").absoluteString) && r.stderr.lowercased().contains("time"), "\(r.stderr)")
            #expect(!r.stderr.contains(http.url("/plain").absoluteString), "\(r.stderr)")
            #expect(try totals(dir, db) == ["set": 0, "plain": 1])
        }
    }

    @Test func keepDaysDropsItsFeedsOldItems() async throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let feed = """
            <?xml version="1.0"?><rss version="2.0"><channel><title>Dated</title>
            <item><guid>old</guid><title>Old</title><pubDate>Mon, 01 Jan 2001 10:00:00 GMT</pubDate></item>
            <item><guid>new</guid><title>New</title><pubDate>\(formatter.string(from: Date()))</pubDate></item>
            </channel></rss>
            """
        try await withLoopbackServer({ _ in .ok(feed) }) { http in
            let (dir, db) = try subscribe(http, settings: [("keep-days", "30")], config: "cleanup-keeps none\n")
            defer { try? FileManager.default.removeItem(at: dir) }
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try totals(dir, db) == ["set": 1, "plain": 2])
        }
    }

    @Test func sslVerifyNoAcceptsASelfSignedCertificateForItsFeedOnly() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let server = try SelfSignedFeedServer(in: dir, feed: rss(items: [("t1", "Over TLS")]))
        defer { server.stop() }
        let db = dir.appendingPathComponent("z.sqlite").path
        let (checked, unchecked) = (server.url("/a.xml"), server.url("/b.xml"))
        var r = try zeader(["import", "-", "--db", db], in: dir, input: Data("\(checked)\n\(unchecked)\n".utf8))
        #expect(r.status == 0, "\(r.stderr)")
        r = try zeader(["set", unchecked, "ssl-verify", "no", "--db", db], in: dir)
        #expect(r.status == 0, "\(r.stderr)")
        r = try zeader(["refresh", "--db", db], in: dir)
        #expect(r.status == 1)
        #expect(r.stderr.contains(checked) && r.stderr.lowercased().contains("certificate"), "\(r.stderr)")
        #expect(!r.stderr.contains(unchecked), "\(r.stderr)")
        r = try zeader(["items", "--json", "--db", db], in: dir)
        #expect(r.stdout.contains("Over TLS"), "\(r.stdout)")
    }
}

/// `openssl s_server -WWW` on 127.0.0.1 with a certificate it signed itself, serving `feed`
/// as every `.xml` file asked for.
final class SelfSignedFeedServer: Sendable {
    let port: UInt16
    private let program: SpawnedProgram

    init(in dir: URL, feed: String) throws {
        let root = dir.appendingPathComponent("tls")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for name in ["a.xml", "b.xml"] {
            try feed.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let key = root.appendingPathComponent("key.pem").path
        let cert = root.appendingPathComponent("cert.pem").path
        let made = try SpawnedProgram(
            "/usr/bin/openssl",
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
            ], output: root.appendingPathComponent("req.log"))
        for _ in 0..<600 where made.isRunning { usleep(50_000) }
        port = try Self.freePort()
        // -WWW serves files relative to the working directory: the program runs in `root` through sh's cd.
        program = try SpawnedProgram(
            "/bin/sh",
            [
                "-c", #"cd "$1" && exec /usr/bin/openssl s_server -accept 127.0.0.1:"$2" -cert "$3" -key "$4" -WWW -quiet"#,
                "sh", root.path, String(port), cert, key,
            ],
            output: root.appendingPathComponent("server.log"))
        var tries = 0
        while !Self.accepts(port), tries < 600 {
            usleep(50_000)
            tries += 1
        }
    }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    func stop() { program.kill() }

    /// A port nothing listens on now (the kernel's choice for port 0).
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
        return UInt16(bigEndian: address.sin_port)
    }

    /// Whether a connection to `port` on 127.0.0.1 is accepted.
    static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
