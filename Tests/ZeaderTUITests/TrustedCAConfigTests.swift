import Feeds
import Foundation
import Testing
import ZeaderKit

@testable import ZeaderConfig
@testable import ZeaderTUI

/// `ca-file PATH` in the config: checked when read, and trusted by every fetcher made after
/// start-up (``FetcherConfiguration/defaultCAFile``).
@Suite("Config: ca-file", .serialized)
struct TrustedCAConfigTests {
    static let pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

    @Test func aPEMFileIsAccepted() throws {
        let file = try temporaryFile(Self.pem)
        let config = try ReaderConfig.parse("ca-file \(file.path)", file: "config")
        #expect(config.caFile == file.path)
    }

    @Test func aMissingFileIsOneLineNamingIt() {
        #expect {
            try ReaderConfig.parse("\n ca-file /nonexistent/ca.pem", file: "config")
        } throws: { error in
            String(describing: error) == "config:2: ca-file /nonexistent/ca.pem: cannot be read"
        }
    }

    @Test func aFileWithoutCertificatesIsRefused() throws {
        let file = try temporaryFile("not a certificate\n")
        #expect {
            try ReaderConfig.parse("ca-file \(file.path)", file: "config")
        } throws: { error in
            String(describing: error).hasSuffix("not a PEM file of certificates (no BEGIN CERTIFICATE line)")
        }
    }

    @Test func oneArgumentIsNeeded() {
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("ca-file", file: "config") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("ca-file a b", file: "config") }
    }

    @Test func theConfigsCAFileBecomesEveryFetchersDefault() throws {
        let file = try temporaryFile(Self.pem)
        let config = try temporaryFile("ca-file \(file.path)\n")
        let before = FetcherConfiguration.defaultCAFile
        defer { FetcherConfiguration.defaultCAFile = before }
        ReaderConfig.applyTrustSettings(from: config)
        #expect(FetcherConfiguration(version: "1").caFile == file.path)
        #expect(RefreshOptionsProbe.caFile() == file.path)
    }

    private func temporaryFile(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-ca-\(UUID().uuidString)")
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}

/// A refresh's fetcher configuration, as the reader and `zeader refresh` make it.
private enum RefreshOptionsProbe {
    static func caFile() -> String? { RefreshOptions().fetcherConfiguration.caFile }
}
