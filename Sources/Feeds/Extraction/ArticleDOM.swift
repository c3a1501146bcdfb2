import Foundation

/// A web page's element tree as the extractor edits it: nodes in one array, linked by index.
///
/// Indices instead of objects keep every walk iterative (a page nested ten thousand deep
/// cannot overflow the stack, not even when the tree is freed) and make a copy of the whole
/// page one array copy, which the extractor needs to retry with looser rules.
struct ArticleDOM {
    /// One attribute, its name lower-cased.
    struct Attribute: Equatable {
        var name: String
        var value: String
    }

    /// An element or a text node; `-1` links to nothing.
    struct Node {
        /// The lower-cased tag name; empty for a text node.
        var name: String
        /// A text node's text (entities decoded).
        var text = ""
        var attributes: [Attribute] = []
        var parent = -1
        var firstChild = -1
        var lastChild = -1
        var next = -1
        var previous = -1

        var isText: Bool { name.isEmpty }
    }

    var nodes: [Node] = []

    // MARK: - Building and editing

    /// A new element, not yet in the tree.
    mutating func createElement(_ name: String, attributes: [Attribute] = []) -> Int {
        nodes.append(Node(name: name, attributes: attributes))
        return nodes.count - 1
    }

    /// A new text node, not yet in the tree.
    mutating func createText(_ text: String) -> Int {
        nodes.append(Node(name: "", text: text))
        return nodes.count - 1
    }

    /// Takes `node` out of the tree (with its subtree); it can be inserted elsewhere.
    mutating func detach(_ node: Int) {
        let parent = nodes[node].parent
        guard parent >= 0 else { return }
        let previous = nodes[node].previous
        let next = nodes[node].next
        if previous >= 0 { nodes[previous].next = next } else { nodes[parent].firstChild = next }
        if next >= 0 { nodes[next].previous = previous } else { nodes[parent].lastChild = previous }
        nodes[node].parent = -1
        nodes[node].next = -1
        nodes[node].previous = -1
    }

    /// Moves `node` to the end of `parent`'s children.
    mutating func append(_ node: Int, to parent: Int) {
        insert(node, into: parent, before: -1)
    }

    /// Moves `node` into `parent` just before `reference` (at the end when it is `-1`).
    mutating func insert(_ node: Int, into parent: Int, before reference: Int) {
        detach(node)
        nodes[node].parent = parent
        if reference < 0 {
            let last = nodes[parent].lastChild
            nodes[node].previous = last
            if last >= 0 { nodes[last].next = node } else { nodes[parent].firstChild = node }
            nodes[parent].lastChild = node
        } else {
            let previous = nodes[reference].previous
            nodes[node].previous = previous
            nodes[node].next = reference
            nodes[reference].previous = node
            if previous >= 0 { nodes[previous].next = node } else { nodes[parent].firstChild = node }
        }
    }

    /// Puts `replacement` where `node` is, and takes `node` out.
    mutating func replace(_ node: Int, with replacement: Int) {
        let parent = nodes[node].parent
        guard parent >= 0, node != replacement else { return }
        detach(replacement)
        insert(replacement, into: parent, before: node)
        detach(node)
    }

    // MARK: - Attributes

    func attribute(_ name: String, of node: Int) -> String? {
        nodes[node].attributes.first { $0.name == name }?.value
    }

    mutating func setAttribute(_ name: String, _ value: String, of node: Int) {
        if let index = nodes[node].attributes.firstIndex(where: { $0.name == name }) {
            nodes[node].attributes[index].value = value
        } else {
            nodes[node].attributes.append(Attribute(name: name, value: value))
        }
    }

    mutating func removeAttribute(_ name: String, of node: Int) {
        nodes[node].attributes.removeAll { $0.name == name }
    }

    /// The `class` and `id` attributes, the way the scoring rules look at them.
    func classAndID(of node: Int) -> String {
        (attribute("class", of: node) ?? "") + " " + (attribute("id", of: node) ?? "")
    }

    // MARK: - Walking

    /// The element children of `node`.
    func elementChildren(of node: Int) -> [Int] {
        var result: [Int] = []
        var child = nodes[node].firstChild
        while child >= 0 {
            if !nodes[child].isText { result.append(child) }
            child = nodes[child].next
        }
        return result
    }

    /// All child nodes of `node`, text included.
    func childNodes(of node: Int) -> [Int] {
        var result: [Int] = []
        var child = nodes[node].firstChild
        while child >= 0 {
            result.append(child)
            child = nodes[child].next
        }
        return result
    }

    func nextElementSibling(of node: Int) -> Int {
        var sibling = nodes[node].next
        while sibling >= 0 && nodes[sibling].isText { sibling = nodes[sibling].next }
        return sibling
    }

    func firstElementChild(of node: Int) -> Int {
        var child = nodes[node].firstChild
        while child >= 0 && nodes[child].isText { child = nodes[child].next }
        return child
    }

    /// The next element in document order after `node` (skipping its subtree when
    /// `skippingChildren`), or `-1`.
    func nextElement(after node: Int, skippingChildren: Bool = false) -> Int {
        if !skippingChildren {
            let child = firstElementChild(of: node)
            if child >= 0 { return child }
        }
        var current = node
        while current >= 0 {
            let sibling = nextElementSibling(of: current)
            if sibling >= 0 { return sibling }
            current = nodes[current].parent
        }
        return -1
    }

    /// Every node below `node`, in document order (`node` itself excluded).
    func descendants(of node: Int) -> [Int] {
        var result: [Int] = []
        var current = nodes[node].firstChild
        while current >= 0 {
            result.append(current)
            if nodes[current].firstChild >= 0 {
                current = nodes[current].firstChild
                continue
            }
            while current >= 0 && current != node && nodes[current].next < 0 { current = nodes[current].parent }
            if current < 0 || current == node { break }
            current = nodes[current].next
        }
        return result
    }

    /// The elements below `node` whose tag is one of `names`, in document order.
    func elements(in node: Int, named names: Set<String>) -> [Int] {
        descendants(of: node).filter { names.contains(nodes[$0].name) }
    }

    func ancestors(of node: Int, maxDepth: Int = 0) -> [Int] {
        var result: [Int] = []
        var current = nodes[node].parent
        while current >= 0 {
            result.append(current)
            if maxDepth > 0 && result.count == maxDepth { break }
            current = nodes[current].parent
        }
        return result
    }

    func contains(_ ancestor: Int, _ node: Int) -> Bool {
        var current = node
        while current >= 0 {
            if current == ancestor { return true }
            current = nodes[current].parent
        }
        return false
    }

    // MARK: - Text

    /// The concatenated text below `node`, as the DOM's `textContent`.
    func textContent(of node: Int) -> String {
        if nodes[node].isText { return nodes[node].text }
        var text = ""
        for descendant in descendants(of: node) where nodes[descendant].isText {
            text += nodes[descendant].text
        }
        return text
    }

    /// The text trimmed, runs of two or more white-space characters made one space when
    /// `normalizingSpaces`.
    func innerText(of node: Int, normalizingSpaces: Bool = true) -> String {
        let trimmed = Self.trimmed(textContent(of: node))
        return normalizingSpaces ? Self.collapsingSpaces(trimmed) : trimmed
    }

    /// The length of ``innerText(of:normalizingSpaces:)`` in UTF-16 code units (the unit the
    /// scoring thresholds are written in), counted without building the text.
    func innerTextLength(of node: Int) -> Int {
        var length = 0
        var pendingSpaces = 0
        var pendingLength = 0
        var started = false
        func count(_ text: String) {
            for scalar in text.unicodeScalars {
                if Self.isSpace(scalar) {
                    pendingSpaces += 1
                    pendingLength = scalar.utf16.count
                    continue
                }
                if started && pendingSpaces > 0 { length += pendingSpaces == 1 ? pendingLength : 1 }
                pendingSpaces = 0
                started = true
                length += scalar.utf16.count
            }
        }
        if nodes[node].isText {
            count(nodes[node].text)
        } else {
            for descendant in descendants(of: node) where nodes[descendant].isText { count(nodes[descendant].text) }
        }
        return length
    }

    /// White space as JavaScript's `\s` and `trim()` see it.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0xA0, 0x1680, 0x2000...0x200A, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000, 0xFEFF: true
        default: false
        }
    }

    /// `text` with each run of two or more white-space characters made one space (a lone
    /// white-space character stays as it is), as JavaScript's `replace(/\s{2,}/g, " ")`.
    static func collapsingSpaces(_ text: String) -> String {
        var text = text
        text.makeContiguousUTF8()
        let collapsed = text.utf8.withContiguousStorageIfAvailable { collapsingSpaces($0) }
        return (collapsed ?? nil) ?? text
    }

    /// The collapsed text, or nil when nothing needs collapsing.
    private static func collapsingSpaces(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var output: [UInt8]? = nil
        var index = 0
        var runStart = -1
        var runCount = 0
        func flushRun(upTo end: Int) {
            guard runStart >= 0 else { return }
            if runCount > 1 {
                if output == nil { output = Array(bytes[0..<runStart]) }
                output!.append(0x20)
            } else if output != nil {
                output!.append(contentsOf: bytes[runStart..<end])
            }
            runStart = -1
            runCount = 0
        }
        while index < bytes.count {
            let length = spaceLength(bytes, at: index)
            if length > 0 {
                if runStart < 0 { runStart = index }
                runCount += 1
                index += length
                continue
            }
            flushRun(upTo: index)
            output?.append(bytes[index])
            index += 1
        }
        flushRun(upTo: index)
        return output.map { String(decoding: $0, as: UTF8.self) }
    }

    /// The UTF-8 length of the white-space character at `index`, or 0 if there is none there.
    static func spaceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let byte = bytes[index]
        if byte < 0x80 { return (byte >= 0x09 && byte <= 0x0D) || byte == 0x20 ? 1 : 0 }
        let remaining = bytes.count - index
        switch byte {
        case 0xC2: return remaining >= 2 && bytes[index + 1] == 0xA0 ? 2 : 0
        case 0xE1: return remaining >= 3 && bytes[index + 1] == 0x9A && bytes[index + 2] == 0x80 ? 3 : 0
        case 0xE2:
            guard remaining >= 3 else { return 0 }
            let second = bytes[index + 1]
            let third = bytes[index + 2]
            if second == 0x80 && (third <= 0x8A || third == 0xA8 || third == 0xA9 || third == 0xAF) { return 3 }
            return second == 0x81 && third == 0x9F ? 3 : 0
        case 0xE3: return remaining >= 3 && bytes[index + 1] == 0x80 && bytes[index + 2] == 0x80 ? 3 : 0
        case 0xEF: return remaining >= 3 && bytes[index + 1] == 0xBB && bytes[index + 2] == 0xBF ? 3 : 0
        default: return 0
        }
    }

    /// `text` without the white space at either end.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isSpace($0) })!
        return String(scalars[first...last])
    }

    static func isBlank(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy(isSpace)
    }
}
