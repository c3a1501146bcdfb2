/// Finds where a large feed can be cut in two so that each half is parsed on its own
/// core: at the start tag of an item (`<item` or `<entry`) near the middle, outside CDATA
/// sections and comments. The second half is parsed after the document's prolog (the
/// bytes before the first item: root, channel, namespace declarations, `xml:base`), so
/// it sees the same context as in the whole document.
///
/// ```swift
/// if let cut = FeedXMLSplitter.split(bytes) { /* parse ..<cut.middle, and prolog + middle... */ }
/// ```
enum FeedXMLSplitter {
    struct Cut: Equatable {
        /// Start of the first item: `bytes[..<firstItem]` is the prolog.
        var firstItem: Int
        /// Start of the item where the second half begins.
        var middle: Int
    }

    /// The cut, if there is one. `outsideAfterMiddle` (from ``FeedXMLRepair/Result``), a
    /// position past the middle where no CDATA section or comment is open, spares the scan
    /// of everything before it.
    static func split(_ s: UnsafeBufferPointer<UInt8>, outsideAfterMiddle: Int? = nil) -> Cut? {
        let n = s.count
        guard n > 0 else { return nil }
        guard let (first, isAtom) = firstItem(in: s) else { return nil }
        var scanFrom = 0
        var candidate = max(first + 1, n / 2)
        if let outside = outsideAfterMiddle, outside > first, outside < n {
            if protectedRanges(s, upTo: first + 1).contains(where: { $0.contains(first) }) { return nil }
            scanFrom = outside
            candidate = outside
        }
        while let middle = isAtom ? find(tag: "<entry", in: s, from: candidate) : find(tag: "<item", in: s, from: candidate) {
            let protected = protectedRanges(s, from: scanFrom, upTo: middle)
            if scanFrom == 0, protected.contains(where: { $0.contains(first) }) { return nil }
            if let blocking = protected.first(where: { $0.contains(middle) }) {
                candidate = blocking.upperBound
                continue
            }
            return Cut(firstItem: first, middle: middle)
        }
        return nil
    }

    /// The first `<item` or `<entry` start tag, whichever comes first, and whether it is
    /// an entry. One pass that stops there (looking for the other tag separately scanned
    /// the whole of a large RSS feed for `<entry`, a third of the splitter's time).
    private static func firstItem(in s: UnsafeBufferPointer<UInt8>) -> (Int, isAtom: Bool)? {
        var position = 0
        while let hit = FeedXMLRepair.findByte(s, 0x3C, from: position) {
            if isTag("<item", in: s, at: hit) { return (hit, false) }
            if isTag("<entry", in: s, at: hit) { return (hit, true) }
            position = hit + 1
        }
        return nil
    }

    /// Whether `tag` starts at `position`, followed by white space, `>` or `/`.
    private static func isTag(_ tag: StaticString, in s: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
        let after = position + tag.utf8CodeUnitCount
        guard after < s.count, FeedXMLRepair.has(s, at: position, tag) else { return false }
        let next = s[after]
        return next == 0x3E || next == 0x2F || FeedText.isXMLSpace(next)
    }

    /// The next `<item`/`<entry` start tag (followed by white space, `>` or `/`).
    private static func find(tag: StaticString, in s: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var position = start
        let length = tag.utf8CodeUnitCount
        while let hit = FeedXMLRepair.find(s, tag, from: position) {
            let after = hit + length
            guard after < s.count else { return nil }
            let next = s[after]
            if next == 0x3E || next == 0x2F || FeedText.isXMLSpace(next) { return hit }
            position = hit + 1
        }
        return nil
    }

    /// CDATA sections and comments that begin before `end`, in document order; with
    /// `start`, those that begin from there on (none may be open at `start`).
    static func protectedRanges(_ s: UnsafeBufferPointer<UInt8>, from start: Int = 0, upTo end: Int) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var position = start
        let n = s.count
        // Openers are looked for only where they could begin before `end` (a document
        // without comments is not scanned to its end for "<!--"); closers anywhere.
        let openers = UnsafeBufferPointer(rebasing: s[..<min(n, end + 9)])
        // Each marker is searched again only once the scan has passed it: a document
        // without comments is scanned for "<!--" once, not once per CDATA section.
        var nextCDATA = FeedXMLRepair.find(openers, "<![CDATA[", from: start, anchor: 2) ?? n
        var nextComment = FeedXMLRepair.find(openers, "<!--", from: start, anchor: 1) ?? n
        while position < end {
            if nextCDATA < position { nextCDATA = FeedXMLRepair.find(openers, "<![CDATA[", from: position, anchor: 2) ?? n }
            if nextComment < position { nextComment = FeedXMLRepair.find(openers, "<!--", from: position, anchor: 1) ?? n }
            let start = min(nextCDATA, nextComment)
            guard start < end else { break }
            let close: Int
            if start == nextCDATA {
                close = FeedXMLRepair.find(s, "]]>", from: start + 9, anchor: 1).map { $0 + 3 } ?? n
            } else {
                close = FeedXMLRepair.find(s, "-->", from: start + 4, anchor: 1).map { $0 + 3 } ?? n
            }
            ranges.append(start..<close)
            position = close
        }
        return ranges
    }
}
