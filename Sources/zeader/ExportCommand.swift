import ArgumentParser
import ZeaderKit

/// `zeader export`: the subscriptions as OPML 2.0 on stdout.
///
/// ```sh
/// zeader export > feeds.opml
/// ```
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Print the subscriptions as an OPML 2.0 document.")

    @OptionGroup var store: StoreOptions

    func run() throws {
        let library = FeedLibrary(store: try store.openStore(command: "export"))
        do {
            CommandOutput.write(try library.exportOPML())
        } catch {
            throw CommandOutput.fail("export", error)
        }
    }
}
