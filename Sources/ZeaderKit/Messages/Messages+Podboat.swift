// The words of podboat's queue import and its directives, beside the rest of ZeaderKit's in
// Messages.swift; kept in a file of their own so that the podcast wording reads as one list.

extension Messages {
    /// A line of podboat's queue, or its file, not taken: `queue:3: …`.
    ///
    /// ```swift
    /// Messages.podboatQueueProblem(.notInAnyFeed(line: 2, url: "https://c.example/1.mp3"), source: "queue")
    /// ```
    public static func podboatQueueProblem(_ problem: PodboatQueue.Problem, source: String) -> String {
        switch problem {
        case .notAnEpisodeURL(let line, let word):
            return "\(source):\(line): skipped \"\(word)\": not an http or https URL"
        case .notInAnyFeed(let line, let url):
            return "\(source):\(line): skipped \(url): no imported item has this enclosure"
        case .unknownState(let line, let word):
            return "\(source):\(line): unknown state \"\(word)\" (podboat writes downloaded, played or finished); queued"
        case .refusedPath(let line, let path, let refusal):
            let why: String
            switch refusal {
            case .controlCharacter: why = "it holds a control character"
            case .parentFolder: why = "it goes up a folder (..)"
            case .relative: why = "it is not an absolute path"
            case .outside(let folder): why = "it is outside download-path (\(folder))"
            case .missing: why = "no file is there"
            }
            return "\(source):\(line): the file \"\(path)\" is not used: \(why); the episode is queued to download again"
        }
    }

    /// The summary of podboat's queue import: `podcast queue: 3 episodes queued (1 downloaded file kept) from queue`.
    ///
    /// ```swift
    /// print(Messages.podboatQueueSummary(report, source: "queue"))
    /// ```
    public static func podboatQueueSummary(_ report: PodboatQueueReport, source: String) -> String {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        var line = "podcast queue: \(plural(report.queued, "episode")) queued from \(source)"
        var details: [String] = []
        if report.alreadyQueued > 0 { details.append("\(report.alreadyQueued) already queued") }
        if report.filesKept > 0 { details.append(plural(report.filesKept, "downloaded file") + " kept") }
        if !report.problems.isEmpty { details.append("\(report.problems.count) not taken") }
        if !details.isEmpty { line += " (" + details.joined(separator: ", ") + ")" }
        return line
    }
}
