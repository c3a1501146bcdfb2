import Feeds
import Foundation

/// newsboat's prompt history: the searches and command lines typed, Up and Down in the prompt
/// bring them back (newest first), and the last `history-limit` of each are kept in
/// `history.search` and `history.cmdline` beside the reader's state file, one a line, oldest
/// first (newsboat's files). `history-limit 0` keeps them for the session only.
///
/// ```swift
/// var history = PromptHistory(limit: 100, folder: nil)
/// history.remember("swift", in: .search)
/// history.recall(.up, in: .search, typed: "")   // "swift"
/// ```
struct PromptHistory {
    /// The prompts with a history, named as newsboat's files.
    enum Kind: String, CaseIterable {
        case search, cmdline
    }

    /// The longest line kept: a history file is the user's typing, not a place for data.
    static let longestLine = 4096

    private(set) var entries: [Kind: [String]] = [:]
    let limit: Int
    /// Where the files are; nil: nowhere (a config other than the default one, tests).
    let folder: URL?
    /// The entry Up/Down stand on, counted from the newest (0), and what was typed before.
    private var browsing: (kind: Kind, index: Int, typed: String)?

    init(limit: Int, folder: URL?) {
        self.limit = max(0, limit)
        self.folder = folder
        guard let folder, limit > 0 else { return }
        for kind in Kind.allCases {
            guard let text = try? String(contentsOf: Self.file(kind, in: folder), encoding: .utf8) else { continue }
            entries[kind] = Array(Self.lines(text).suffix(limit))
        }
    }

    /// The file of `kind`'s history in `folder`.
    static func file(_ kind: Kind, in folder: URL) -> URL { folder.appendingPathComponent("history.\(kind.rawValue)") }

    /// The lines a history file holds: none with a control character, none too long.
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { line in
            line.count <= longestLine && DisplayWidth.sanitizeForTerminal(line) == line
        }
    }

    /// Adds a submitted line (not twice in a row), and writes the file when there is one.
    mutating func remember(_ line: String, in kind: Kind) {
        browsing = nil
        guard !line.isEmpty, line.count <= Self.longestLine, !line.contains(where: \.isNewline) else { return }
        var list = entries[kind] ?? []
        if list.last != line { list.append(line) }
        // The session keeps lines a limit of 0 does not save.
        entries[kind] = Array(list.suffix(max(limit, 100)))
        guard let folder, limit > 0 else { return }
        let kept = list.suffix(limit).joined(separator: "\n") + "\n"
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try? Data(kept.utf8).write(to: Self.file(kind, in: folder), options: .atomic)
    }

    /// The line Up (older) or Down (newer) brings to the prompt; Down past the newest brings
    /// back what was typed.
    mutating func recall(_ up: Bool, in kind: Kind, typed: String) -> String {
        let list = entries[kind] ?? []
        var index = browsing.flatMap { $0.kind == kind ? $0.index : nil }
        let original = browsing?.kind == kind ? browsing?.typed ?? typed : typed
        if up {
            index = min((index ?? -1) + 1, list.count - 1)
        } else {
            index = index.flatMap { $0 > 0 ? $0 - 1 : nil }
        }
        guard let index, index >= 0, !list.isEmpty else {
            browsing = nil
            return original
        }
        browsing = (kind, index, original)
        return list[list.count - 1 - index]
    }

    /// Forgets where Up/Down stood (a prompt closed or edited).
    mutating func stopBrowsing() { browsing = nil }
}

extension PromptHistory.Kind {
    /// The history a prompt keeps: searches (in one feed or all) and the command line.
    init?(_ prompt: Prompt?) {
        switch prompt {
        case .search?, .searchFeed?: self = .search
        case .cmdline?: self = .cmdline
        default: return nil
        }
    }
}
