import Foundation

/// Reads back what a terminal would draw from the escape sequences of each picture protocol:
/// the test's side of the kitty, sixel and iTerm2 formats, written from their specifications.
struct ReadBackPicture {
    var width: Int
    var height: Int
    /// 0xRRGGBB per pixel, row by row; nil where nothing was drawn.
    var pixels: [UInt32?]

    func rgb(x: Int, y: Int) -> UInt32? { pixels[y * width + x] }

    /// The colour at (`fx`, `fy`) as fractions of the size: (0.25, 0.25) is the top-left square's middle.
    func rgb(fraction fx: Double, _ fy: Double) -> UInt32? {
        rgb(x: min(width - 1, Int(Double(width) * fx)), y: min(height - 1, Int(Double(height) * fy)))
    }

    /// kitty: `ESC _ G keys ; base64 ESC \` chunks (m=1 while more follow); f=32 RGBA or f=24 RGB.
    static func kitty(_ bytes: [UInt8]) -> ReadBackPicture? {
        let text = String(decoding: bytes, as: UTF8.self)
        var keys: [String: String] = [:]
        var payload = Data()
        for chunk in text.components(separatedBy: "\u{1B}_G").dropFirst() {
            guard let end = chunk.range(of: "\u{1B}\\") else { return nil }
            let body = chunk[..<end.lowerBound]
            let parts = body.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
            for pair in parts[0].split(separator: ",") {
                let kv = pair.split(separator: "=", maxSplits: 1)
                if kv.count == 2, keys[String(kv[0])] == nil { keys[String(kv[0])] = String(kv[1]) }
            }
            if parts.count == 2 {
                guard let piece = Data(base64Encoded: String(parts[1])) else { return nil }
                payload += piece
            }
        }
        guard let width = keys["s"].flatMap(Int.init), let height = keys["v"].flatMap(Int.init) else { return nil }
        let data = payload
        let stride = keys["f"] == "24" ? 3 : 4
        guard data.count >= width * height * stride else { return nil }
        let bytes = [UInt8](data)
        let pixels: [UInt32?] = (0..<(width * height)).map { index in
            let i = index * stride
            return UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
        }
        return ReadBackPicture(width: width, height: height, pixels: pixels)
    }

    /// Sixel: `ESC P … q`, raster attributes `"Pan;Pad;Ph;Pv`, colours `#n;2;r;g;b` (percent),
    /// six-pixel columns `?`…`~`, repeats `!n`, `$` back to the left, `-` down six rows.
    static func sixel(_ bytes: [UInt8]) -> ReadBackPicture? {
        guard let start = bytes.firstIndex(of: UInt8(ascii: "q")) else { return nil }
        var palette: [Int: UInt32] = [:]
        var drawn: [Int: [Int: UInt32]] = [:]
        var width = 0
        var height = 0
        var x = 0
        var band = 0
        var colour: UInt32 = 0
        var index = start + 1
        func number() -> Int {
            var value = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            return value
        }
        func numbers() -> [Int] {
            var values = [number()]
            while index < bytes.count, bytes[index] == UInt8(ascii: ";") {
                index += 1
                values.append(number())
            }
            return values
        }
        func put(_ sixel: UInt8, count: Int) {
            let bits = Int(sixel) - 0x3F
            for _ in 0..<count {
                for bit in 0..<6 where bits & (1 << bit) != 0 {
                    drawn[band * 6 + bit, default: [:]][x] = colour
                    height = max(height, band * 6 + bit + 1)
                }
                x += 1
                width = max(width, x)
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                _ = numbers()
            case UInt8(ascii: "#"):
                index += 1
                let values = numbers()
                if values.count >= 5, values[1] == 2 {
                    let scale = { (percent: Int) in UInt32((percent * 255 + 50) / 100) }
                    palette[values[0]] = scale(values[2]) << 16 | scale(values[3]) << 8 | scale(values[4])
                }
                colour = palette[values[0]] ?? 0
            case UInt8(ascii: "!"):
                index += 1
                let count = number()
                if index < bytes.count { put(bytes[index], count: count) }
                index += 1
            case UInt8(ascii: "$"):
                x = 0
                index += 1
            case UInt8(ascii: "-"):
                x = 0
                band += 1
                index += 1
            case 0x3F...0x7E:
                put(byte, count: 1)
                index += 1
            case 0x1B:
                index = bytes.count
            default:
                index += 1
            }
        }
        guard width > 0, height > 0 else { return nil }
        var pixels = [UInt32?](repeating: nil, count: width * height)
        for (y, row) in drawn { for (x, value) in row { pixels[y * width + x] = value } }
        return ReadBackPicture(width: width, height: height, pixels: pixels)
    }

    /// iTerm2: `ESC ] 1337 ; File=…: base64 BEL` (or ST); the file read here is an uncompressed
    /// TIFF (what libchafa sends) or PNG.
    static func iterm(_ bytes: [UInt8]) -> ReadBackPicture? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let open = text.range(of: "\u{1B}]1337;File="), let colon = text[open.upperBound...].firstIndex(of: ":")
        else { return nil }
        let rest = text[text.index(after: colon)...]
        let end = rest.firstIndex(where: { $0 == "\u{07}" || $0 == "\u{1B}" }) ?? rest.endIndex
        guard let data = Data(base64Encoded: String(rest[..<end])) else { return nil }
        return tiff([UInt8](data))
    }

    /// A baseline TIFF, one or more uncompressed strips of 8-bit RGB or RGBA, either byte order.
    static func tiff(_ b: [UInt8]) -> ReadBackPicture? {
        guard b.count > 8 else { return nil }
        let little = b[0] == 0x49
        func u16(_ o: Int) -> Int { little ? Int(b[o]) | Int(b[o + 1]) << 8 : Int(b[o]) << 8 | Int(b[o + 1]) }
        func u32(_ o: Int) -> Int { little ? u16(o) | u16(o + 2) << 16 : u16(o) << 16 | u16(o + 2) }
        let ifd = u32(4)
        var width = 0
        var height = 0
        var samples = 3
        var compression = 1
        var offsets: [Int] = []
        for entry in 0..<u16(ifd) {
            let e = ifd + 2 + entry * 12
            let tag = u16(e)
            let type = u16(e + 2)
            let count = u32(e + 4)
            func value(_ i: Int) -> Int {
                let size = type == 3 ? 2 : 4
                let base = count * size > 4 ? u32(e + 8) : e + 8
                return type == 3 ? u16(base + i * 2) : u32(base + i * 4)
            }
            switch tag {
            case 256: width = value(0)
            case 257: height = value(0)
            case 259: compression = value(0)
            case 273: offsets = (0..<count).map(value)
            case 277: samples = value(0)
            default: break
            }
        }
        guard compression == 1, width > 0, height > 0, let first = offsets.first else { return nil }
        // Strips follow one another in chafa's file; read the pixels from the first on.
        guard first + width * height * samples <= b.count else { return nil }
        let pixels: [UInt32?] = (0..<(width * height)).map { index in
            let i = first + index * samples
            return UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])
        }
        return ReadBackPicture(width: width, height: height, pixels: pixels)
    }
}

/// Whether two colours are within `tolerance` on each channel (sixel palettes are in percent,
/// mosaics and scaling blend edges).
func colour(_ a: UInt32?, isNear b: UInt32, tolerance: UInt32 = 24) -> Bool {
    guard let a else { return false }
    for shift in [16, 8, 0] as [UInt32] {
        let x = Int((a >> shift) & 0xFF)
        let y = Int((b >> shift) & 0xFF)
        if abs(x - y) > Int(tolerance) { return false }
    }
    return true
}

extension ReadBackPicture {
    /// Mosaic rows as a terminal shows them: one pixel per cell, the colour the cell shows
    /// (a space shows its background, any other character its foreground; reverse swaps them),
    /// read from the 24-bit SGR sequences.
    static func symbols(_ rows: [[UInt8]]) -> ReadBackPicture? {
        var grid: [[UInt32?]] = []
        for row in rows {
            var cells: [UInt32?] = []
            var foreground: UInt32? = nil
            var background: UInt32? = nil
            var reverse = false
            let text = Array(String(decoding: row, as: UTF8.self).unicodeScalars)
            var index = 0
            while index < text.count {
                if text[index] == "\u{1B}", index + 1 < text.count, text[index + 1] == "[" {
                    var end = index + 2
                    while end < text.count, !("@"..."~").contains(text[end]) { end += 1 }
                    if end < text.count, text[end] == "m" {
                        let parameters = String(String.UnicodeScalarView(text[(index + 2)..<end])).split(
                            separator: ";", omittingEmptySubsequences: false
                        ).map { Int($0) ?? 0 }
                        var p = 0
                        while p < parameters.count {
                            switch parameters[p] {
                            case 0:
                                (foreground, background, reverse) = (nil, nil, false)
                            case 7:
                                reverse = true
                            case 38, 48:
                                guard p + 4 < parameters.count, parameters[p + 1] == 2 else { break }
                                let colour =
                                    UInt32(parameters[p + 2]) << 16 | UInt32(parameters[p + 3]) << 8 | UInt32(parameters[p + 4])
                                if parameters[p] == 38 { foreground = colour } else { background = colour }
                                p += 4
                            default:
                                break
                            }
                            p += 1
                        }
                    }
                    index = end + 1
                    continue
                }
                let isSpace = text[index] == " "
                cells.append(isSpace != reverse ? background : foreground)
                index += 1
            }
            grid.append(cells)
        }
        guard let width = grid.map(\.count).max(), width > 0 else { return nil }
        let pixels = grid.flatMap { $0 + [UInt32?](repeating: nil, count: width - $0.count) }
        return ReadBackPicture(width: width, height: grid.count, pixels: pixels)
    }
}
