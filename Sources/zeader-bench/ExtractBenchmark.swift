// Article extraction on its own: every page of a folder of Readability-style test pages
// (`NAME/source.html`) is read into memory, then extracted `rounds` times on this thread.
// Prints the median and the slowest page's median CPU time per extraction.
import Feeds
import Foundation

func extractBenchmark(folder: String, rounds: Int) throws {
    let base = URL(fileURLWithPath: folder)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted().filter {
        FileManager.default.fileExists(atPath: base.appendingPathComponent("\($0)/source.html").path)
    }
    let pages = try names.map { (name: $0, data: try Data(contentsOf: base.appendingPathComponent("\($0)/source.html"))) }
    let pageURL = URL(string: "http://fakehost/test/page.html")
    var medians: [(name: String, seconds: Double)] = []
    var failures = 0
    for page in pages {
        var times: [Double] = []
        for _ in 0..<max(rounds, 1) {
            let (result, timing) = measure { try? ArticleExtractor.extract(html: page.data, baseURL: pageURL) }
            if result == nil && times.isEmpty { failures += 1 }
            times.append(timing.cpu)
        }
        medians.append((page.name, times.sorted()[times.count / 2]))
    }
    let sorted = medians.sorted { $0.seconds < $1.seconds }
    guard let slowest = sorted.last else { return print("no pages in \(folder)") }
    let bytes = pages.reduce(0) { $0 + $1.data.count }
    print(
        String(
            format:
                "%d pages (%.1f MB, %d without an article) of %@, %d rounds: median %.2f ms per page, mean %.2f ms, slowest %@ %.2f ms",
            pages.count, Double(bytes) / 1e6, failures, folder, max(rounds, 1), sorted[sorted.count / 2].seconds * 1e3,
            sorted.reduce(0) { $0 + $1.seconds } / Double(sorted.count) * 1e3, slowest.name, slowest.seconds * 1e3))
}
