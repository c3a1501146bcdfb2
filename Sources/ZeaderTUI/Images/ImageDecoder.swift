import CChafa
import Foundation

/// How much an image from a feed or a page may cost before it is decoded: its bytes, its
/// pixels, its longest side and (for GIF) its frames, all read from the header first, so a
/// decompression bomb is refused before a pixel is allocated.
///
/// ```swift
/// let limits = ImageLimits(maximumBytes: 1 << 20, maximumPixels: 1_000_000)
/// let image = try ImageDecoder.decode(data, limits: limits)
/// ```
public struct ImageLimits: Sendable, Equatable {
    /// The largest encoded file accepted.
    public var maximumBytes: Int
    /// The most pixels (width × height) decoded; four bytes each.
    public var maximumPixels: Int
    /// The longest side accepted, whatever the pixel count.
    public var maximumSide: Int
    /// The most frames an animated GIF may hold (only the first is shown).
    public var maximumFrames: Int

    public init(
        maximumBytes: Int = 8 << 20, maximumPixels: Int = 4096 * 4096, maximumSide: Int = 16_384, maximumFrames: Int = 1_000
    ) {
        self.maximumBytes = maximumBytes
        self.maximumPixels = maximumPixels
        self.maximumSide = maximumSide
        self.maximumFrames = maximumFrames
    }

    /// The reader's limits: a 4096 × 4096 picture at most (its pixels freed once encoded).
    public static let `default` = ImageLimits()
}

/// The encoded formats the reader decodes, told apart by their first bytes (never by a URL's
/// extension or a server's content type).
///
/// ```swift
/// ImageFormat.sniff(Data([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]))  // .gif
/// ```
public enum ImageFormat: String, Sendable, Equatable {
    case png, jpeg, gif, webp
    /// SVG: shown as its alt text, never rendered.
    case svg

    /// The format `data` starts as, or nil for anything else (BMP, TGA, PSD and the other
    /// formats stb_image knows are refused: fewer decoders, fewer ways in).
    public static func sniff(_ data: Data) -> ImageFormat? {
        let head = [UInt8](data.prefix(16))
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { return .webp }
        let text = data.prefix(1024).drop(while: { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) })
        if text.first == UInt8(ascii: "<"), String(decoding: text, as: UTF8.self).lowercased().contains("<svg") { return .svg }
        return nil
    }
}

/// Why an image is shown as its alt text instead of its pixels.
///
/// ```swift
/// if case .tooManyPixels(let width, let height) = error { print(width, height) }
/// ```
public enum ImageDecodeError: Error, Sendable, Equatable {
    /// More bytes than ``ImageLimits/maximumBytes``.
    case tooManyBytes(Int)
    /// Its header announces more pixels, or a longer side, than the limits allow.
    case tooManyPixels(width: Int, height: Int)
    /// An animated GIF with more frames than ``ImageLimits/maximumFrames``.
    case tooManyFrames(Int)
    /// Not PNG, JPEG, GIF or WebP (an animated WebP included).
    case unsupportedFormat
    /// A vector image: shown as its alt text.
    case vectorImage
    /// The file ends before its image does (a cut download).
    case truncated
    /// The decoder refused it; its reason as the decoder gave it.
    case corrupt(String)
}

/// Pixels ready for the encoder: `width` × `height`, four bytes (RGBA) each, row by row.
///
/// ```swift
/// let red = DecodedImage(width: 1, height: 1, rgba: [255, 0, 0, 255])
/// ```
public struct DecodedImage: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var rgba: [UInt8]

    public init(width: Int, height: Int, rgba: [UInt8]) {
        self.width = width
        self.height = height
        self.rgba = rgba
    }

    /// The colour at (`x`, `y`) as 0xRRGGBB, for tests and the symbols' checks.
    public func rgb(x: Int, y: Int) -> UInt32 {
        let index = (y * width + x) * 4
        return UInt32(rgba[index]) << 16 | UInt32(rgba[index + 1]) << 8 | UInt32(rgba[index + 2])
    }
}

/// Decodes an image from the network with stb_image (PNG, JPEG, the first frame of a GIF)
/// or libwebp (still WebP), after checking its header against ``ImageLimits``.
///
/// ```swift
/// do { let image = try ImageDecoder.decode(data) } catch { showAltText(error) }
/// ```
public enum ImageDecoder {
    /// The pixels of `data`, or the reason it is refused; never traps on hostile input.
    public static func decode(_ data: Data, limits: ImageLimits = .default) throws(ImageDecodeError) -> DecodedImage {
        guard data.count <= limits.maximumBytes else { throw .tooManyBytes(data.count) }
        guard let format = ImageFormat.sniff(data) else { throw .unsupportedFormat }
        let bytes = [UInt8](data)
        switch format {
        case .svg:
            throw .vectorImage
        case .webp:
            return try decodeWebP(bytes, limits: limits)
        case .gif:
            // The logical screen's size, then the frames, before stb_image sees the file.
            guard bytes.count >= 10 else { throw .truncated }
            try check(width: Int(bytes[6]) | Int(bytes[7]) << 8, height: Int(bytes[8]) | Int(bytes[9]) << 8, limits: limits)
            let frames = try GIFStructure.frameCount(bytes, stoppingAfter: limits.maximumFrames)
            guard frames <= limits.maximumFrames else { throw .tooManyFrames(frames) }
            return try decodeWithStb(bytes, limits: limits)
        case .jpeg:
            // stb_image fills a cut JPEG's missing rows with grey and calls it a success.
            guard JPEGStructure.hasEndMarker(bytes) else { throw .truncated }
            return try decodeWithStb(bytes, limits: limits)
        case .png:
            // IHDR comes first: its size is checked here, as stb_image refuses a huge one only
            // as an "unknown image type".
            guard bytes.count >= 24 else { throw .truncated }
            func word(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
            try check(width: word(16), height: word(20), limits: limits)
            return try decodeWithStb(bytes, limits: limits)
        }
    }

    private static func check(width: Int, height: Int, limits: ImageLimits) throws(ImageDecodeError) {
        guard width > 0, height > 0 else { throw .corrupt("no size") }
        guard width <= limits.maximumSide, height <= limits.maximumSide,
            width.multipliedReportingOverflow(by: height).partialValue <= limits.maximumPixels
        else { throw .tooManyPixels(width: width, height: height) }
    }

    private static func decodeWithStb(_ bytes: [UInt8], limits: ImageLimits) throws(ImageDecodeError) -> DecodedImage {
        var width: Int32 = 0
        var height: Int32 = 0
        var channels: Int32 = 0
        let known = bytes.withUnsafeBufferPointer {
            stbi_info_from_memory($0.baseAddress, Int32($0.count), &width, &height, &channels)
        }
        guard known == 1 else { throw .corrupt(failureReason()) }
        try check(width: Int(width), height: Int(height), limits: limits)
        let pixels = bytes.withUnsafeBufferPointer {
            stbi_load_from_memory($0.baseAddress, Int32($0.count), &width, &height, &channels, 4)
        }
        guard let pixels else {
            let reason = failureReason()
            throw reason.contains("truncated") || reason.contains("outofdata") ? .truncated : .corrupt(reason)
        }
        defer { stbi_image_free(pixels) }
        try check(width: Int(width), height: Int(height), limits: limits)
        let count = Int(width) * Int(height) * 4
        return DecodedImage(
            width: Int(width), height: Int(height), rgba: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }

    private static func failureReason() -> String {
        stbi_failure_reason().map { String(cString: $0) } ?? "unknown"
    }

    private static func decodeWebP(_ bytes: [UInt8], limits: ImageLimits) throws(ImageDecodeError) -> DecodedImage {
        var features = WebPBitstreamFeatures()
        let status = bytes.withUnsafeBufferPointer {
            WebPGetFeaturesInternal($0.baseAddress, $0.count, &features, WEBP_DECODER_ABI_VERSION)
        }
        switch status {
        case VP8_STATUS_OK: break
        case VP8_STATUS_NOT_ENOUGH_DATA: throw .truncated
        default: throw .corrupt("webp status \(status.rawValue)")
        }
        guard features.has_animation == 0 else { throw .unsupportedFormat }
        try check(width: Int(features.width), height: Int(features.height), limits: limits)
        var width: Int32 = 0
        var height: Int32 = 0
        let pixels = bytes.withUnsafeBufferPointer { WebPDecodeRGBA($0.baseAddress, $0.count, &width, &height) }
        guard let pixels else { throw .corrupt("webp decode failed") }
        defer { WebPFree(pixels) }
        try check(width: Int(width), height: Int(height), limits: limits)
        let count = Int(width) * Int(height) * 4
        return DecodedImage(
            width: Int(width), height: Int(height), rgba: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }
}

/// GIF's block structure, walked (not decoded) to count frames before stb_image sees the file.
enum GIFStructure {
    /// The image descriptors in `bytes`, counting no further than one past `limit`.
    static func frameCount(_ bytes: [UInt8], stoppingAfter limit: Int) throws(ImageDecodeError) -> Int {
        guard bytes.count >= 13 else { throw .truncated }
        var position = 13
        if bytes[10] & 0x80 != 0 { position += 3 << (Int(bytes[10] & 0x07) + 1) }
        var frames = 0
        func skipSubBlocks() throws(ImageDecodeError) {
            while true {
                guard position < bytes.count else { throw .truncated }
                let length = Int(bytes[position])
                position += 1 + length
                if length == 0 { return }
            }
        }
        while position < bytes.count {
            switch bytes[position] {
            case 0x3B:
                return frames
            case 0x21:
                position += 2
                try skipSubBlocks()
            case 0x2C:
                frames += 1
                if frames > limit { return frames }
                guard position + 10 <= bytes.count else { throw .truncated }
                let packed = bytes[position + 9]
                position += 10
                if packed & 0x80 != 0 { position += 3 << (Int(packed & 0x07) + 1) }
                position += 1  // LZW minimum code size
                try skipSubBlocks()
            default:
                throw .corrupt("gif block \(bytes[position])")
            }
        }
        // No trailer: stb_image still shows the first frame if it is whole.
        guard frames > 0 else { throw .truncated }
        return frames
    }
}

/// JPEG's markers, read only to see that the file is whole.
enum JPEGStructure {
    /// Whether the end-of-image marker (FF D9) closes the file (trailing padding allowed).
    static func hasEndMarker(_ bytes: [UInt8]) -> Bool {
        var end = bytes.count
        while end > 2, bytes[end - 1] == 0 || bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D || bytes[end - 1] == 0x20 {
            end -= 1
        }
        return end >= 4 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9
    }
}
