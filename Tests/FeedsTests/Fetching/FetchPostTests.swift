import Foundation
import LoopbackHTTPServer
import Testing

@testable import Feeds

/// Requests beyond feeds (a sync server's API): extra headers and POST form bodies.
@Suite("FeedFetcher: extra headers and form POSTs")
struct FetchPostTests {
    @Test func aFormBodyMakesAPostWithItsContentTypeAndLength() async throws {
        try await withLoopbackServer({ _ in .ok("OK", contentType: "text/plain") }) { server in
            var request = FeedRequest(url: server.url("/api/edit"))
            request.formBody = FormBody.encode([("i", "1"), ("a", "user/-/state/com.google/read")])
            request.headers = ["Authorization": "GoogleLogin auth=alice/abc"]
            let outcome = await makeTestFetcher().fetch(request)
            #expect(outcome.body == Data("OK".utf8))
            let seen = try #require(server.requests.first)
            #expect(seen.method == "POST")
            #expect(seen.headers["content-type"] == "application/x-www-form-urlencoded")
            #expect(seen.headers["content-length"] == String(request.formBody!.utf8.count))
            #expect(seen.headers["authorization"] == "GoogleLogin auth=alice/abc")
        }
    }

    @Test func withoutABodyItIsAGetAndAHeaderWithALineBreakIsLeftOut() async throws {
        try await withLoopbackServer({ _ in .ok("OK", contentType: "text/plain") }) { server in
            var request = FeedRequest(url: server.url("/api/list"))
            request.headers = ["X-Evil": "a\r\nInjected: yes", "X-Fine": "b"]
            _ = await makeTestFetcher().fetch(request)
            let seen = try #require(server.requests.first)
            #expect(seen.method == "GET")
            #expect(seen.headers["x-evil"] == nil)
            #expect(seen.headers["injected"] == nil)
            #expect(seen.headers["x-fine"] == "b")
        }
    }

    @Test func formValuesArePercentEncoded() {
        #expect(FormBody.encode([("Email", "a b"), ("Passwd", "p&s=s/ü")]) == "Email=a%20b&Passwd=p%26s%3Ds%2F%C3%BC")
    }
}
