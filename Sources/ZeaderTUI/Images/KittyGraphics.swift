/// kitty's graphics protocol by image and placement ids: a picture's data is sent once
/// (`a=t`), then shown, moved and cut by placements (`a=p`) and removed by deletes (`a=d`),
/// so that scrolling sends a few dozen bytes, not the picture again.
///
/// ```swift
/// let data = KittyGraphics.transmitOnly(PictureEncoder.encode(image, as: .kitty, columns: 20, rows: 10), id: 7)
/// let header = KittyGraphics.header(of: data)!   // id 7, its pixels and cells
/// let show = KittyGraphics.place(header, placement: 1, rows: 0..<10)
/// ```
public enum KittyGraphics {
    /// What the first chunk of a transmission says: the image's id, its pixels, and the
    /// cells it was encoded for.
    public struct Header: Sendable, Equatable, Hashable {
        public var id: UInt32
        public var width: Int
        public var height: Int
        public var columns: Int
        public var rows: Int

        public init(id: UInt32, width: Int, height: Int, columns: Int, rows: Int) {
            self.id = id
            self.width = width
            self.height = height
            self.columns = columns
            self.rows = rows
        }
    }

    /// `encoded` (libchafa's `a=T` transmission, shown where the cursor is) as a transmission
    /// of image `id` that shows nothing; every chunk asks for no reply (`q=2`), which would
    /// otherwise reach the reader as keys.
    ///
    /// ```swift
    /// KittyGraphics.transmitOnly(Array("\u{1B}_Ga=T,f=32,s=8,v=16,c=1,r=1,m=0;AAAA\u{1B}\\".utf8), id: 3)
    /// // ESC _ G q=2,a=t,i=3,f=32,s=8,v=16,c=1,r=1,m=0;AAAA ESC \
    /// ```
    public static func transmitOnly(_ encoded: [UInt8], id: UInt32) -> [UInt8] {
        let start: [UInt8] = [0x1B, UInt8(ascii: "_"), UInt8(ascii: "G")]
        var out: [UInt8] = []
        out.reserveCapacity(encoded.count + 256)
        var index = 0
        var first = true
        while index < encoded.count {
            // Base64 has no ESC: each `ESC _ G` opens a chunk's keys.
            if encoded[index] == 0x1B, encoded[index...].starts(with: start) {
                out += start + Array("q=2,".utf8)
                index += start.count
                if first, encoded[index...].starts(with: Array("a=T".utf8)) {
                    out += Array("a=t,i=\(id)".utf8)
                    index += 3
                }
                first = false
                continue
            }
            out.append(encoded[index])
            index += 1
        }
        return out
    }

    /// The id, pixel size and cells of the transmission `bytes` (its first chunk's keys), or
    /// nil when it has no id or size.
    public static func header(of bytes: [UInt8]) -> Header? {
        guard bytes.count > 3, bytes[0] == 0x1B, bytes[1] == UInt8(ascii: "_"), bytes[2] == UInt8(ascii: "G") else {
            return nil
        }
        let end = bytes[3...].firstIndex { $0 == UInt8(ascii: ";") || $0 == 0x1B } ?? bytes.endIndex
        var keys: [String: Int] = [:]
        for pair in String(decoding: bytes[3..<end], as: UTF8.self).split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Int(parts[1]) { keys[String(parts[0])] = value }
        }
        guard let id = keys["i"], id > 0, id <= Int(UInt32.max), let width = keys["s"], let height = keys["v"],
            width > 0, height > 0
        else { return nil }
        return Header(id: UInt32(id), width: width, height: height, columns: keys["c"] ?? 1, rows: keys["r"] ?? 1)
    }

    /// Shows `rows` (of the picture's ``Header/rows``) of image `header.id` at the cursor as
    /// its placement `placement`, replacing that placement where it stood; the cursor stays.
    /// The rows are cut from the picture's pixels (a source rectangle), so a picture partly
    /// on screen shows its visible part.
    ///
    /// ```swift
    /// KittyGraphics.place(header, placement: 1, rows: 2..<10)  // the picture without its top two rows
    /// ```
    public static func place(_ header: Header, placement: UInt32, rows: Range<Int>) -> [UInt8] {
        let total = max(1, header.rows)
        let shown = rows.clamped(to: 0..<total)
        let top = shown.lowerBound * header.height / total
        let bottom = shown.upperBound * header.height / total
        return Array(
            ("\u{1B}_Ga=p,i=\(header.id),p=\(placement),x=0,y=\(top),w=\(header.width),h=\(max(1, bottom - top)),"
                + "c=\(header.columns),r=\(max(1, shown.count)),C=1,q=2\u{1B}\\").utf8)
    }

    /// Removes placement `placement` of image `id`, keeping the image's data for the next.
    public static func deletePlacement(id: UInt32, placement: UInt32) -> [UInt8] {
        Array("\u{1B}_Ga=d,d=i,i=\(id),p=\(placement),q=2\u{1B}\\".utf8)
    }

    /// Removes image `id`'s placements and frees its data.
    public static func deleteImage(id: UInt32) -> [UInt8] {
        Array("\u{1B}_Ga=d,d=I,i=\(id),q=2\u{1B}\\".utf8)
    }

    /// What changes the kitty pictures on screen from `shown` to `pictures`: the placements
    /// no longer shown removed, the new or moved ones placed, and the data of an image sent
    /// only when `sent` (the images the terminal has, with the passthrough they went
    /// through) lacks it.
    ///
    /// ```swift
    /// var sent: [UInt32: TmuxPassthrough?] = [:]
    /// KittyGraphics.changes(from: [], to: [picture], sent: &sent)        // its data and placement
    /// KittyGraphics.changes(from: [picture], to: [scrolled], sent: &sent)  // the placement only
    /// ```
    public static func changes(
        from shown: [PlacedPicture], to pictures: [PlacedPicture], sent: inout [UInt32: TmuxPassthrough?]
    ) -> [UInt8] {
        struct Placed: Hashable {
            var id: UInt32
            var placement: UInt32
        }
        var out: [UInt8] = []
        let kept = Set(pictures.compactMap { $0.kitty.map { Placed(id: $0.header.id, placement: $0.placement) } })
        for old in shown {
            guard let kitty = old.kitty, !kept.contains(Placed(id: kitty.header.id, placement: kitty.placement)) else {
                continue
            }
            out += wrapped(deletePlacement(id: kitty.header.id, placement: kitty.placement), old.passthrough)
        }
        for picture in pictures where !shown.contains(picture) {
            guard let kitty = picture.kitty else { continue }
            if sent[kitty.header.id] == nil {
                out += picture.bytes
                sent[kitty.header.id] = .some(picture.passthrough)
            } else {
                out += picture.placementBytes
            }
        }
        return out
    }

    /// Frees the images of `sent` (``changes(from:to:sent:)``).
    public static func release(_ sent: [UInt32: TmuxPassthrough?]) -> [UInt8] {
        sent.sorted { $0.key < $1.key }.flatMap { wrapped(deleteImage(id: $0.key), $0.value) }
    }

    private static func wrapped(_ bytes: [UInt8], _ passthrough: TmuxPassthrough?) -> [UInt8] {
        passthrough == nil ? bytes : TmuxPassthrough.wrap(bytes)
    }
}
