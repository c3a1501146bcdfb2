#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The pass over a feed's UTF-8 bytes that runs before libxml2 sees them.
///
/// - Leading white space before `<?xml` is dropped (a common mistake that would make
///   libxml2 reject the declaration).
/// - The DOCTYPE declaration is removed, so libxml2 never reads a DTD, internal or
///   external. Entities declared in the internal subset are expanded here instead, within
///   a byte budget: "billion laughs" and quadratic-blowup documents exceed it and are
///   refused before any expansion is materialized.
/// - References that XML does not know are made explicit: HTML entities (`&nbsp;`,
///   `&eacute;` …) become character references; a bare `&` becomes `&#38;`; character
///   references to C1 code points (`&#150;`) are read as windows-1252, as browsers do;
///   references to characters XML forbids (`&#0;`) are dropped.
/// CDATA sections and comments are left exactly as they are.
///
/// ```swift
/// let repaired = try FeedXMLRepair.repair(utf8Bytes, maxEntityExpansion: 1 << 20)
/// ```
enum FeedXMLRepair {
    /// `bytes == nil`: the input from `offset` on needs no change.
    struct Result {
        var bytes: [UInt8]?
        var offset: Int
        /// A position in the repaired document, past the middle of the input, where no
        /// CDATA section or comment is open (a place for ``FeedXMLSplitter`` to start
        /// looking for a cut without scanning the first half again); nil when unknown.
        var outsideAfterMiddle: Int? = nil
    }

    enum Failure: Error {
        case entityExpansion(name: String, limit: Int)
        case entityLoop(name: String)
        case entityDepth(name: String, limit: Int)
    }

    private struct DeclaredEntity {
        var value: [UInt8]?  // nil: external (never loaded)
    }

    static func repair(_ s: UnsafeBufferPointer<UInt8>, maxEntityExpansion: Int) throws(Failure) -> Result {
        let n = s.count
        var i = 0
        while i < n, FeedText.isXMLSpace(s[i]) { i += 1 }
        let start = i
        var doctype: Range<Int>?
        var entities: [String: DeclaredEntity] = [:]
        // The prolog: declaration, comments, PIs, the DOCTYPE.
        while i < n {
            while i < n, FeedText.isXMLSpace(s[i]) { i += 1 }
            if has(s, at: i, "<?") {
                i = find(s, "?>", from: i + 2).map { $0 + 2 } ?? n
            } else if has(s, at: i, "<!--") {
                i = find(s, "-->", from: i + 4).map { $0 + 3 } ?? n
            } else if has(s, at: i, "<!DOCTYPE") || has(s, at: i, "<!doctype") {
                let end = parseDoctype(s, from: i, entities: &entities)
                doctype = i..<end
                i = end
            } else {
                break
            }
        }
        var out: [UInt8]? = nil
        var copied = start
        if let doctype {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(n - start + n / 32)
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: s[start..<doctype.lowerBound]))
            out = bytes
            copied = doctype.upperBound
        }
        var expansion = EntityExpander(entities: entities, budget: maxEntityExpansion)

        var position = i
        var nextCDATA = find(s, "<![CDATA[", from: position, anchor: 2) ?? n
        var nextComment = find(s, "<!--", from: position, anchor: 1) ?? n
        // Entities declared in a DOCTYPE may expand to markup: no hint for the splitter then.
        var middleToNote = doctype == nil ? n / 2 : Int.max
        var outsideAfterMiddle: Int?
        while position < n {
            if position >= middleToNote {
                // Every `position` the loop starts with is outside CDATA sections and comments.
                outsideAfterMiddle = out.map { $0.count + position - copied } ?? position - start
                middleToNote = Int.max
            }
            let amp = findByte(s, 0x26, from: position) ?? n
            let special = min(nextCDATA, nextComment)
            if special < amp {
                if special == nextCDATA {
                    position = find(s, "]]>", from: special + 9, anchor: 1).map { $0 + 3 } ?? n
                } else {
                    position = find(s, "-->", from: special + 4, anchor: 1).map { $0 + 3 } ?? n
                }
                if nextCDATA < position { nextCDATA = find(s, "<![CDATA[", from: position, anchor: 2) ?? n }
                if nextComment < position { nextComment = find(s, "<!--", from: position, anchor: 1) ?? n }
                continue
            }
            if amp >= n { break }
            let (replacement, end) = try classify(s, amp: amp, expansion: &expansion)
            if let replacement {
                if out == nil {
                    var bytes: [UInt8] = []
                    bytes.reserveCapacity(n - start + n / 32)
                    out = bytes
                }
                out!.append(contentsOf: UnsafeBufferPointer(rebasing: s[copied..<amp]))
                out!.append(contentsOf: replacement)
                copied = end
            }
            position = end
        }
        if out != nil {
            out!.append(contentsOf: UnsafeBufferPointer(rebasing: s[copied..<n]))
            return Result(bytes: out, offset: 0, outsideAfterMiddle: outsideAfterMiddle)
        }
        return Result(bytes: nil, offset: start, outsideAfterMiddle: outsideAfterMiddle)
    }

    /// Takes out the characters XML 1.0 forbids — C0 controls but tab, line feed and
    /// carriage return, ESC included — wherever they are (text, CDATA sections,
    /// attributes), as libxml2 itself skips them in text. Returns how many were found.
    static func removeForbiddenCharacters(_ bytes: inout [UInt8]) -> Int {
        var found = 0
        var write = 0
        var previous: (UInt8, UInt8) = (0, 0)  // the two bytes read before, as they were
        for read in bytes.indices {
            let byte = bytes[read]
            defer { previous = (previous.1, byte) }
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
                found += 1
                continue
            } else if byte >= 0xBE, byte <= 0xBF, previous == (0xEF, 0xBF), write >= 2 {
                // U+FFFE, U+FFFF: noncharacters XML forbids too (their first two bytes go)
                found += 1
                write -= 2
                continue
            } else {
                bytes[write] = byte
            }
            write += 1
        }
        bytes.removeLast(bytes.count - write)
        return found
    }

    private static let ampersandReference: [UInt8] = Array("&#38;".utf8)

    /// What to write for the reference starting at `amp` (nil: keep it) and where it ends.
    private static func classify(
        _ s: UnsafeBufferPointer<UInt8>, amp: Int, expansion: inout EntityExpander
    ) throws(Failure) -> ([UInt8]?, Int) {
        let n = s.count
        var i = amp + 1
        if let end = predefinedReferenceEnd(s, at: i) { return (nil, end) }
        if i < n, s[i] == 0x23 {  // &#
            i += 1
            var value: UInt32 = 0
            var digits = 0
            if i < n, s[i] | 0x20 == 0x78 {  // x
                i += 1
                // Saturating past the last code point: `&#x7FFFFFFFFFFFFFFF;` is one
                // (forbidden) reference, not an overflow.
                while i < n, let digit = hexValue(s[i]), digits < 64 {
                    value = value > 0x10FFFF ? 0x110000 : value << 4 | digit
                    digits += 1
                    i += 1
                }
            } else {
                while i < n, s[i] >= 0x30, s[i] <= 0x39, digits < 64 {
                    value = value > 0x10FFFF ? 0x110000 : value * 10 + UInt32(s[i] - 0x30)
                    digits += 1
                    i += 1
                }
            }
            guard digits > 0, i < n, s[i] == 0x3B else { return (ampersandReference, amp + 1) }
            let end = i + 1
            if value >= 0x80 && value <= 0x9F {
                return (characterReference(FeedXMLEncoding.windows1252Scalar(UInt8(value))), end)
            }
            if !isXMLChar(value) { return ([], end) }
            return (nil, end)
        }
        let nameStart = i
        while i < n, i - nameStart <= 32, isNameByte(s[i]) { i += 1 }
        guard i > nameStart, i < n, s[i] == 0x3B, isNameStartByte(s[nameStart]) else {
            return (ampersandReference, amp + 1)
        }
        let end = i + 1
        let nameBytes = UnsafeBufferPointer(rebasing: s[nameStart..<i])
        if isPredefined(nameBytes) { return (nil, end) }
        let name = String(decoding: nameBytes, as: UTF8.self)
        if let expanded = try expansion.expand(name) { return (expanded, end) }
        if let scalar = FeedHTMLEntities.scalar(named: name) { return (characterReference(scalar), end) }
        return (ampersandReference, amp + 1)
    }

    private static func characterReference(_ scalar: UInt32) -> [UInt8] {
        Array("&#\(scalar);".utf8)
    }

    static func isXMLChar(_ value: UInt32) -> Bool {
        switch value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// Where the reference ends when the name at `start` (after its `&`) is one of the
    /// five predefined entities and `;` follows: most references in a feed (escaped HTML
    /// holds two per tag), told apart here before the general name scan. Nil otherwise.
    @inline(__always)
    private static func predefinedReferenceEnd(_ s: UnsafeBufferPointer<UInt8>, at start: Int) -> Int? {
        // The names are 2 to 4 letters long: the first `;` among those places decides.
        for length in 2...4 where start + length < s.count && s[start + length] == 0x3B {
            return isPredefined(UnsafeBufferPointer(rebasing: s[start..<(start + length)])) ? start + length + 1 : nil
        }
        return nil
    }

    private static func isPredefined(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 2: return (name[0] == 0x6C || name[0] == 0x67) && name[1] == 0x74  // lt gt
        case 3: return name[0] == 0x61 && name[1] == 0x6D && name[2] == 0x70  // amp
        case 4:
            return (name[0] == 0x71 && name[1] == 0x75 && name[2] == 0x6F && name[3] == 0x74)  // quot
                || (name[0] == 0x61 && name[1] == 0x70 && name[2] == 0x6F && name[3] == 0x73)  // apos
        default: return false
        }
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: return UInt32(byte - 0x30)
        case 0x41...0x46: return UInt32(byte - 0x37)
        case 0x61...0x66: return UInt32(byte - 0x57)
        default: return nil
        }
    }

    @inline(__always)
    private static func isNameStartByte(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A || byte == 0x5F || byte == 0x3A || byte >= 0x80
    }

    @inline(__always)
    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStartByte(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
    }

    // MARK: - DOCTYPE

    /// Skips the DOCTYPE declaration at `start` and collects the general entities of its
    /// internal subset; returns the index just past its closing `>`.
    private static func parseDoctype(
        _ s: UnsafeBufferPointer<UInt8>, from start: Int, entities: inout [String: DeclaredEntity]
    ) -> Int {
        let n = s.count
        var i = start + 9
        var inSubset = false
        while i < n {
            let c = s[i]
            if c == 0x22 || c == 0x27 {  // quoted literal
                i = (findByte(s, c, from: i + 1) ?? n - 1) + 1
            } else if c == 0x5B {  // [
                inSubset = true
                i += 1
            } else if c == 0x5D {  // ]
                inSubset = false
                i += 1
            } else if c == 0x3E && !inSubset {  // >
                return i + 1
            } else if inSubset && has(s, at: i, "<!--") {
                i = find(s, "-->", from: i + 4).map { $0 + 3 } ?? n
            } else if inSubset && has(s, at: i, "<!ENTITY") {
                i = parseEntityDeclaration(s, from: i + 8, entities: &entities)
            } else {
                i += 1
            }
        }
        return n
    }

    private static func parseEntityDeclaration(
        _ s: UnsafeBufferPointer<UInt8>, from start: Int, entities: inout [String: DeclaredEntity]
    ) -> Int {
        let n = s.count
        var i = start
        while i < n, FeedText.isXMLSpace(s[i]) { i += 1 }
        var isParameter = false
        if i < n, s[i] == 0x25 {  // %
            isParameter = true
            i += 1
            while i < n, FeedText.isXMLSpace(s[i]) { i += 1 }
        }
        let nameStart = i
        while i < n, isNameByte(s[i]) { i += 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: s[nameStart..<i]), as: UTF8.self)
        while i < n, FeedText.isXMLSpace(s[i]) { i += 1 }
        var value: [UInt8]?
        if i < n, s[i] == 0x22 || s[i] == 0x27 {
            let quote = s[i]
            let valueEnd = findByte(s, quote, from: i + 1) ?? n
            value = Array(UnsafeBufferPointer(rebasing: s[(i + 1)..<valueEnd]))
            i = min(n, valueEnd + 1)
        }
        // Up to the closing '>', skipping quoted literals (SYSTEM/PUBLIC ids, NDATA).
        while i < n, s[i] != 0x3E {
            if s[i] == 0x22 || s[i] == 0x27 {
                i = (findByte(s, s[i], from: i + 1) ?? n - 1) + 1
            } else {
                i += 1
            }
        }
        if !isParameter, !name.isEmpty, entities[name] == nil {  // the first declaration wins
            entities[name] = DeclaredEntity(value: value)
        }
        return min(n, i + 1)
    }

    // MARK: - Entity expansion with a budget

    /// Entities may refer to entities this many levels deep (libxml2 allows 40); a longer
    /// chain is refused. The walk over a chain uses no recursion, so even a chain of
    /// 100,000 declarations is refused without exhausting the stack.
    static let maxEntityDepth = 64

    private struct EntityExpander {
        let entities: [String: DeclaredEntity]
        let budget: Int
        var spent = 0
        /// Bytes of all the expansions built so far (each entity's once): at most four
        /// budgets, so that many mid-sized entities cannot add up to a large allocation.
        var materializedBytes = 0
        var lengths: [String: Int] = [:]
        var expansions: [String: [UInt8]] = [:]
        private var piecesByName: [String: [Piece]] = [:]

        init(entities: [String: DeclaredEntity], budget: Int) {
            self.entities = entities
            self.budget = budget
        }

        /// The replacement text for a reference to `name`, nil when `name` is not declared
        /// with an internal value (undeclared or external: left to the other rules).
        mutating func expand(_ name: String) throws(Failure) -> [UInt8]? {
            guard let entity = entities[name], entity.value != nil else { return nil }
            let newlyMeasured: [String]
            let length: Int
            do {
                (length, newlyMeasured) = try measure(name)
            } catch .entityExpansion {
                throw .entityExpansion(name: name, limit: budget)  // name the entity the document uses
            }
            spent = spent > budget - length ? budget + 1 : spent + length
            if spent > budget { throw .entityExpansion(name: name, limit: budget) }
            // Children come before their parents in `newlyMeasured`: each one is built
            // from expansions that already exist.
            for measured in newlyMeasured where expansions[measured] == nil {
                let built = materialize(measured)
                materializedBytes += built.count
                if materializedBytes > budget * 4 { throw .entityExpansion(name: name, limit: budget) }
                expansions[measured] = built
            }
            return expansions[name] ?? materialize(name)
        }

        /// One open entity of the walk in ``measure(_:)``.
        private struct Frame {
            var name: String
            var pieces: [Piece]
            var next = 0
            var total = 0
        }

        /// The length of `name`'s full expansion, computed without building it, and the
        /// entities measured for the first time, children first. An explicit stack (no
        /// recursion), at most ``FeedXMLRepair/maxEntityDepth`` deep; stops as soon as a
        /// length passes the budget, so a billion laughs is refused after a few dozen
        /// additions.
        private mutating func measure(_ name: String) throws(Failure) -> (Int, [String]) {
            if let known = lengths[name] { return (known, []) }
            var measured: [String] = []
            var stack = [Frame(name: name, pieces: pieces(of: name))]
            var open: Set<String> = [name]
            while let top = stack.indices.last {
                guard stack[top].next < stack[top].pieces.count else {
                    let done = stack.removeLast()
                    open.remove(done.name)
                    lengths[done.name] = done.total
                    measured.append(done.name)
                    guard let parent = stack.indices.last else { return (done.total, measured) }
                    stack[parent].total += done.total
                    if stack[parent].total > budget { throw .entityExpansion(name: stack[parent].name, limit: budget) }
                    continue
                }
                let piece = stack[top].pieces[stack[top].next]
                stack[top].next += 1
                switch piece {
                case .bytes(let count):
                    stack[top].total += count
                case .reference(let reference):
                    if let known = lengths[reference] {
                        stack[top].total += known
                    } else if entities[reference]?.value != nil {
                        if open.contains(reference) { throw .entityLoop(name: reference) }
                        if stack.count >= FeedXMLRepair.maxEntityDepth {
                            throw .entityDepth(name: name, limit: FeedXMLRepair.maxEntityDepth)
                        }
                        stack.append(Frame(name: reference, pieces: pieces(of: reference)))
                        open.insert(reference)
                        continue
                    } else {
                        stack[top].total += reference.utf8.count + 6
                    }
                }
                if stack[top].total > budget { throw .entityExpansion(name: stack[top].name, limit: budget) }
            }
            return (0, measured)
        }

        private mutating func pieces(of name: String) -> [Piece] {
            if let known = piecesByName[name] { return known }
            var pieces: [Piece] = []
            if let value = entities[name]?.value { forEachPiece(of: value) { pieces.append($0) } }
            piecesByName[name] = pieces
            return pieces
        }

        /// The expansion of `name`, from the expansions of the entities it refers to
        /// (built before it by ``expand(_:)``).
        private func materialize(_ name: String) -> [UInt8] {
            guard let value = entities[name]?.value else { return [] }
            var out: [UInt8] = []
            var index = 0
            forEachPiece(of: value) { piece in
                switch piece {
                case .bytes(let count):
                    out.append(contentsOf: decodeCharacterReferences(value[index..<(index + count)]))
                    index += count
                case .reference(let reference):
                    index += reference.utf8.count + 2
                    if entities[reference]?.value != nil {
                        out.append(contentsOf: expansions[reference] ?? [])
                    } else if let scalar = FeedHTMLEntities.scalar(named: reference),
                        !["amp", "lt", "gt", "quot", "apos"].contains(reference)
                    {
                        out.append(contentsOf: Array("&#\(scalar);".utf8))
                    } else if ["amp", "lt", "gt", "quot", "apos"].contains(reference) {
                        out.append(contentsOf: Array("&\(reference);".utf8))
                    } else {
                        out.append(contentsOf: Array("&#38;\(reference);".utf8))
                    }
                }
            }
            return out
        }

        private enum Piece {
            case bytes(Int)
            case reference(String)
        }

        /// Splits an entity value into literal runs and `&name;` references.
        private func forEachPiece(of value: [UInt8], _ body: (Piece) -> Void) {
            var i = 0
            var runStart = 0
            while i < value.count {
                if value[i] == 0x26, i + 1 < value.count, value[i + 1] != 0x23,
                    let semicolon = value[(i + 1)...].firstIndex(of: 0x3B), semicolon - i <= 33
                {
                    if i > runStart { body(.bytes(i - runStart)) }
                    body(.reference(String(decoding: value[(i + 1)..<semicolon], as: UTF8.self)))
                    i = semicolon + 1
                    runStart = i
                } else {
                    i += 1
                }
            }
            if i > runStart { body(.bytes(i - runStart)) }
        }

        /// Character references in an entity value are replaced when it is declared.
        private func decodeCharacterReferences(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            guard bytes.contains(0x26) else { return Array(bytes) }
            var out: [UInt8] = []
            var i = bytes.startIndex
            while i < bytes.endIndex {
                if bytes[i] == 0x26, i + 2 < bytes.endIndex, bytes[i + 1] == 0x23,
                    let semicolon = bytes[i...].firstIndex(of: 0x3B)
                {
                    let digits = bytes[(i + 2)..<semicolon]
                    let text = String(decoding: digits, as: UTF8.self)
                    let scalar = text.first == "x" ? UInt32(text.dropFirst(), radix: 16) : UInt32(text)
                    if let scalar, FeedXMLRepair.isXMLChar(scalar) {
                        if scalar == 0x26 || scalar == 0x3C {
                            out.append(contentsOf: Array("&#\(scalar);".utf8))
                        } else {
                            FeedXMLEncoding.appendScalar(scalar, to: &out)
                        }
                    }
                    i = semicolon + 1
                } else {
                    out.append(bytes[i])
                    i += 1
                }
            }
            return out
        }
    }

    // MARK: - Searching

    @inline(__always)
    static func has(_ s: UnsafeBufferPointer<UInt8>, at i: Int, _ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard i + count <= s.count else { return false }
        return memcmp(s.baseAddress! + i, literal.utf8Start, count) == 0
    }

    /// The first occurrence of `literal` at or after `i`. `memchr` looks for the byte at
    /// `anchor` (pick a rare one: `[` of `<![CDATA[` rather than its `<`, which starts
    /// every tag).
    static func find(_ s: UnsafeBufferPointer<UInt8>, _ literal: StaticString, from i: Int, anchor: Int = 0) -> Int? {
        let count = literal.utf8CodeUnitCount
        let anchorByte = literal.utf8Start[anchor]
        var position = i + anchor
        while position < s.count, let hit = findByte(s, anchorByte, from: position) {
            let start = hit - anchor
            guard start + count <= s.count else { return nil }
            if memcmp(s.baseAddress! + start, literal.utf8Start, count) == 0 { return start }
            position = hit + 1
        }
        return nil
    }

    static func findByte(_ s: UnsafeBufferPointer<UInt8>, _ byte: UInt8, from i: Int) -> Int? {
        guard i < s.count, let base = s.baseAddress else { return nil }
        guard let hit = memchr(base + i, Int32(byte), s.count - i) else { return nil }
        return UnsafeRawPointer(hit) - UnsafeRawPointer(base)
    }
}
