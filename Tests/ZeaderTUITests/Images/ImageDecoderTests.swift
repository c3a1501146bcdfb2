import Foundation
import Testing

@testable import ZeaderTUI

/// Images decode only within their limits, read from the header first; every hostile or
/// broken file ends as a typed error, never a crash.
@Suite struct ImageDecoderTests {
    private let squares = TestPictures.squares()

    @Test func decodesPNGPixelForPixel() throws {
        let image = try ImageDecoder.decode(TestPictures.png(width: squares.width, height: squares.height, rgba: squares.rgba))
        #expect(image.width == 16 && image.height == 16)
        #expect(image.rgb(x: 0, y: 0) == 0xFF0000)
        #expect(image.rgb(x: 15, y: 0) == 0x00FF00)
        #expect(image.rgb(x: 0, y: 15) == 0x0000FF)
        #expect(image.rgb(x: 15, y: 15) == 0xFFFF00)
    }

    @Test func decodesJPEGColoursClosely() throws {
        let image = try ImageDecoder.decode(TestPictures.jpeg(width: squares.width, height: squares.height, rgba: squares.rgba))
        let red = image.rgb(x: 2, y: 2)
        #expect(red >> 16 > 0xE0 && (red >> 8) & 0xFF < 0x30 && red & 0xFF < 0x30)
    }

    @Test func decodesAWebP() throws {
        let image = try ImageDecoder.decode(TestPictures.webp(width: squares.width, height: squares.height, rgba: squares.rgba))
        #expect(image.width == 16 && image.height == 16)
        #expect(image.rgb(x: 0, y: 0) == 0xFF0000 && image.rgb(x: 15, y: 15) == 0xFFFF00)
    }

    @Test func refusesAWebPHeaderTooLargeAndACutWebP() {
        var bytes = [UInt8](TestPictures.webp(width: squares.width, height: squares.height, rgba: squares.rgba))
        // The lossless header after "VP8L" and its size: 14 bits of width - 1, 14 of height - 1.
        #expect(bytes[12..<16] == ArraySlice("VP8L".utf8) && bytes[20] == 0x2F)
        let packed = UInt32(16_383) | UInt32(16_383) << 14 | UInt32(bytes[24] >> 4) << 28
        bytes[21...24] = [UInt8(packed & 0xFF), UInt8(packed >> 8 & 0xFF), UInt8(packed >> 16 & 0xFF), UInt8(packed >> 24)]
        #expect(throws: ImageDecodeError.tooManyPixels(width: 16_384, height: 16_384)) {
            try ImageDecoder.decode(Data(bytes))
        }
        let whole = TestPictures.webp(width: squares.width, height: squares.height, rgba: squares.rgba)
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(whole.prefix(whole.count / 2)) }
    }

    @Test func decodesTheFirstFrameOfAGIF() throws {
        let image = try ImageDecoder.decode(TestPictures.gif(frames: 3))
        #expect(image.width == 1 && image.height == 1)
        #expect(image.rgb(x: 0, y: 0) == 0xFF0000)
    }

    @Test(arguments: [(100_000, 100_000), (100_000, 1), (1, 100_000), (5000, 5000), (65_535, 65_535)])
    func refusesAPNGHeaderTooLargeBeforeDecoding(width: Int, height: Int) {
        let header = TestPictures.pngHeader(width: UInt32(width), height: UInt32(height))
        #expect(throws: ImageDecodeError.tooManyPixels(width: width, height: height)) {
            try ImageDecoder.decode(header)
        }
    }

    @Test func refusesAJPEGHeaderTooLarge() {
        let jpeg = TestPictures.jpeg(width: 16, height: 16, rgba: squares.rgba)
        let claimed = TestPictures.jpeg(jpeg, claiming: 60_000, 60_000)
        #expect(throws: ImageDecodeError.tooManyPixels(width: 60_000, height: 60_000)) {
            try ImageDecoder.decode(claimed)
        }
    }

    @Test func refusesAGIFScreenTooLarge() {
        var bytes = [UInt8](TestPictures.gif(frames: 1))
        bytes[6...9] = [0xFF, 0xFF, 0xFF, 0xFF]
        bytes[24...27] = [0xFF, 0xFF, 0xFF, 0xFF]  // the frame's own size too
        #expect(throws: ImageDecodeError.tooManyPixels(width: 65_535, height: 65_535)) {
            try ImageDecoder.decode(Data(bytes))
        }
    }

    @Test func refusesAGIFOfTenThousandFrames() {
        #expect(throws: ImageDecodeError.tooManyFrames(1_001)) {
            try ImageDecoder.decode(TestPictures.gif(frames: 10_000))
        }
    }

    @Test func refusesATruncatedJPEG() {
        let jpeg = TestPictures.jpeg(width: 64, height: 64, rgba: TestPictures.squares(side: 32).rgba)
        for cut in [jpeg.count / 2, jpeg.count - 2, 200, 20] {
            #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(jpeg.prefix(cut)) }
        }
        #expect(throws: ImageDecodeError.truncated) { try ImageDecoder.decode(jpeg.prefix(jpeg.count / 2)) }
    }

    @Test func refusesATruncatedPNGAndGIF() {
        let png = TestPictures.png(width: squares.width, height: squares.height, rgba: squares.rgba)
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(png.prefix(png.count / 2)) }
        let gif = TestPictures.gif(frames: 1)
        #expect(throws: ImageDecodeError.self) { try ImageDecoder.decode(gif.prefix(20)) }
    }

    @Test func refusesTooManyBytesBeforeLookingAtThem() {
        let limits = ImageLimits(maximumBytes: 100)
        #expect(throws: ImageDecodeError.tooManyBytes(101)) {
            try ImageDecoder.decode(Data(repeating: 0, count: 101), limits: limits)
        }
    }

    @Test func showsSVGAndUnknownFormatsAsAltText() {
        #expect(throws: ImageDecodeError.vectorImage) {
            try ImageDecoder.decode(Data("\u{FEFF}  <?xml version=\"1.0\"?><svg/>".utf8))
        }
        // BMP, which stb_image could decode, is not handed to it.
        #expect(throws: ImageDecodeError.unsupportedFormat) {
            try ImageDecoder.decode(Data([0x42, 0x4D] + [UInt8](repeating: 0, count: 60)))
        }
        #expect(throws: ImageDecodeError.unsupportedFormat) { try ImageDecoder.decode(Data()) }
        // An error page served for a picture is not an SVG.
        #expect(throws: ImageDecodeError.unsupportedFormat) {
            try ImageDecoder.decode(Data("<!doctype html><html><body>Not found</body></html>".utf8))
        }
    }

    /// Cut and flipped copies of every format: each decodes or throws, none traps.
    @Test func survivesDamagedFiles() {
        var generator = SystemRandomNumberGenerator()
        let samples = [
            TestPictures.png(width: squares.width, height: squares.height, rgba: squares.rgba),
            TestPictures.jpeg(width: squares.width, height: squares.height, rgba: squares.rgba),
            TestPictures.gif(frames: 4),
            TestPictures.webp(width: squares.width, height: squares.height, rgba: squares.rgba),
        ]
        for sample in samples {
            for _ in 0..<300 {
                var bytes = [UInt8](sample)
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                }
                let cut = Int.random(in: 1...bytes.count, using: &generator)
                _ = try? ImageDecoder.decode(Data(bytes.prefix(cut)))
            }
        }
    }
}
