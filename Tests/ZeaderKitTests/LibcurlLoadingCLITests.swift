import Foundation
import Testing

/// Runs its arguments with the system's libcurl hidden (an empty file mounted over it in a
/// mount namespace of their own), as on a system without libcurl.
private let withoutLibcurl = [
    "/usr/bin/unshare", "-m", "/bin/sh", "-c",
    #"lib=$(readlink -f "$(/sbin/ldconfig -p | sed -n 's/.*libcurl[.]so[.]4 .*=> //p' | head -n 1)") && "#
        + #"mount --bind /dev/null "$lib" && exec "$@""#,
    "without-libcurl",
]

/// Whether this process may make a mount namespace (root, or a user namespace allowed).
private let canHideLibcurl: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: withoutLibcurl[0])
    process.arguments = Array(withoutLibcurl.dropFirst()) + ["/bin/true"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}()

/// libcurl is loaded by the first fetch: without it, each fetch fails with one line naming what
/// could not be loaded, and what fetches nothing keeps working.
@Suite(
    "libcurl loaded at the first fetch",
    .enabled(if: canHideLibcurl, "cannot make a mount namespace here (needs root): the reader's tmux test covers the loading"))
struct LibcurlLoadingCLITests {
    @Test("without libcurl a refresh names it and fails; listing and importing still work")
    func withoutLibcurlOnlyFetchingFails() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("store.sqlite").path
        let opml = directory.appendingPathComponent("feeds.opml")
        try """
        <?xml version="1.0"?><opml version="2.0"><body>
        <outline type="rss" text="Nowhere" xmlUrl="http://127.0.0.1:9/feed.xml"/></body></opml>
        """.write(to: opml, atomically: true, encoding: .utf8)

        let imported = try zeader(["--db", db, "import", opml.path], in: directory, launcher: withoutLibcurl)
        #expect(imported.status == 0, "\(imported.stderr)")

        let refreshed = try zeader(["--db", db, "refresh"], in: directory, launcher: withoutLibcurl)
        #expect(refreshed.status == 1)
        let failures = refreshed.stderr.split(separator: "\n").filter { $0.contains("cannot load libcurl: ") }
        #expect(failures.count == 1, "\(refreshed.stderr)")
        #expect(failures.first?.contains("http://127.0.0.1:9/feed.xml") == true)

        let listed = try zeader(["--db", db, "list"], in: directory, launcher: withoutLibcurl)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("http://127.0.0.1:9/feed.xml"))

        // The same store with libcurl: the fetch is tried (and fails to connect, not to load).
        let withLibcurl = try zeader(["--db", db, "refresh"], in: directory)
        #expect(!withLibcurl.stderr.contains("cannot load libcurl"), "\(withLibcurl.stderr)")
    }
}
