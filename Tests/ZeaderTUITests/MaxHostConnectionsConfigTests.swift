import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig

/// `max-host-connections`: a fixed number of fetches at once to one host, for the reader's
/// refresh and `zeader refresh` alike (both take their options from ``ReaderConfig/refreshOptions(_:)``).
@Suite struct MaxHostConnectionsConfigTests {
    @Test func withoutItARefreshAdaptsEachHostsShare() throws {
        let config = try ReaderConfig.parse("reload-threads 8\n", file: "c")
        #expect(config.refreshOptions(RefreshOptions(jobs: 8)).fetcherConfiguration.maxHostConnections == nil)
    }

    @Test(arguments: [
        ("max-host-connections 2", 2, 0), ("max-host-connections \"12\"", 12, 0),
        ("  max-host-connections   5   # polite", 5, 0), ("max-host-connections 0", 1, 1),
        ("max-host-connections 1000", 64, 1), ("max-host-connections -4", 1, 1),
    ])
    func itFixesTheNumberOfFetchesToOneHost(line: String, number: Int, warnings: Int) throws {
        let config = try ReaderConfig.parse(line + "\n", file: "c")
        #expect(config.warnings.count == warnings)
        let options = config.refreshOptions(RefreshOptions(jobs: 8))
        #expect(options.fetcherConfiguration.maxHostConnections == number)
    }

    @Test(arguments: [
        "max-host-connections many", "max-host-connections 1.5", "max-host-connections", "max-host-connections 2 3",
    ])
    func aBadValueIsAnErrorNamingTheDirective(line: String) {
        #expect {
            try ReaderConfig.parse(line + "\n", file: "c")
        } throws: { error in
            (error as? ReaderConfigError)?.message.hasPrefix("max-host-connections") == true
        }
    }
}
