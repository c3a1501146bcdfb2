import Foundation
import ObjectGraph
import ZeaderKit

/// newsboat's edit-urls (`E`): the feeds written as a urls file, edited in `$VISUAL` (else
/// `$EDITOR`, else `vi`), and the edit applied back as one undo step
/// (``FeedURLsEditing``); the feeds it added are refreshed.
extension ReaderApp {
    /// The editor's argv: `$VISUAL`, else `$EDITOR`, else `vi`, split at blanks (no shell).
    static func editorCommand(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let chosen = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
        let words = chosen.split(whereSeparator: \.isWhitespace).map(String.init)
        return words.isEmpty ? ["vi"] : words
    }

    /// Runs the editor (`editor`, else ``editorCommand(_:)``) on the feeds as a urls file.
    func editURLs(editor: [String]? = nil) {
        let original: String
        do { original = try FeedURLsEditing.text(in: model.context) } catch {
            state.say(.failed("\(error)"))
            return
        }
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("zeader-urls-\(getpid())-\(UUID().uuidString.prefix(8))").path
        guard FileManager.default.createFile(atPath: path, contents: Data(original.utf8), attributes: [.posixPermissions: 0o600])
        else {
            state.say(.reader(.cannotWrite(path: path, "cannot create the file")))
            return
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        let argv = (editor ?? Self.editorCommand()) + [path]
        switch effects.run(ProgramRun(argv: argv, purpose: .editor(path: path)), backend: backend) {
        case .failure(let error):
            state.say(.failed(error.description))
            return
        case .success(let status) where status != 0:
            state.say(.reader(.editorExited(command: argv[0], status: status)))
            return
        case .success: break
        }
        guard let edited = try? String(contentsOfFile: path, encoding: .utf8) else {
            state.say(.reader(.cannotReadBack(path: path)))
            return
        }
        guard edited != original else {
            state.say(.reader(.feedsEdited(.none)))
            return
        }
        let report: FeedURLsEditing.Report
        do { report = try FeedURLsEditing.apply(edited, in: model.context) } catch {
            state.say(.reader(.feedsUnchanged("\(error)")))
            return
        }
        rearrangeFeeds()
        state.say(.reader(.feedsEdited(report)))
        if !report.added.isEmpty, refresher != nil { refresh(report.added) }
    }
}
