import Testing

@testable import ZeaderKit

/// One byte size: the config's K, M, G mean what the printed kB, MB, GB mean (powers of
/// 1000), so a size written and a size shown agree; KiB, MiB, GiB are powers of 1024.
@Suite struct ByteCountTests {
    @Test(arguments: [
        ("1234", Int64(1234)),
        ("0", 0),
        ("500K", 500_000),
        ("500k", 500_000),
        ("500kB", 500_000),
        ("500M", 500_000_000),
        ("500m", 500_000_000),
        ("500 MB", 500_000_000),
        ("  500mb ", 500_000_000),
        ("2G", 2_000_000_000),
        ("2g", 2_000_000_000),
        ("1T", 1_000_000_000_000),
        ("1.5G", 1_500_000_000),
        (".5M", 500_000),
        ("12.3456789M", 12_345_678),
        ("500KiB", 512_000),
        ("500kib", 512_000),
        ("500Mi", 524_288_000),
        ("2 GiB", 2_147_483_648),
        ("1.25KiB", 1280),
        ("12B", 12),
        ("9223372036854775807", Int64.max),
    ])
    func sizesAsWritten(text: String, bytes: Int64) {
        #expect(ByteCount.parse(text) == bytes, "\(text)")
    }

    @Test(arguments: [
        "", "lots", "M", "-5M", "+5M", "5X", "5 M B", "5MM", "5iB", "5Bi", "1.5", "1.2.3M", ".M", "5KiBB", "0x10",
        "10000000000000000000", "9223372036854775807K", "10000000000G", "5\nM", "５M",
    ])
    func anythingElseIsRefused(text: String) {
        #expect(ByteCount.parse(text) == nil, "\(text)")
    }

    @Test("a size written in the config is shown as written: 500M is 500.0 MB, not 524.3 MB")
    func writtenAndShownAgree() throws {
        #expect(ByteCount.text(try #require(ByteCount.parse("500M"))) == "500.0 MB")
        #expect(ByteCount.text(try #require(ByteCount.parse("12.3M"))) == "12.3 MB")
        #expect(ByteCount.text(try #require(ByteCount.parse("2G"))) == "2.0 GB")
        // One file's size reads the same wherever it is shown: powers of 1000.
        #expect(ByteCount.text(12_345_678) == "12.3 MB")
    }
}
