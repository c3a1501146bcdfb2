import Testing

@testable import zeader

/// What `zeader --help` tells a first-time user.
struct HelpTests {
    @Test func helpSaysThatPlainZeaderOpensTheReader() {
        let help = Zeader.helpMessage(columns: 100)
        #expect(help.contains("USAGE: zeader [--db <PATH>] [--demo] [<subcommand>]"))
        #expect(help.contains("Without a subcommand, zeader opens the interactive reader"))
    }
}
