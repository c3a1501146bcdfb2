import Foundation
import Testing

@testable import ZeaderConfig

/// `image-display`, `image-viewer` and `image-cache-size`: each value read, each bad one one
/// line naming the file, the line and what was wrong.
@Suite struct PictureSettingsTests {
    @Test func defaultsAreAutoTheBrowserAndACappedCache() throws {
        let config = try ReaderConfig.parse("", file: "config")
        #expect(config.pictures.display == .auto)
        #expect(config.pictures.viewer == nil)
        #expect(config.pictures.cacheBytes == 50_000_000)
    }

    @Test(arguments: PictureSettings.Display.allCases)
    func everyDisplayIsRead(display: PictureSettings.Display) throws {
        #expect(try ReaderConfig.parse("image-display \(display.rawValue)", file: "config").pictures.display == display)
        let shouted = "  image-display   \"\(display.rawValue.uppercased())\"  # comment"
        #expect(try ReaderConfig.parse(shouted, file: "config").pictures.display == display)
    }

    @Test(arguments: ["image-display", "image-display sixels", "image-display kitty sixel", "image-display yes"])
    func aBadDisplayIsOneLine(line: String) {
        #expect {
            try ReaderConfig.parse("\n\(line)", file: "config")
        } throws: { error in
            let text = String(describing: error)
            return text.hasPrefix("config:2: image-display needs one of auto, kitty, sixel, iterm, symbols, none")
                && !text.contains("\n")
        }
    }

    @Test func theViewerIsOneCommandLine() throws {
        #expect(try ReaderConfig.parse("image-viewer \"feh -Z %u\"", file: "c").pictures.viewer == "feh -Z %u")
        #expect(try ReaderConfig.parse("image-viewer feh -Z %u", file: "c").pictures.viewer == "feh -Z %u")
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("image-viewer", file: "c") }
        #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse("image-viewer \"  \"", file: "c") }
    }

    @Test func theCacheSizeTakesUnitsAndZero() throws {
        #expect(try ReaderConfig.parse("image-cache-size 10M", file: "c").pictures.cacheBytes == 10_000_000)
        #expect(try ReaderConfig.parse("image-cache-size 0", file: "c").pictures.cacheBytes == 0)
        for bad in ["image-cache-size", "image-cache-size -1", "image-cache-size lots"] {
            #expect(throws: ReaderConfigError.self) { try ReaderConfig.parse(bad, file: "c") }
        }
    }
}
