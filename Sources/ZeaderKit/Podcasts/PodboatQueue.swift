import Feeds
import Foundation
import ObjectGraph

/// podboat's queue file (`queue` beside newsboat's `cache.db`): one episode a line, its
/// enclosure URL, the file podboat saves it to (quoted), and the state podboat writes once the
/// file is there (`downloaded`, `played`, `finished`).
///
/// ```text
/// https://cast.example/ep1.mp3 "/home/me/podcasts/ep1.mp3" downloaded
/// https://cast.example/ep2.mp3 "/home/me/podcasts/ep2.mp3"
/// ```
///
/// The import (``FeedLibrary/importPodboatQueue(from:downloadFolder:)``) queues the stored items
/// whose enclosure is a line's URL; a downloaded file is kept only inside the download folder
/// (``resolve(_:in:)``), so a queue file never names a file Zeader would play or delete elsewhere.
///
/// ```swift
/// let (entries, problems) = PodboatQueue.parse(text)
/// ```
public enum PodboatQueue {
    /// One line of the queue.
    ///
    /// ```swift
    /// for entry in PodboatQueue.parse(text).entries { print(entry.line, entry.url, entry.path ?? "-") }
    /// ```
    public struct Entry: Equatable, Sendable {
        /// The line's number (from 1).
        public var line: Int
        /// The enclosure's URL.
        public var url: String
        /// The file podboat names, when the line names one.
        public var path: String?
        /// What podboat had done with it.
        public var state: State
    }

    /// An episode's state as podboat writes it.
    ///
    /// ```swift
    /// let downloaded = entries.filter { $0.state != .queued }
    /// ```
    public enum State: Equatable, Sendable {
        /// Waiting for its download (no word).
        case queued
        /// Downloaded (`downloaded`, or `finished`).
        case downloaded
        /// Downloaded and played (`played`).
        case played
    }

    /// Why a line, or its file, is not taken; worded by ``Messages/podboatQueueProblem(_:source:)``.
    ///
    /// ```swift
    /// for problem in report.problems { print(Messages.podboatQueueProblem(problem, source: "queue")) }
    /// ```
    public enum Problem: Equatable, Sendable {
        /// The line's first word is not an http(s) URL.
        case notAnEpisodeURL(line: Int, String)
        /// No stored item has this enclosure.
        case notInAnyFeed(line: Int, url: String)
        /// A state word podboat does not write; the episode is queued.
        case unknownState(line: Int, String)
        /// The named file is not taken (the episode is queued to download again).
        case refusedPath(line: Int, path: String, PathRefusal)
    }

    /// Why a file named by the queue is not taken.
    ///
    /// ```swift
    /// if case .failure(.outside(let folder)) = PodboatQueue.resolve(path, in: downloads) { print("not in", folder) }
    /// ```
    public enum PathRefusal: Error, Equatable, Sendable {
        /// It holds a control character (a newline, an escape).
        case controlCharacter
        /// It goes up a folder (`..`).
        case parentFolder
        /// It is not an absolute path.
        case relative
        /// It is outside the download folder (after following symbolic links).
        case outside(folder: String)
        /// No regular file is there.
        case missing

        /// Whether the path is only not where Zeader keeps its files, rather than hostile in shape.
        var isOnlyElsewhere: Bool {
            switch self {
            case .outside, .missing, .relative: true
            case .controlCharacter, .parentFolder: false
            }
        }
    }

    /// The lines of a queue file; lines without a URL are blank or comments, and skipped.
    ///
    /// ```swift
    /// PodboatQueue.parse("https://c.example/1.mp3 \"/p/1.mp3\" downloaded\n").entries[0].state   // .downloaded
    /// ```
    public static func parse(_ text: String) -> (entries: [Entry], problems: [Problem]) {
        var entries: [Entry] = []
        var problems: [Problem] = []
        var number = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            number += 1
            let words = self.words(String(rawLine))
            guard let url = words.first, !url.hasPrefix("#") else { continue }
            let lowered = url.lowercased()
            guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
                !url.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else {
                problems.append(.notAnEpisodeURL(line: number, url))
                continue
            }
            var state = State.queued
            if words.count > 2 {
                switch words[2] {
                case "downloaded", "finished": state = .downloaded
                case "played": state = .played
                default: problems.append(.unknownState(line: number, words[2]))
                }
            }
            entries.append(Entry(line: number, url: url, path: words.count > 1 ? words[1] : nil, state: state))
        }
        return (entries, problems)
    }

    /// The file `path` names when it is a regular file inside `folder`: absolute, without
    /// control characters or `..`, and inside `folder` once symbolic links are followed.
    ///
    /// ```swift
    /// PodboatQueue.resolve("/etc/passwd", in: URL(fileURLWithPath: "/home/me/podcasts"))   // .failure(.outside(…))
    /// ```
    public static func resolve(_ path: String, in folder: URL) -> Result<String, PathRefusal> {
        if path.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return .failure(.controlCharacter)
        }
        guard path.hasPrefix("/") else { return .failure(.relative) }
        if path.split(separator: "/").contains("..") { return .failure(.parentFolder) }
        let root = folder.standardizedFileURL.resolvingSymlinksInPath().path
        let file = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        guard file.hasPrefix(root.hasSuffix("/") ? root : root + "/") else { return .failure(.outside(folder: root)) }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), !isFolder.boolValue else {
            return .failure(.missing)
        }
        return .success(file)
    }

    /// The words of a line as podboat writes them: newsboat's words (blanks separate, double
    /// quotes group, a backslash inside quotes takes the next character as it is).
    static func words(_ line: String) -> [String] {
        NewsboatURLs.tokenize(line).words
    }
}

/// What importing podboat's queue did.
///
/// ```swift
/// let report = try library.importPodboatQueue(from: queueURL, downloadFolder: downloads)
/// print(report.queued, report.filesKept, report.problems.count)
/// ```
public struct PodboatQueueReport: Equatable, Sendable {
    /// Episodes put in the queue.
    public var queued = 0
    /// Episodes that were in the queue already.
    public var alreadyQueued = 0
    /// Episodes whose downloaded file was kept.
    public var filesKept = 0
    /// Lines or files not taken, in the file's order.
    public var problems: [PodboatQueue.Problem] = []
}

extension FeedLibrary {
    /// Queues the stored items whose enclosures podboat's queue file at `file` lists (see
    /// ``PodboatQueue``), keeping a downloaded file only inside `downloadFolder`. Nothing is
    /// downloaded, fetched or written but the store.
    ///
    /// ```swift
    /// let report = try library.importPodboatQueue(from: queueURL, downloadFolder: settings.downloadRoot())
    /// ```
    public func importPodboatQueue(from file: URL, downloadFolder: URL) throws(ZeaderError) -> PodboatQueueReport {
        let text: String
        do {
            text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        } catch {
            throw ZeaderError.unreadableFile(path: file.path, reason: (error as NSError).localizedDescription)
        }
        let (entries, problems) = PodboatQueue.parse(text)
        var report = PodboatQueueReport(problems: problems)
        defer { store.checkpoint() }
        try withContext { context in
            for entry in entries {
                let items = try context.fetch(
                    FetchRequest<FeedItem>(
                        predicate: .comparison(.keyPath("enclosureURL"), .equalTo, .constant(.string(entry.url)))))
                guard !items.isEmpty else {
                    report.problems.append(.notInAnyFeed(line: entry.line, url: entry.url))
                    continue
                }
                var kept: String?
                if let path = entry.path {
                    switch PodboatQueue.resolve(path, in: downloadFolder) {
                    case .success(let resolved):
                        if entry.state != .queued { kept = resolved }
                    case .failure(let refusal):
                        // A file podboat had yet to write is no matter: Zeader downloads into its own folder.
                        if entry.state == .queued, refusal.isOnlyElsewhere { break }
                        report.problems.append(.refusedPath(line: entry.line, path: path, refusal))
                    }
                }
                for item in items {
                    if item.enclosureQueued { report.alreadyQueued += 1 } else { report.queued += 1 }
                    item.enclosureQueued = true
                    if let kept, item.enclosureFile == nil {
                        item.enclosureFile = kept
                        report.filesKept += 1
                    }
                }
            }
            try context.save()
        }
        return report
    }
}
