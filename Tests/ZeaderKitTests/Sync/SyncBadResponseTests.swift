import Foundation
import Testing

@testable import ZeaderKit

/// An answer a sync cannot understand is said to come from the account's own service, so
/// that the line points at the right API to check: never "Google Reader" for a Fever or a
/// Tiny Tiny RSS account.
@Suite("An answer not understood names the account's service")
struct SyncBadResponseTests {
    @Test("the line names the service's API and no other's", arguments: SyncServiceKind.allCases)
    func theLineNamesTheService(service: SyncServiceKind) {
        let line = SyncError.badResponse(request: "x", reason: "y", service: service).description
        #expect(line.contains(Messages.serverAPIName(service)), "\(line)")
        for other in SyncServiceKind.allCases where other != service {
            #expect(!line.contains(Messages.serverAPIName(other)), "\(line)")
        }
    }

    @Test("a Fever server's garbled feed list is the Fever API's answer")
    func feverNamesFever() async throws {
        let server = try FeverClientTests.server { _ in #"{"feeds":"garbled"}"# }
        defer { server.stop() }
        let client = FeverClient(
            apiURL: server.url("/api/fever.php").absoluteString, apiKey: "k", fetcher: FeverClientTests.fetcher)
        do throws(SyncError) {
            _ = try await client.subscriptions()
            Issue.record("a garbled list was taken")
        } catch {
            guard case .badResponse(_, _, .fever) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.contains("the server's Fever API"), "\(error)")
            #expect(!error.description.contains("Google Reader"), "\(error)")
        }
    }

    @Test("a Tiny Tiny RSS server's garbled feed list is its API's answer")
    func ttrssNamesTTRSS() async throws {
        let server = try TTRSSStandIn()
        server.replace("getFeeds", with: #"{"seq":0,"status":0,"content":"garbled"}"#)
        let fetcher = FeverClientTests.fetcher
        let token = try await TTRSSClient.login(apiURL: server.apiURL, user: "alice", password: "right", fetcher: fetcher)
        let client = TTRSSClient(apiURL: server.apiURL, token: token, fetcher: fetcher)
        do throws(SyncError) {
            _ = try await client.subscriptions()
            Issue.record("a garbled list was taken")
        } catch {
            guard case .badResponse(_, _, .ttrss) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(error.description.contains("the server's Tiny Tiny RSS API"), "\(error)")
            #expect(!error.description.contains("Google Reader"), "\(error)")
        }
    }
}
