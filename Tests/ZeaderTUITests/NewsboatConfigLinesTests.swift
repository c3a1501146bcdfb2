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
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("unbind-key NOSUCHKEY\n", file: "c") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("unbind-key j all extra\n", file: "c") }
    }

    @Test(arguments: ["pb-download", "pb-delete", "pb-toggle-download-all"])
    func podboatsActionsAreWarnings(action: String) throws {
        let config = try ReaderConfig.parse("bind-key d \(action)\n", file: "c")
        #expect(config.keyMap.action(for: .character("d")) == KeyMap.default.action(for: .character("d")))
        #expect(
            config.warnings.map(\.message) == [
                "podboat's action '\(action)' belongs to podboat; Zeader's queue is zeader podcasts (line ignored)"
            ])
        // Bound in podboat's own view, it is podboat's screen Zeader lacks.
        let inPodboat = try ReaderConfig.parse("bind-key d \(action) podboat\n", file: "c")
        #expect(inPodboat.warnings.map(\.message) == ["Zeader has no podboat screen (line ignored)"])
        #expect(ReaderConfig.check("bind-key d \(action)\n", file: "c").map(\.isError) == [false])
    }

    @Test(arguments: [("100", 64), ("0", 1), ("-3", 1), ("64", 64), ("8", 8)])
    func reloadThreadsOutsideTheRangeIsBroughtInWithAWarning(value: String, used: Int) throws {
        let config = try ReaderConfig.parse("reload-threads \(value)\n", file: "c")
        #expect(config.reloadThreads == used)
        #expect(config.warnings.count == (String(used) == value ? 0 : 1))
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("reload-threads many\n", file: "c") }
    }
}
