import Foundation
import LoopbackHTTPServer
import Testing

@testable import Feeds

/// A request that carries credentials (headers set by the caller, a form body, a user name
/// in the URL) follows redirects only within its own origin; a plain feed GET goes anywhere.
/// Two loopback servers on two ports are two origins.
@Suite("FeedFetcher: credentials stay with their origin")
struct FetchCredentialRedirectTests {
    /// The ways a request can carry something meant for its own server only.
    enum Credential: CaseIterable, Sendable {
        case authorizationHeader, otherHeader, formBody, formBodyAndHeader, userInfo

        func request(_ url: URL) -> FeedRequest {
            var request = FeedRequest(url: url)
            switch self {
            case .authorizationHeader: request.headers = ["Authorization": "GoogleLogin auth=alice/secret"]
            case .otherHeader: request.headers = ["X-Api-Key": "secret"]
            case .formBody: request.formBody = FormBody.encode([("Email", "alice"), ("Passwd", "secret")])
            case .formBodyAndHeader:
                request.formBody = FormBody.encode([("i", "1"), ("T", "action-token")])
                request.headers = ["Authorization": "GoogleLogin auth=alice/secret"]
            case .userInfo:
                var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
                components.user = "alice"
                components.password = "secret"
                request.url = components.url!
            }
            return request
        }
    }

    static let statuses = [301, 302, 303, 307, 308]

    @Test(arguments: Credential.allCases, statuses)
    func aRedirectToAnotherPortIsRefusedAndTheOtherServerHearsNothing(credential: Credential, status: Int) async throws {
        try await withLoopbackServer({ _ in .ok("{}", contentType: "application/json") }) { elsewhere in
            let target = elsewhere.url("/api/stolen")
            try await withLoopbackServer({ _ in .redirect(status, to: target.absoluteString) }) { origin in
                let outcome = await makeTestFetcher().fetch(credential.request(origin.url("/api/list")))
                guard case .failed(.credentialedRedirect(_, let to)) = outcome else {
                    Issue.record("expected credentialedRedirect, got \(outcome)")
                    return
                }
                #expect(to == target)
                #expect(elsewhere.requests.isEmpty)
                #expect(origin.requests.count == 1)
                #expect(outcome.error?.description.contains(FetchError.origin(of: target)) == true)
            }
        }
    }

    /// Another host name for the same address, another scheme on the same port, a second hop
    /// that leaves after a first that stayed: all other origins.
    @Test(arguments: Credential.allCases)
    func otherHostsSchemesAndLaterHopsAreRefusedToo(credential: Credential) async throws {
        try await withLoopbackServer({ request in
            let port = request.headers["host"]?.split(separator: ":").last.map(String.init) ?? ""
            switch request.path {
            case "/by-name": return .redirect(302, to: "http://localhost:\(port)/api")
            case "/upgrade": return .redirect(307, to: "https://127.0.0.1:\(port)/api")
            case "/two-hops": return .redirect(307, to: "/by-name")
            default: return .ok("{}", contentType: "application/json")
            }
        }) { server in
            for path in ["/by-name", "/upgrade", "/two-hops"] {
                let outcome = await makeTestFetcher().fetch(credential.request(server.url(path)))
                guard case .failed(.credentialedRedirect) = outcome else {
                    Issue.record("\(path): expected credentialedRedirect, got \(outcome)")
                    continue
                }
            }
            #expect(!server.requests.contains { $0.path == "/api" })
        }
    }

    @Test(arguments: Credential.allCases)
    func aRedirectWithinTheOriginIsFollowedWithTheCredentials(credential: Credential) async throws {
        try await withLoopbackServer({ request in
            let port = request.headers["host"]?.split(separator: ":").last.map(String.init) ?? ""
            switch request.path {
            case "/old": return .redirect(307, to: "/new")
            // The same origin spelt another way: scheme and host in capitals.
            case "/new": return .redirect(308, to: "HTTP://127.0.0.1:\(port)/final")
            default: return .ok("done", contentType: "text/plain")
            }
        }) { server in
            let outcome = await makeTestFetcher().fetch(credential.request(server.url("/old")))
            #expect(outcome.body == Data("done".utf8))
            let final = try #require(server.requests.last)
            #expect(final.path == "/final")
            if credential == .authorizationHeader || credential == .formBodyAndHeader {
                #expect(final.headers["authorization"] == "GoogleLogin auth=alice/secret")
            }
            if credential == .formBody || credential == .formBodyAndHeader { #expect(final.method == "POST") }
        }
    }

    @Test func aPlainFeedFollowsARedirectToAnotherOrigin() async throws {
        try await withLoopbackServer({ _ in .ok("<rss/>") }) { elsewhere in
            let target = elsewhere.url("/feed.xml")
            try await withLoopbackServer({ _ in .redirect(301, to: target.absoluteString) }) { origin in
                let outcome = await makeTestFetcher().fetch(FeedRequest(url: origin.url("/feed.xml")))
                #expect(outcome.body == Data("<rss/>".utf8))
                #expect(outcome.metadata?.permanentRedirect == target)
            }
        }
    }

    @Test func originsCompareSchemeHostAndPortWithDefaultPortsLeftOut() {
        func origin(_ text: String) -> String { FetchError.origin(of: URL(string: text)!) }
        #expect(origin("https://Example.ORG/api") == "https://example.org")
        #expect(origin("https://example.org:443/x") == "https://example.org")
        #expect(origin("http://example.org:80/x") == "http://example.org")
        #expect(origin("http://example.org:443/x") == "http://example.org:443")
        #expect(origin("https://example.org/") != origin("http://example.org/"))
        #expect(origin("https://example.org:8443/") != origin("https://example.org/"))
        #expect(origin("https://user:pw@example.org/") == "https://example.org")
    }

    @Test func anHTTPSRequestIsNotDowngradedToHTTP() {
        var request = FeedRequest(url: URL(string: "https://rss.example.org/api/greader.php/reader/api/0/token")!)
        request.headers = ["Authorization": "GoogleLogin auth=alice/secret"]
        #expect(CurlTransfer.carriesCredentials(request))
        #expect(
            FetchError.origin(of: URL(string: "http://rss.example.org/api/greader.php")!) != FetchError.origin(of: request.url))
        #expect(!CurlTransfer.carriesCredentials(FeedRequest(url: URL(string: "https://example.org/feed")!)))
    }
}
