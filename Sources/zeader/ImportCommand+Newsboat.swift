import ArgumentParser
import Foundation
import ZeaderConfig
import ZeaderKit

/// `zeader import cache.db [--urls FILE]`: newsboat's cache, with a progress bar on a
/// terminal's stderr and one summary line on stdout.
extension ImportCommand {
    func importNewsboatCache(into library: FeedLibrary) throws {
        let cacheURL = URL(fileURLWithPath: file)
        let urlsURL =
            try urls.map { path -> URL in
                guard FileManager.default.isReadableFile(atPath: path) else {
                    CommandOutput.warn("zeader import: cannot read the urls file \(path)")
                    throw ExitCode.failure
                }
                return URL(fileURLWithPath: path)
            } ?? Self.newsboatURLsFile(besides: cacheURL)
        if let urlsURL, urls == nil { CommandOutput.warn("zeader import: feeds and tags from \(urlsURL.path)") }
        let drawsProgress = isatty(STDERR_FILENO) == 1
        var lastDraw = ContinuousClock.now - .seconds(1)
        let report: NewsboatImportReport
        do {
            report = try library.importNewsboatCache(from: cacheURL, urls: urlsURL, allowCommands: allowCommands) {
                done, total in
                guard drawsProgress, ContinuousClock.now - lastDraw >= .milliseconds(50) || done == total else { return }
                lastDraw = ContinuousClock.now
                FileHandle.standardError.write(
                    Data(ProgressBar.render(completed: done, total: total, unit: "items", columns: 80).utf8))
            }
        } catch {
            if drawsProgress { FileHandle.standardError.write(Data(ProgressBar.clear.utf8)) }
            throw CommandOutput.fail("import", error)
        }
        if drawsProgress { FileHandle.standardError.write(Data(ProgressBar.clear.utf8)) }
        for note in report.notes + report.skipped { CommandOutput.warn("zeader import: \(TerminalText.line(note))") }
        CommandOutput.write(Self.summary(report, file: file) + "\n")
        try importPodboatQueue(besides: cacheURL, into: library)
    }

    /// podboat's queue (`--queue`, else `queue` beside the cache, where newsboat keeps it) into
    /// the podcast queue: each problem on stderr, one summary line on stdout. Files are kept only
    /// inside the config's download-path (the default one when the config does not load).
    func importPodboatQueue(besides cache: URL, into library: FeedLibrary) throws {
        let beside = cache.deletingLastPathComponent().appendingPathComponent("queue")
        guard let path = queue ?? (FileManager.default.isReadableFile(atPath: beside.path) ? beside.path : nil) else { return }
        let settings = (try? ReaderConfig.load())?.podcasts ?? PodcastSettings()
        let report: PodboatQueueReport
        do {
            report = try library.importPodboatQueue(from: URL(fileURLWithPath: path), downloadFolder: settings.downloadRoot())
        } catch {
            throw CommandOutput.fail("import", error)
        }
        for problem in report.problems {
            CommandOutput.warn("zeader import: \(TerminalText.line(Messages.podboatQueueProblem(problem, source: path)))")
        }
        CommandOutput.write(Messages.podboatQueueSummary(report, source: path) + "\n")
    }

    /// newsboat's urls file for the cache at `cache`: `urls` in the same folder
    /// (`~/.newsboat/`), else `$XDG_CONFIG_HOME/newsboat/urls` when the cache is in
    /// newsboat's XDG data folder.
    static func newsboatURLsFile(
        besides cache: URL, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> URL? {
        let beside = cache.deletingLastPathComponent().appendingPathComponent("urls")
        if FileManager.default.isReadableFile(atPath: beside.path) { return beside }
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        guard cache.deletingLastPathComponent().standardizedFileURL.path == URL(fileURLWithPath: dataHome + "/newsboat").path
        else { return nil }
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let xdg = URL(fileURLWithPath: configHome + "/newsboat/urls")
        return FileManager.default.isReadableFile(atPath: xdg.path) ? xdg : nil
    }

    /// `imported 3 feeds and 1200 items from cache.db (…)`.
    static func summary(_ report: NewsboatImportReport, file: String) -> String {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        var line = "imported \(plural(report.feedsAdded, "feed")) and \(plural(report.items.added, "item")) from \(file)"
        var details: [String] = []
        if report.smartFeedsAdded > 0 { details.append("\(plural(report.smartFeedsAdded, "smart feed")) from query feeds") }
        if report.feedsAlreadySubscribed > 0 { details.append("\(report.feedsAlreadySubscribed) feeds already subscribed") }
        if report.items.updated > 0 { details.append("\(report.items.updated) stored items updated") }
        if report.items.unchanged > 0 { details.append("\(report.items.unchanged) already stored") }
        if report.items.deleted > 0 { details.append("\(report.items.deleted) deleted in newsboat kept hidden") }
        if report.items.skipped > 0 { details.append("\(report.items.skipped) of feeds not imported") }
        if report.resumedAfterItems > 0 { details.append("resumed after \(report.resumedAfterItems) items") }
        if !details.isEmpty { line += " (" + details.joined(separator: ", ") + ")" }
        return line + leftOut(skipped: report.skipped.count, rejected: 0)
    }
}
