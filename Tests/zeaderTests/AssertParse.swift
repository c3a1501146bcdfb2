import ArgumentParser
import Testing

@testable import zeader

/// Parses `arguments` as the root command would (global options moved after the
/// subcommand's name first) and checks that they make a `Command`, then hands it to
/// `body`: one behaviour per test, as swift-argument-parser's own `AssertParse`.
///
/// ```swift
/// AssertParse(ItemsCommand.self, ["items", "--unread", "--limit", "3"]) { #expect($0.limit == 3) }
/// ```
// swift-format-ignore: AlwaysUseLowerCamelCase
func AssertParse<Command: ParsableCommand>(
    _ type: Command.Type, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (Command) throws -> Void = { _ in }
) rethrows {
    let parsed: ParsableCommand
    do {
        parsed = try Zeader.parseAsRoot(Zeader.normalizedArguments(arguments))
    } catch {
        Issue.record("\(arguments) did not parse: \(Zeader.fullMessage(for: error))", sourceLocation: sourceLocation)
        return
    }
    guard let command = parsed as? Command else {
        Issue.record("\(arguments) parsed as \(Swift.type(of: parsed)), not \(Command.self)", sourceLocation: sourceLocation)
        return
    }
    try body(command)
}

/// Checks that `arguments` are refused with a message containing `message` and the exit
/// status `status` (2 for usage errors, as `Zeader.main` maps them).
///
/// ```swift
/// AssertParseFails(["refresh", "--jobs", "0"], message: "--jobs must be between 1 and 64")
/// ```
// swift-format-ignore: AlwaysUseLowerCamelCase
func AssertParseFails(
    _ arguments: [String], message: String, status: Int32 = 2, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let command = try Zeader.parseAsRoot(Zeader.normalizedArguments(arguments))
        Issue.record("\(arguments) parsed as \(type(of: command)); expected: \(message)", sourceLocation: sourceLocation)
    } catch {
        let text = Zeader.fullMessage(for: error)
        #expect(text.contains(message), "\(arguments): \(text)", sourceLocation: sourceLocation)
        #expect(Zeader.exitStatus(for: error) == status, "\(arguments): \(text)", sourceLocation: sourceLocation)
    }
}
