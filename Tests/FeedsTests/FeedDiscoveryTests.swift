import Foundation
import Testing

@testable import Feeds

@Suite("Feed discovery in web pages")
struct FeedDiscoveryTests {
    let base = URL(string: "https://blog.example/posts/index.html")!

    @Test func alternateLinksOfFeedTypesResolvedInOrderOnce() {
        let html = """
            <!DOCTYPE html><html><head>
            <link rel="stylesheet" href="/s.css">
            <link rel="alternate" type="application/rss+xml" title="RSS" href="../feed.xml">
            <LINK REL="Alternate feed" TYPE="application/atom+xml; charset=utf-8" href="/atom.xml">
            <link rel="alternate" type="application/feed+json" title=" JSON " href="https://blog.example/feed.json">
            <link rel="alternate" type="application/rss+xml" href="../feed.xml">
            <link rel="alternate" type="text/html" hreflang="fr" href="/fr/">
            <link rel="alternate" type="application/rss+xml" href="javascript:alert(1)">
            <!-- <link rel="alternate" type="application/rss+xml" href="/commented.xml"> -->
            <script>var s = '<link rel="alternate" type="application/rss+xml" href="/script.xml">';</script>
            </head><body><link rel="alternate" type="application/rss+xml" href="/body.xml"></body></html>
            """
        let found = FeedDiscovery.alternateLinks(inHTML: Data(html.utf8), base: base)
        #expect(
            found == [
                DiscoveredFeed(url: "https://blog.example/feed.xml", title: "RSS", type: "application/rss+xml"),
                DiscoveredFeed(url: "https://blog.example/atom.xml", title: nil, type: "application/atom+xml"),
                DiscoveredFeed(url: "https://blog.example/feed.json", title: "JSON", type: "application/feed+json"),
            ])
    }

    @Test func baseHrefIsHonoured() {
        let html =
            #"<html><head><base href="https://cdn.example/b/"><link rel="alternate" type="application/atom+xml" href="a.xml"></head>"#
        #expect(FeedDiscovery.alternateLinks(inHTML: Data(html.utf8), base: base).map(\.url) == ["https://cdn.example/b/a.xml"])
    }

    @Test func htmlIsToldFromFeeds() {
        #expect(FeedDiscovery.looksLikeHTML(Data("\n <!doctype HTML><p>".utf8), contentType: nil))
        #expect(FeedDiscovery.looksLikeHTML(Data("whatever".utf8), contentType: "text/html"))
        #expect(!FeedDiscovery.looksLikeHTML(Data("<?xml version='1.0'?><rss/>".utf8), contentType: "application/xml"))
        #expect(!FeedDiscovery.looksLikeHTML(Data(#"{"version":"https://jsonfeed.org/version/1.1"}"#.utf8), contentType: nil))
    }

    @Test func commonURLsKeepTheSite() {
        let urls = FeedDiscovery.commonURLs(for: URL(string: "http://127.0.0.1:8080/about?x=1#top")!).map(\.absoluteString)
        #expect(urls.first == "http://127.0.0.1:8080/feed" && urls.count == FeedDiscovery.commonPaths.count)
        #expect(urls.contains("http://127.0.0.1:8080/feed.json"))
    }
}
