import CChafa
import Foundation

/// Pictures made in the tests: PNG and JPEG through stb_image_write, GIF and hostile headers
/// byte by byte.
enum TestPictures {
    /// The known test picture: four coloured squares (red, green / blue, yellow), each
    /// `side` pixels wide.
    static func squares(side: Int = 8) -> (width: Int, height: Int, rgba: [UInt8]) {
        let colours: [[UInt8]] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 0]]
        var rgba: [UInt8] = []
        for y in 0..<(2 * side) {
            for x in 0..<(2 * side) {
                rgba += colours[(y / side) * 2 + x / side] + [255]
            }
        }
        return (2 * side, 2 * side, rgba)
    }

    static func png(width: Int, height: Int, rgba: [UInt8]) -> Data {
        let sink = Sink()
        _ = rgba.withUnsafeBufferPointer { pixels in
            stbi_write_png_to_func(
                Sink.append, Unmanaged.passUnretained(sink).toOpaque(), Int32(width), Int32(height), 4,
                pixels.baseAddress, Int32(width * 4))
        }
        return sink.data
    }

    static func jpeg(width: Int, height: Int, rgba: [UInt8]) -> Data {
        let sink = Sink()
        _ = rgba.withUnsafeBufferPointer { pixels in
            stbi_write_jpg_to_func(
                Sink.append, Unmanaged.passUnretained(sink).toOpaque(), Int32(width), Int32(height), 4,
                pixels.baseAddress, 95)
        }
        return sink.data
    }

    /// Collects what stb_image_write's callbacks hand over.
    private final class Sink {
        var data = Data()
        static let append: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int32) -> Void = {
            context, bytes, count in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            sink.data.append(bytes!.assumingMemoryBound(to: UInt8.self), count: Int(count))
        }
    }

    /// A lossless WebP of `rgba`.
    static func webp(width: Int, height: Int, rgba: [UInt8]) -> Data {
        var output: UnsafeMutablePointer<UInt8>? = nil
        let size = rgba.withUnsafeBufferPointer {
            WebPEncodeLosslessRGBA($0.baseAddress, Int32(width), Int32(height), Int32(width * 4), &output)
        }
        defer { WebPFree(output) }
        return Data(bytes: output!, count: size)
    }

    /// A 1 × 1 GIF of `frames` frames: the first red, the others blue.
    static func gif(frames: Int) -> Data {
        var bytes = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0]
        bytes += [255, 0, 0, 0, 0, 255]  // colour 0 red, colour 1 blue
        for frame in 0..<frames {
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2]
            bytes += frame == 0 ? [2, 0x44, 0x01, 0] : [2, 0x4C, 0x01, 0]
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    /// A PNG signature and IHDR announcing `width` × `height`, with no pixels after it.
    static func pngHeader(width: UInt32, height: UInt32) -> Data {
        var chunk = Array("IHDR".utf8)
        chunk += bigEndian(width) + bigEndian(height) + [8, 6, 0, 0, 0]
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        bytes += bigEndian(13) + chunk + bigEndian(crc32(chunk))
        return Data(bytes)
    }

    /// `jpeg` with its frame header (SOF) claiming `width` × `height`.
    static func jpeg(_ jpeg: Data, claiming width: UInt16, _ height: UInt16) -> Data {
        var bytes = [UInt8](jpeg)
        for index in 0..<(bytes.count - 9) where bytes[index] == 0xFF && bytes[index + 1] == 0xC0 {
            bytes[index + 5] = UInt8(height >> 8)
            bytes[index + 6] = UInt8(height & 0xFF)
            bytes[index + 7] = UInt8(width >> 8)
            bytes[index + 8] = UInt8(width & 0xFF)
            break
        }
        return Data(bytes)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
