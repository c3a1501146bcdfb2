import Foundation
import Testing

@testable import Feeds

/// The JSON Feed files of the shared real-world set, compared with their expected parses
/// by the rules of its `check.py`: format, feed title and link, item count, and per item
/// id, title, link, author and date (published, else updated) to the second.
@Suite("JSON Feed real-world files")
struct JSONFeedRealWorldTests {
    static let directory = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/jsonfeed/real-world")

    static let files: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test func allNineFilesArePresent() {
        #expect(Self.files.count == 9)
    }

    @Test(arguments: files)
    func matchesExpected(file: String) throws {
        let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
        let expectedData = try Data(contentsOf: Self.directory.appendingPathComponent("expected/\(file).json"))
        let expected = try #require(try JSONSerialization.jsonObject(with: expectedData) as? [String: Any])
        let feed = try JSONFeedParser.parse(data: data, baseURL: nil)

        #expect(feed.format.rawValue == expected["format"] as? String)
        #expect(clean(feed.title) == clean(expected["title"] as? String), "\(file) title")
        if let link = expected["link"] as? String { #expect(normalizedLink(feed.link) == normalizedLink(link), "\(file) link") }
        let items = expected["items"] as? [[String: Any]] ?? []
        try #require(feed.items.count == items.count, "\(file): \(feed.items.count) items, expected \(items.count)")
        for (index, (got, want)) in zip(feed.items, items).enumerated() {
            let place = "\(file) item \(index)"
            if let id = want["id"] as? String { #expect(got.id == id, "\(place) id") }
            if let title = want["title"] as? String { #expect(clean(got.title) == clean(title), "\(place) title") }
            if let link = want["link"] as? String { #expect(normalizedLink(got.link) == normalizedLink(link), "\(place) link") }
            if let author = want["author"] as? String { #expect(got.author == author, "\(place) author") }
            let wantDate = (want["published"] as? String) ?? (want["updated"] as? String)
            if let wantDate {
                let gotDate = got.published ?? got.updated
                #expect(
                    gotDate.map { floor($0.timeIntervalSince1970) } == JSONFeedParser.parseDate(wantDate)?.timeIntervalSince1970,
                    "\(place) date")
            }
        }
    }

    private func clean(_ text: String?) -> String? {
        guard let text else { return nil }
        let collapsed = text.precomposedStringWithCanonicalMapping
            .split(whereSeparator: { " \t\n\r\u{0B}\u{0C}".contains($0) }).joined(separator: " ")
        return collapsed.isEmpty ? nil : collapsed
    }

    private func normalizedLink(_ link: String?) -> String? {
        guard let link = clean(link), var components = URLComponents(string: link) else { return clean(link) }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if components.path.isEmpty, components.host != nil { components.path = "/" }
        return components.string
    }
}
