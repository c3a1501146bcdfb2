import ArgumentParser
import Foundation
import ZeaderConfig

/// `zeader config check [FILE]`: every problem of the reader's config file (errors that
/// stop the reader, and warnings such as newsboat directives without an equivalent), one a
/// line as `file:line: error: message` or `…: warning: …`; exit status 1 when there is an
/// error, 0 when the reader would start.
///
/// ```sh
/// zeader config check || $EDITOR ~/.config/zeader/config
/// ```
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config", abstract: "Check the reader's config file.", subcommands: [ConfigCheckCommand.self])
}

struct ConfigCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Print every problem of the config file; exit status 1 if the reader would not start.",
        discussion: "Without FILE, checks $XDG_CONFIG_HOME/zeader/config. A newsboat config file may be checked as it is.")

    @Argument(help: ArgumentHelp("The config file to check.", valueName: "FILE"))
    var file: String?

    func run() throws {
        let url = file.map { URL(fileURLWithPath: $0) } ?? ReaderConfig.defaultURL()
        if let file, !FileManager.default.fileExists(atPath: file) {
            FileHandle.standardError.write(Data("zeader config check: no such file: \(file)\n".utf8))
            throw ExitCode.failure
        }
        let problems = ReaderConfig.check(at: url)
        for problem in problems { print(problem) }
        if problems.isEmpty { print("\(url.path): no problems") }
        if problems.contains(where: \.isError) { throw ExitCode.failure }
    }
}
