import Testing

/// The guide (docs/ObjectGraph.md) runs as the program its blocks make together: every printed
/// value in it is what a reader following it sees.
@Suite struct GuideExampleTests {
    @Test func theGuideRuns() async throws {
        try await objectGraphGuideExample()
    }
}
