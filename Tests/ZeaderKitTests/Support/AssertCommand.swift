import Foundation
import Testing

@testable import ZeaderKit

/// Runs the built `zeader` with `arguments` against the store at `db` and checks its exit
/// status and output in one line, so that a command-line test reads as one behaviour:
///
/// ```swift
/// try AssertCommand(["mark-read", "--all"], db: db, stdout: "marked 2 items read\n")
/// ```
///
/// `stdout`/`stderr` given: must be equal; `stdoutContains`/`stderrContains`: must occur.
/// Returns the result for further checks.
// swift-format-ignore: AlwaysUseLowerCamelCase
@discardableResult
func AssertCommand(
    _ arguments: [String], db: URL, status: Int32 = 0, stdout: String? = nil, stdoutContains: String? = nil,
    stderr: String? = nil, stderrContains: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
) throws -> CommandResult {
    let result = try zeader(arguments + ["--db", db.path], in: db.deletingLastPathComponent())
    #expect(result.status == status, "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    if let stdout { #expect(result.stdout == stdout, "\(arguments)", sourceLocation: sourceLocation) }
    if let stdoutContains {
        #expect(result.stdout.contains(stdoutContains), "\(arguments): \(result.stdout)", sourceLocation: sourceLocation)
    }
    if let stderr { #expect(result.stderr == stderr, "\(arguments)", sourceLocation: sourceLocation) }
    if let stderrContains {
        #expect(result.stderr.contains(stderrContains), "\(arguments): \(result.stderr)", sourceLocation: sourceLocation)
    }
    return result
}

/// A store in a temporary folder with one feed of items titled as given (newest last), for
/// command-line tests; remove the folder when done.
func storeWithItems(_ titles: [String], feed: String = "https://a.example/feed") throws -> URL {
    let db = try temporaryDirectory().appendingPathComponent("z.sqlite")
    let store = try ZeaderStore.open(at: db)
    let context = store.container.newBackgroundContext(name: "fixture")
    try context.performAndWait { () throws in
        let server = try FeedSubscription.add(url: feed, in: context)
        for (n, title) in titles.enumerated() {
            let item = context.insert(FeedItem.self)
            item.guid = "g\(n)"
            item.title = title
            item.sortDate = Date(timeIntervalSince1970: Double(1_000 * (n + 1)))
            item.server = server
        }
        try context.save()
    }
    return db
}
