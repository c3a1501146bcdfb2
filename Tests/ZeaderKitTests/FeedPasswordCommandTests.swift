import Foundation
import LoopbackHTTPServer
import Testing

/// A feed's `password-command`: its first line is the feed's HTTP password, the command run
/// as argv from the user's own config or `zeader set`, never taken from an imported file.
@Suite struct FeedPasswordCommandTests {
    /// A server that takes only `alice` with `password`, by Basic auth.
    static func loginServer(password: String) -> @Sendable (LoopbackHTTPServer.Request) -> LoopbackHTTPServer.Reply {
        { request in
            let expected = "Basic " + Data("alice:\(password)".utf8).base64EncodedString()
            if request.headers["authorization"] == expected { return .ok(rss(items: [("g1", "One")])) }
            return .status(401, headers: [("WWW-Authenticate", "Basic realm=\"feeds\"")])
        }
    }

    /// A script printing `first`, then a second line that is not the password.
    func passwordScript(in dir: URL, printing first: String = "pa55-secret") throws -> URL {
        try writeExecutableScript(
            "printf '%s\\nnot-the-password\\n' '\(first)'", to: dir.appendingPathComponent("password.sh"))
    }

    @Test(arguments: ["set", "config"])
    func theFeedsPasswordIsTheCommandsFirstLine(from place: String) async throws {
        try await withLoopbackServer(Self.loginServer(password: "pa55-secret")) { http in
            let url = "http://alice@127.0.0.1:\(http.port)/feed"
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let script = try passwordScript(in: dir)
            #expect(try zeader(["import", "-", "--db", db], in: dir, input: Data("\(url)\n".utf8)).status == 0)
            if place == "set" {
                let r = try zeader(["set", url, "password-command", script.path, "--db", db], in: dir)
                #expect(r.status == 0, "\(r.stderr)")
            } else {
                try writeConfig("feed \(url) < password-command \(script.path)\n", in: dir)
            }
            let refresh = try zeader(["refresh", "--db", db], in: dir)
            #expect(refresh.status == 0, "\(refresh.stderr)")
            let items = try zeader(["items", "--json", "--db", db], in: dir)
            #expect(items.stdout.contains("\"g1\""), "\(items.stdout)")
            for output in [refresh, items, try zeader(["list", "--json", "--db", db], in: dir)] {
                #expect(!output.stdout.contains("pa55-secret") && !output.stderr.contains("pa55-secret"))
            }
        }
    }

    @Test func theCommandsWordsAreArgvNeverAShell() async throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // The password the script makes of its arguments, as a shell would not split them.
        let password = "a b|$(touch \(dir.path)/pwned)|"
        try await withLoopbackServer(Self.loginServer(password: password)) { http in
            let url = "http://alice@127.0.0.1:\(http.port)/feed"
            let db = dir.appendingPathComponent("z.sqlite").path
            let script = try writeExecutableScript(#"printf '%s|' "$@"; echo"#, to: dir.appendingPathComponent("args.sh"))
            _ = try zeader(["import", "-", "--db", db], in: dir, input: Data("\(url)\n".utf8))
            let r = try zeader(
                ["set", url, "password-command", "\(script.path) 'a b' '$(touch \(dir.path)/pwned)'", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
            let refresh = try zeader(["refresh", "--db", db], in: dir)
            #expect(refresh.status == 0, "\(refresh.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("pwned").path))
        }
    }

    @Test func aFailingCommandFailsItsFeedInOneLineAndNoOther() async throws {
        try await withLoopbackServer(Self.loginServer(password: "pa55-secret")) { http in
            let locked = "http://alice@127.0.0.1:\(http.port)/feed"
            try await withLoopbackServer({ _ in .ok(rss(items: [("o1", "Open")])) }) { open in
                let dir = try temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: dir) }
                let db = dir.appendingPathComponent("z.sqlite").path
                let failing = try writeExecutableScript("echo pa55-secret; exit 3", to: dir.appendingPathComponent("f.sh"))
                _ = try zeader(["import", "-", "--db", db], in: dir, input: Data("\(locked)\n".utf8))
                _ = try zeader(["add", open.url("/feed").absoluteString, "--db", db], in: dir)
                _ = try zeader(["set", locked, "password-command", failing.path, "--db", db], in: dir)
                var r = try zeader(["refresh", "--db", db], in: dir)
                #expect(r.status == 1)
                #expect(
                    r.stderr.contains("\(locked): password-command failed (exit status 3); not fetched")
                        || r.stderr.contains("password-command failed"), "\(r.stderr)")
                #expect(!r.stderr.contains("pa55-secret") && !r.stdout.contains("pa55-secret"))
                #expect(try zeader(["items", "--db", db], in: dir).stdout.contains("Open"))
                // A command that prints nothing, or is missing: one line each.
                try writeExecutableScript("exit 0", to: failing)
                r = try zeader(["refresh", "--db", db], in: dir)
                #expect(r.stderr.contains("password-command printed no password"), "\(r.stderr)")
                _ = try zeader(["set", locked, "password-command", dir.appendingPathComponent("none").path, "--db", db], in: dir)
                r = try zeader(["refresh", "--db", db], in: dir)
                #expect(r.stderr.contains("password-command could not run"), "\(r.stderr)")
            }
        }
    }

    @Test func anImportedFileGivesNoPasswordCommandUnlessAllowed() async throws {
        try await withLoopbackServer(Self.loginServer(password: "pa55-secret")) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let script = try passwordScript(in: dir)
            let url = "http://alice@127.0.0.1:\(http.port)/feed"
            let line = "\(url) < max-items 5; PASSWORD-COMMAND \(script.path)\n"
            var r = try zeader(["import", "-", "--db", db], in: dir, input: Data(line.utf8))
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("password-command not taken from an imported file"), "\(r.stderr)")
            r = try zeader(["list", "--json", "--db", db], in: dir)
            #expect(r.stdout.contains("max-items") && !r.stdout.contains("password-command"), "\(r.stdout)")
            #expect(try zeader(["refresh", "--db", db], in: dir).status == 1)
            r = try zeader(["import", "-", "--allow-commands", "--db", db], in: dir, input: Data(line.utf8))
            #expect(r.status == 0 && !r.stderr.contains("password-command"), "\(r.stderr)")
            r = try zeader(["refresh", "--db", db], in: dir)
            #expect(r.status == 0, "\(r.stderr)")
        }
    }
}
