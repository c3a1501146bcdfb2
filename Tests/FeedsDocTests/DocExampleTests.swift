import Foundation
import Testing

/// The Feeds library's doc-comment examples: generated from the sources by
/// scripts/extract-doc-examples.py, compiled with this target (ObjectGraphDocTests checks they
/// are current), and run with fresh givens unless `notRun` says why not.
@Suite struct FeedsDocExampleTests {
    /// Examples that compile but are not run, with the reason.
    static let notRun: [String: String] = [
        "ArticlePage_ArticlePage": network,
        "DownloadSink_DownloadOutcome": network,
        "FeedFetcherDownload_download": network,
        "FeedFetcher_FeedFetcher": network,
        "FeedFetcher_fetch": network,
        "FeedFetcher_fetchAll": network,
        "FetchOutcome_FetchOutcome": network,
        "FeedParser_FeedParser": "reads feed.xml in the working directory",
        "OPML_export": "writes feeds.opml in the working directory",
        "FetcherConfiguration_defaultCAFile": "sets the CA file of every fetcher in the process (the TLS tests use it)",
        "FetcherConfiguration_defaultUserAgent": "sets the User-Agent of every fetcher in the process (the fetch tests check it)",
        "ParseThroughputTuning_growHeapInLargeSteps": "changes the allocator's settings for the whole process",
    ]
    private static let network = "fetches from the network (tests may reach 127.0.0.1 only)"

    @Test func everyNotRunEntryNamesAnExample() {
        let ids = Set(allDocExamples.map(\.id))
        #expect(Set(Self.notRun.keys).subtracting(ids).sorted() == [])
        #expect(ids.count == allDocExamples.count)
    }

    @Test(arguments: allDocExamples.filter { notRun[$0.id] == nil })
    func example(_ example: DocExample) async throws {
        let given = try DocExampleGiven()
        switch example.body {
        case .sync(let run): try run(given)
        case .async(let run): try await run(given)
        }
    }
}
