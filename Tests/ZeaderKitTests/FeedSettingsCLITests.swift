import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing

/// Settings per feed and per tag, and the network settings, through the binary against
/// servers and proxies on 127.0.0.1: each setting reaches the fetch from each place it may
/// be written (the urls file, the config's `feed` lines, `zeader set`), and no secret shows
/// in any output.
@Suite struct FeedSettingsCLITests {
    /// A folder with the config file holding `config`, and the store's path.
    func setUp(config: String = "") throws -> (dir: URL, db: String) {
        let dir = try temporaryDirectory()
        let configDir = dir.appendingPathComponent("config/zeader")
        try FileManager.default.createDirectory(at: configDir, withIntermediateDirectories: true)
        try config.write(to: configDir.appendingPathComponent("config"), atomically: true, encoding: .utf8)
        return (dir, dir.appendingPathComponent("z.sqlite").path)
    }

    /// Where a feed's setting is written.
    enum Place: String, CaseIterable, Sendable {
        case urlsFile, configFeedLine, configTagLine, setCommand
    }

    /// Subscribes to `url` (tagged `t`) with `settings` written at `place`; returns the store.
    func subscribe(_ url: String, settings: String, at place: Place, config: String = "") throws -> (dir: URL, db: String) {
        var configText = config
        switch place {
        case .configFeedLine: configText += "feed \(url) < \(settings)\n"
        case .configTagLine: configText += "feed tag:t < \(settings)\n"
        default: break
        }
        let (dir, db) = try setUp(config: configText)
        let line = place == .urlsFile ? "\(url) t < \(settings)\n" : "\(url) t\n"
        let r = try zeader(["import", "-", "--db", db], in: dir, input: Data(line.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        if place == .setCommand {
            for pair in settings.split(separator: ";") {
                let words = pair.split(separator: " ", maxSplits: 1).map(String.init)
                let r = try zeader(["set", url, words[0], words[1], "--db", db], in: dir)
                #expect(r.status == 0, "\(r.stderr)")
            }
        }
        return (dir, db)
    }

    /// Every output a user or a script sees of the store: none may hold `secret`. (The
    /// JSON backup, made to restore this store, keeps each feed's URL whole.)
    func expectNowhere(_ secrets: [String], dir: URL, db: String, also: [CommandResult] = []) throws {
        var outputs = also
        for arguments in [["list"], ["list", "--json"], ["export"], ["config", "check"]] {
            outputs.append(try zeader(arguments + ["--db", db], in: dir))
        }
        for output in outputs {
            for secret in secrets {
                #expect(!output.stdout.contains(secret) && !output.stderr.contains(secret), "\(output.stdout)\(output.stderr)")
            }
        }
    }

    @Test(arguments: Place.allCases)
    func aFeedNeedingACookieGetsIt(place: Place) async throws {
        try await withLoopbackServer({ request in
            (request.headers["cookie"] ?? "").contains("session=c00kie-secret")
                ? .ok(rss(items: [("g1", "One")])) : .status(403)
        }) { http in
            let url = http.url("/feed").absoluteString
            let (dir, db) = try subscribe(url, settings: "cookie session=c00kie-secret", at: place)
            defer { try? FileManager.default.removeItem(at: dir) }
            let refresh = try zeader(["refresh", "--db", db], in: dir)
            #expect(refresh.status == 0, "\(refresh.stderr)")
            let list = try zeader(["list", "--json", "--db", db], in: dir)
            if place == .urlsFile || place == .setCommand {
                #expect(list.stdout.contains("\"cookie\":\"***\""), "\(list.stdout)")
            }
            try expectNowhere(["c00kie-secret"], dir: dir, db: db, also: [refresh])
        }
    }

    @Test func withoutTheCookieTheFeedFails() async throws {
        try await withLoopbackServer({ request in
            request.headers["cookie"] == nil ? .status(403) : .ok(rss(items: [("g1", "One")]))
        }) { http in
            let (dir, db) = try setUp()
            defer { try? FileManager.default.removeItem(at: dir) }
            _ = try zeader(["import", "-", "--db", db], in: dir, input: Data((http.url("/feed").absoluteString + "\n").utf8))
            #expect(try zeader(["refresh", "--db", db], in: dir).status == 1)
        }
    }

    /// A cookie file in Netscape format is read before the fetch and gets the cookies the
    /// server sets, globally and per feed.
    @Test(arguments: ["global", "feed"])
    func theCookieCacheIsReadAndWritten(where written: String) async throws {
        try await withLoopbackServer({ request in
            guard (request.headers["cookie"] ?? "").contains("session=from-file") else { return .status(403) }
            return .respond(
                status: 200, headers: [("Content-Type", "application/rss+xml"), ("Set-Cookie", "seen=by-server; Path=/")],
                body: Data(rss(items: [("g1", "One")]).utf8))
        }) { http in
            let jarFolder = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: jarFolder) }
            let jar = jarFolder.appendingPathComponent("cookies.txt")
            try "# Netscape HTTP Cookie File\n127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tfrom-file\n"
                .write(to: jar, atomically: true, encoding: .utf8)
            let url = http.url("/feed").absoluteString
            let (dir, db) = try setUp(config: written == "global" ? "cookie-cache \"\(jar.path)\"\n" : "")
            defer { try? FileManager.default.removeItem(at: dir) }
            let line = url + (written == "feed" ? " < cookie-cache \(jar.path)" : "") + "\n"
            var r = try zeader(["import", "-", "--db", db], in: dir, input: Data(line.utf8))
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let saved = try String(contentsOf: jar, encoding: .utf8)
            #expect(saved.contains("seen\tby-server"), "\(saved)")
        }
    }

    /// The server asks for a login (Basic or Digest) and takes only `alice` with her password.
    static func loginServer(digest: Bool) -> @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        { request in
            let authorization = request.headers["authorization"] ?? ""
            let feed = LoopbackHTTPServer.Reply.ok(rss(items: [("g1", "One")]))
            if digest {
                // RFC 7616 with qop=auth: the answer is a hash of the password, never the password.
                if authorization.hasPrefix("Digest "), digestField(authorization, "username") == "alice",
                    let uri = digestField(authorization, "uri"), let nc = digestField(authorization, "nc"),
                    let cnonce = digestField(authorization, "cnonce"), !authorization.contains("pa55-secret")
                {
                    let ha1 = md5Hex("alice:feeds:pa55-secret")
                    let ha2 = md5Hex("GET:\(uri)")
                    if digestField(authorization, "response") == md5Hex("\(ha1):n0nce:\(nc):\(cnonce):auth:\(ha2)") {
                        return feed
                    }
                }
                return .status(401, headers: [("WWW-Authenticate", "Digest realm=\"feeds\", nonce=\"n0nce\", qop=\"auth\"")])
            }
            let expected = "Basic " + Data("alice:pa55-secret".utf8).base64EncodedString()
            if authorization == expected { return feed }
            return .status(401, headers: [("WWW-Authenticate", "Basic realm=\"feeds\"")])
        }
    }

    @Test(arguments: [false, true])
    func aFeedBehindALoginInItsURL(digest: Bool) async throws {
        try await withLoopbackServer(Self.loginServer(digest: digest)) { http in
            let url = "http://alice:pa55-secret@127.0.0.1:\(http.port)/feed"
            let (dir, db) = try setUp()
            defer { try? FileManager.default.removeItem(at: dir) }
            var r = try zeader(["import", "-", "--db", db], in: dir, input: Data((url + "\n").utf8))
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["set", url, "http-auth-method", digest ? "digest" : "basic", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let refresh = try zeader(["refresh", "--db", db], in: dir)
            #expect(refresh.status == 0, "\(refresh.stderr)")
            let items = try zeader(["items", "--json", "--db", db], in: dir)
            #expect(items.stdout.contains("\"g1\""))
            try expectNowhere(["pa55-secret"], dir: dir, db: db, also: [refresh, items])
        }
    }

    @Test(arguments: [false, true])
    func aWrongPasswordFailsWithoutShowingIt(digest: Bool) async throws {
        try await withLoopbackServer(Self.loginServer(digest: digest)) { http in
            let url = "http://alice:wr0ng-secret@127.0.0.1:\(http.port)/feed"
            let (dir, db) = try setUp()
            defer { try? FileManager.default.removeItem(at: dir) }
            _ = try zeader(["import", "-", "--db", db], in: dir, input: Data((url + "\n").utf8))
            let refresh = try zeader(["refresh", "--db", db], in: dir)
            #expect(refresh.status == 1)
            #expect(refresh.stderr.contains("401"), "\(refresh.stderr)")
            try expectNowhere(["wr0ng-secret"], dir: dir, db: db, also: [refresh])
        }
    }

    @Test(arguments: Place.allCases)
    func secretsStayOutOfTheErrorLogAndEveryListing(place: Place) async throws {
        try await withLoopbackServer(Self.loginServer(digest: false)) { http in
            let url = "http://alice:l0gin-secret@127.0.0.1:\(http.port)/feed"
            let settings = "cookie session=c00kie-secret;header Authorization: Bearer he4der-secret"
            let (dir, db) = try subscribe(url, settings: settings, at: place, config: "error-log ~/errors.log\n")
            defer { try? FileManager.default.removeItem(at: dir) }
            let refresh = try zeader(["refresh", "--db", db], in: dir)
            #expect(refresh.status == 1)
            let log = try String(contentsOf: dir.appendingPathComponent("errors.log"), encoding: .utf8)
            #expect(log.contains("127.0.0.1:\(http.port)/feed"), "\(log)")
            let secrets = ["l0gin-secret", "c00kie-secret", "he4der-secret"]
            for secret in secrets { #expect(!log.contains(secret), "\(log)") }
            let items = try zeader(["items", "--json", "--db", db], in: dir)
            try expectNowhere(secrets, dir: dir, db: db, also: [refresh, items])
        }
    }

    /// A feed at a name no resolver knows, reachable only through the proxy.
    static let unreachableFeed = "http://feed.invalid/feed"

    @Test(arguments: ["global", "feed"])
    func aFeedReachedOnlyThroughAnHTTPProxy(where written: String) async throws {
        try await withLoopbackServer({ request in
            // A proxy is asked for the absolute URL, with its own login.
            let login = "Basic " + Data("proxyuser:pr0xy-secret".utf8).base64EncodedString()
            guard request.headers["proxy-authorization"] == login else {
                return .status(407, headers: [("Proxy-Authenticate", "Basic realm=\"proxy\"")])
            }
            return request.path == Self.unreachableFeed ? .ok(rss(items: [("g1", "One")])) : .status(404)
        }) { proxy in
            let settings = "proxy 127.0.0.1:\(proxy.port); proxy-type http; proxy-auth proxyuser:pr0xy-secret"
            let config = written == "global" ? settings.replacingOccurrences(of: "; ", with: "\n") + "\n" : ""
            let (dir, db) = try setUp(config: config)
            defer { try? FileManager.default.removeItem(at: dir) }
            let line = Self.unreachableFeed + (written == "feed" ? " < " + settings : "") + "\n"
            var r = try zeader(["import", "-", "--db", db], in: dir, input: Data(line.utf8))
            #expect(r.status == 0, "\(r.stderr)")
            let refresh = try zeader(["refresh", "--db", db], in: dir)
            #expect(refresh.status == 0, "\(refresh.stderr)")
            r = try zeader(["items", "--json", "--db", db], in: dir)
            #expect(r.stdout.contains("\"g1\""))
            try expectNowhere(["pr0xy-secret"], dir: dir, db: db, also: [refresh])
            // use-proxy no: the proxy is left out, and the feed cannot be reached.
            r = try zeader(["set", Self.unreachableFeed, "use-proxy", "no", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try zeader(["refresh", "--db", db], in: dir).status == 1)
        }
    }

    @Test(arguments: ["socks5h", "socks5"])
    func aFeedReachedOnlyThroughSOCKS5(type: String) async throws {
        try await withLoopbackServer({ request in
            request.path == "/feed" ? .ok(rss(items: [("g1", "One")])) : .status(404)
        }) { http in
            let socks = try LoopbackSOCKS5Proxy(backendPort: http.port)
            defer { socks.stop() }
            // socks5h: the proxy resolves the name; socks5: the client does (an address: no resolver asked).
            // Port 9 on 127.0.0.1 has no server: only the proxy reaches the feed.
            let feed = type == "socks5h" ? Self.unreachableFeed : "http://127.0.0.1:9/feed"
            let (dir, db) = try setUp()
            defer { try? FileManager.default.removeItem(at: dir) }
            let line = "\(feed) < proxy 127.0.0.1:\(socks.port); proxy-type \(type)\n"
            var r = try zeader(["import", "-", "--db", db], in: dir, input: Data(line.utf8))
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(socks.targets == [type == "socks5h" ? "feed.invalid:80" : "127.0.0.1:9"])
        }
    }

    @Test func eachFeedNamesItselfWithItsOwnUserAgent() async throws {
        let agents = Mutex<[String: String]>([:])
        try await withLoopbackServer({ request in
            agents.withLock { $0[request.path] = request.headers["user-agent"] ?? "" }
            return .ok(rss(items: [("g1", "One")]))
        }) { http in
            let (a, b, c) = (http.url("/a").absoluteString, http.url("/b").absoluteString, http.url("/c").absoluteString)
            let (dir, db) = try setUp(config: "user-agent \"Global Agent\"\nfeed tag:bee < user-agent \"Agent B; tag\"\n")
            defer { try? FileManager.default.removeItem(at: dir) }
            let urls = "\(a) < user-agent Agent-A\n\(b) bee\n\(c)\n"
            var r = try zeader(["import", "-", "--db", db], in: dir, input: Data(urls.utf8))
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(agents.withLock { $0 } == ["/a": "Agent-A", "/b": "Agent B; tag", "/c": "Global Agent"])
            // zeader set wins over the urls file's line; unset gives the tag's and global's back.
            r = try zeader(["set", a, "user-agent", "Agent", "A2", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            _ = try zeader(["refresh", "--db", db], in: dir)
            #expect(agents.withLock { $0["/a"] } == "Agent A2")
            _ = try zeader(["unset", a, "user-agent", "--db", db], in: dir)
            _ = try zeader(["refresh", "--db", db], in: dir)
            #expect(agents.withLock { $0["/a"] } == "Global Agent")
        }
    }

    @Test(arguments: [Place.urlsFile, .configFeedLine, .configTagLine, .setCommand])
    func refreshDueFetchesOnlyTheFeedsWhoseIntervalPassed(place: Place) async throws {
        let fetched = Mutex<[String]>([])
        try await withLoopbackServer({ request in
            fetched.withLock { $0.append(request.path) }
            return .ok(rss(items: [("g1", "One")]))
        }) { http in
            let slow = http.url("/slow").absoluteString
            let (dir, db) = try subscribe(slow, settings: "reload-interval 60", at: place)
            defer { try? FileManager.default.removeItem(at: dir) }
            var r = try zeader(["import", "-", "--db", db], in: dir, input: Data((http.url("/fast").absoluteString + "\n").utf8))
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["refresh", "--due", "--db", db], in: dir)  // never refreshed: both are due
            #expect(r.status == 0, "\(r.stderr)")
            #expect(fetched.withLock { $0 }.sorted() == ["/fast", "/slow"])
            fetched.withLock { $0 = [] }
            r = try zeader(["refresh", "--due", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(fetched.withLock { $0 } == ["/fast"])
            // Without --due every feed is refreshed.
            fetched.withLock { $0 = [] }
            _ = try zeader(["refresh", "--db", db], in: dir)
            #expect(fetched.withLock { $0 }.sorted() == ["/fast", "/slow"])
        }
    }

    @Test(arguments: [Place.urlsFile, .configFeedLine, .configTagLine, .setCommand])
    func maxItemsPerFeed(place: Place) async throws {
        let five = rss(items: (1...5).map { ("g\($0)", "Item \($0)") })
        try await withLoopbackServer({ _ in .ok(five) }) { http in
            let small = http.url("/small").absoluteString
            let (dir, db) = try subscribe(
                small, settings: "max-items 2", at: place, config: "cleanup-keeps none\nmax-items 4\n")
            defer { try? FileManager.default.removeItem(at: dir) }
            _ = try zeader(["import", "-", "--db", db], in: dir, input: Data((http.url("/other").absoluteString + "\n").utf8))
            let r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let list = try zeader(["list", "--json", "--db", db], in: dir)
            let feeds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            let totals = Dictionary(uniqueKeysWithValues: feeds.map { ($0["url"] as? String ?? "", $0["total"] as? Int ?? -1) })
            #expect(totals[small] == 2)
            #expect(totals[http.url("/other").absoluteString] == 4)
        }
    }

    @Test func cleanupHonoursEachFeedsMaxItems() async throws {
        let five = rss(items: (1...5).map { ("g\($0)", "Item \($0)") })
        try await withLoopbackServer({ _ in .ok(five) }) { http in
            let (small, other) = (http.url("/small").absoluteString, http.url("/other").absoluteString)
            let (dir, db) = try setUp(config: "cleanup-keeps none\nfeed tag:t < keep-days 0\n")
            defer { try? FileManager.default.removeItem(at: dir) }
            _ = try zeader(["import", "-", "--db", db], in: dir, input: Data("\(small) t\n\(other)\n".utf8))
            var r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["set", small, "max-items", "2", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            r = try zeader(["cleanup", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let list = try zeader(["list", "--json", "--db", db], in: dir)
            let feeds = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
            let totals = Dictionary(uniqueKeysWithValues: feeds.map { ($0["url"] as? String ?? "", $0["total"] as? Int ?? -1) })
            #expect(totals == [small: 2, other: 5])
        }
    }

    @Test func aBadSettingIsRefusedWithOneLineNamingIt() async throws {
        let (dir, db) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = "https://example.org/feed"
        _ = try zeader(["import", "-", "--db", db], in: dir, input: Data((url + "\n").utf8))
        for (arguments, named) in [
            (["max-items", "lots"], "max-items"), (["colour", "red"], "colour"), (["proxy-type", "ftp"], "proxy-type"),
            (["cookie", "n0-equals-secret"], "cookie"), (["reload-interval", "0"], "reload-interval"),
            (["header", "no colon"], "header"), (["ssl-verify", "maybe"], "ssl-verify"),
        ] {
            let r = try zeader(["set", url] + arguments + ["--db", db], in: dir)
            #expect(r.status == 2, "\(arguments) \(r.stderr)")
            #expect(r.stderr.contains(named), "\(r.stderr)")
            #expect(!r.stderr.contains("n0-equals-secret"))
        }
        let r = try zeader(["set", "https://not.subscribed/feed", "timeout", "5", "--db", db], in: dir)
        #expect(r.status != 0)
        #expect(r.stderr.contains("not.subscribed"))
        // Nothing was stored.
        #expect(try zeader(["list", "--json", "--db", db], in: dir).stdout.contains("\"settings\":{}"))
    }

    @Test func aUrlsLineWithBadSettingsKeepsTheFeedAndSaysWhy() async throws {
        let (dir, db) = try setUp()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = "https://example.org/a < max-items lots\nhttps://example.org/b < timeout 9\n"
        let r = try zeader(["import", "-", "--db", db], in: dir, input: Data(text.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        #expect((r.stdout + r.stderr).contains("max-items 'lots'"), "\(r.stdout)\(r.stderr)")
        let list = try zeader(["list", "--json", "--db", db], in: dir).stdout
        #expect(list.contains("https://example.org/a"))
        #expect(list.contains("\"settings\":{\"timeout\":\"9\"}"), "\(list)")
    }

    @Test func aBadConfigLineIsNamedByConfigCheck() throws {
        let (dir, db) = try setUp(
            config: "feed tag:x < max-items lots\nproxy-type gopher\nfeed https://a.example/ < cookie sess=k3y-secret\n")
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try zeader(["config", "check", "--db", db], in: dir)
        #expect(r.stdout.contains("max-items 'lots'") || r.stderr.contains("max-items 'lots'"), "\(r.stdout)\(r.stderr)")
        #expect((r.stdout + r.stderr).contains("proxy-type"))
        #expect(!(r.stdout + r.stderr).contains("k3y-secret"))
    }
}
