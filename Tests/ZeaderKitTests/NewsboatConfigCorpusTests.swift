import Foundation
import Testing

/// Thirty real newsboat configs (Fixtures/newsboat-configs, with SOURCES.tsv naming where each
/// comes from): each starts the reader, which `zeader config check` says by exiting 0 (it
/// reads the file as the reader does and exits 1 only on a line that would stop it). Prints
/// how many of their lines are honoured, a line being reported when check prints anything for it.
@Suite("the newsboat config corpus", .serialized)
struct NewsboatConfigCorpusTests {
    static let folder = Bundle.module.url(forResource: "Fixtures/newsboat-configs", withExtension: nil)

    static var configs: [URL] {
        guard let folder else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".config") }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// The lines holding a directive: not blank, not only a comment.
    static func directiveLines(_ text: String) -> Int {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter {
            let line = $0.trimmingCharacters(in: .whitespaces)
            return !line.isEmpty && !line.hasPrefix("#")
        }.count
    }

    @Test func everyConfigIsThereWithItsSource() throws {
        #expect(Self.configs.count == 30)
        let folder = try #require(Self.folder)
        let sources = try String(contentsOf: folder.appendingPathComponent("SOURCES.tsv"), encoding: .utf8)
        for config in Self.configs {
            #expect(sources.contains(config.lastPathComponent + "\t"), "\(config.lastPathComponent)")
        }
    }

    @Test func everyConfigStartsTheReader() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var lines = 0
        var reported = 0
        var stopped: [String] = []
        for config in Self.configs {
            let text = try String(contentsOf: config, encoding: .utf8)
            lines += Self.directiveLines(text)
            let r = try zeader(["config", "check", config.path], in: dir)
            if r.status != 0 { stopped.append("\(config.lastPathComponent): \(r.stdout)") }
            // `FILE:LINE: …`: the distinct lines of this file that check printed something for.
            let prefix = config.path + ":"
            let numbers = Set(
                r.stdout.split(separator: "\n").compactMap { line -> Int? in
                    guard line.hasPrefix(prefix) else { return nil }
                    return Int(line.dropFirst(prefix.count).prefix { $0.isNumber })
                })
            reported += numbers.count
        }
        #expect(stopped.isEmpty, "\(stopped.joined(separator: "\n"))")
        let honoured = lines - reported
        let percent = Double(honoured) / Double(max(lines, 1)) * 100
        print(
            "newsboat config corpus: \(Self.configs.count - stopped.count) of \(Self.configs.count) start the reader;"
                + " \(honoured) of \(lines) lines honoured (\(String(format: "%.1f", percent))%), \(reported) reported")
        #expect(lines > 1000)
        // What is left is mostly what has no equivalent (sync services, podboat's screen) or
        // belongs to other parts (newsboat's filter language, the urls file's sources).
        #expect(percent >= 90.0, "honoured \(honoured) of \(lines)")
    }
}
