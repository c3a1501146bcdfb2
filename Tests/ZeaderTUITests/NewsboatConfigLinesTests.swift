import Foundation
import Testing

@testable import ZeaderConfig

/// Lines real newsboat configs hold that must not stop the reader: `unbind-key -a`, a view
/// word after `unbind-key`, podboat's own actions, numbers past Zeader's range.
@Suite struct NewsboatConfigLinesTests {
    @Test func unbindAllLeavesOnlyTheConfigsOwnKeys() throws {
        let config = try ReaderConfig.parse("unbind-key -a # unbind currently bound keys\nbind-key j down\n", file: "c")
        #expect(config.keyMap.action(for: .character("j")) == .down)
        #expect(config.keyMap.action(for: .character("q")) == nil)
        #expect(config.keyMap.action(for: .enter) == nil)
        #expect(config.warnings.isEmpty)
    }

    @Test(arguments: ["g all", "G all", "ENTER feedlist", "^E article"])
    func unbindKeyTakesNewsboatsViewWord(line: String) throws {
        let key = try #require(Key(name: String(line.split(separator: " ")[0])))
        #expect(KeyMap.default.action(for: key) != nil)
        let config = try ReaderConfig.parse("unbind-key \(line)\n", file: "c")
        // In the view named (`all`: every view); the other views keep the key.
        let word = String(line.split(separator: " ")[1])
        let view = KeyView(rawValue: word)
        #expect(config.keyMap.action(for: key, in: view) == nil)
        if view != nil { #expect(config.keyMap.action(for: key, in: .help) == KeyMap.default.action(for: key)) }
    }

    @Test func aWrongUnbindKeyIsStillAnError() {
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("unbind-key\n", file: "c") }
        // A key name Zeader does not know is newsboat's too: it binds nothing, so the line is a warning.
        #expect((try? ReaderConfig.parse("unbind-key NOSUCHKEY\n", file: "c"))?.warnings.count == 1)
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("unbind-key j all extra\n", file: "c") }
    }

    /// As in newsboat, a pb- action without a view binds in podboat's view (the podcast queue)
    /// only: `D` keeps deleting items everywhere else.
    @Test(arguments: [
        ("bind-key D pb-download", Action.pbDownload), ("bind-key x pb-delete", .pbDelete),
        ("bind-key X pb-delete podboat", .pbDelete), ("bind-key D pb-toggle-download-all", .pbToggleDownloadAll),
        ("bind D podboat pb-download", .pbDownload), ("bind D everywhere pb-play", .pbPlay),
        ("bind-key  D\tpb-cancel  ", .pbCancel),
    ])
    func podboatsActionsBindInThePodcastQueue(line: String, action: Action) throws {
        let config = try ReaderConfig.parse(line + "\n", file: "c")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        let key: Key = line.contains(" x ") ? .character("x") : line.contains(" X ") ? .character("X") : .character("D")
        #expect(config.keyMap.action(for: key, in: .podboat) == action)
        for view in KeyView.allCases where view != .podboat {
            #expect(config.keyMap.action(for: key, in: view) == KeyMap.default.action(for: key, in: view), "\(view)")
        }
        #expect(config.keyMap.action(for: .character("D"), in: .articlelist) == .deleteArticle)
        #expect(ReaderConfig.check(line + "\n", file: "c").isEmpty)
    }

    @Test(arguments: ["pb-quit", "pb-hard-quit", "pb-help", "pb-increase-max-dls", "pb-decrease-max-dls", "pb-purge"])
    func everyPodboatActionIsRead(action: String) throws {
        let config = try ReaderConfig.parse("bind-key z \(action) podboat\nbind-key j down podboat\n", file: "c")
        #expect(config.warnings.isEmpty, "\(config.warnings)")
        #expect(config.keyMap.action(for: .character("z"), in: .podboat) != nil)
        #expect(config.keyMap.action(for: .character("j"), in: .podboat) == .down)
        // A misspelt one is an unknown action with the names it is close to.
        let typo = try ReaderConfig.parse("bind-key d pb-downlaod\n", file: "c")
        #expect(typo.warnings.first?.message.contains("did you mean pb-download") == true, "\(typo.warnings)")
    }

    @Test(arguments: [("100", 64), ("0", 1), ("-3", 1), ("64", 64), ("8", 8)])
    func reloadThreadsOutsideTheRangeIsBroughtInWithAWarning(value: String, used: Int) throws {
        let config = try ReaderConfig.parse("reload-threads \(value)\n", file: "c")
        #expect(config.reloadThreads == used)
        #expect(config.warnings.count == (String(used) == value ? 0 : 1))
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("reload-threads many\n", file: "c") }
    }
}
