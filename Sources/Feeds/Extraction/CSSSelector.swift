import Foundation

/// A CSS selector list of the kind sites' article rules are written in (`article .body`,
/// `div#content > p, figure`): type and universal selectors, `#id`, `.class`, attribute
/// selectors (`[a]`, `=`, `~=`, `|=`, `^=`, `$=`, `*=`, with an `i` flag), and the
/// descendant, child (`>`), next-sibling (`+`) and later-sibling (`~`) combinators. Pseudo-classes
/// are refused with the reason, never silently ignored.
///
/// Matching visits the page once in document order, whatever its nesting and the selector's
/// combinators (no backtracking), so a hostile page costs the number of its elements times
/// the selector's compounds.
///
/// ```swift
/// let selector = try CSSSelector("div.article-body > p, figure")
/// ```
public struct CSSSelector: Sendable, Hashable, CustomStringConvertible {
    /// Why a selector could not be read: what, and where (1-based character).
    ///
    /// ```swift
    /// do { _ = try CSSSelector("p:hover") } catch { print(error) }   // pseudo-classes (":hover") …
    /// ```
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var position: Int
        public var description: String { "\(message) at character \(position)" }
    }

    /// The most characters and compounds a selector may have: rules come from a config, but
    /// they run against hostile pages.
    public static let maxLength = 1_000
    public static let maxCompounds = 32

    enum Combinator: Hashable, Sendable { case descendant, child, nextSibling, laterSibling }

    struct AttributeTest: Hashable, Sendable {
        enum Operation: Hashable, Sendable { case exists, equals, includes, dashMatch, prefix, suffix, substring }
        var name: String
        var operation: Operation
        var value: String
        var ignoresCase: Bool

        func matches(_ actual: String?) -> Bool {
            guard let actual else { return false }
            if operation == .exists { return true }
            let have = ignoresCase ? actual.lowercased() : actual
            let want = ignoresCase ? value.lowercased() : value
            switch operation {
            case .exists: return true
            case .equals: return have == want
            case .includes: return !want.isEmpty && have.split(whereSeparator: \.isWhitespace).contains { $0 == want }
            case .dashMatch: return have == want || have.hasPrefix(want + "-")
            case .prefix: return !want.isEmpty && have.hasPrefix(want)
            case .suffix: return !want.isEmpty && have.hasSuffix(want)
            case .substring: return !want.isEmpty && have.contains(want)
            }
        }
    }

    /// One compound: a tag name (nil: any) and the tests on the element.
    struct Compound: Hashable, Sendable {
        var tag: String?
        var id: String?
        var classes: [String] = []
        var attributes: [AttributeTest] = []
    }

    /// A complex selector: compounds from left to right, `combinators[i]` joining compound
    /// `i` to compound `i + 1`.
    struct Complex: Hashable, Sendable {
        var compounds: [Compound]
        var combinators: [Combinator]
    }

    let complexes: [Complex]
    /// The text the selector was read from.
    public let description: String

    /// Reads `text`; throws ``ParseError`` for anything outside the supported grammar.
    ///
    /// ```swift
    /// let selector = try CSSSelector("main article, .post-content")
    /// ```
    public init(_ text: String) throws(ParseError) {
        guard text.count <= Self.maxLength else {
            throw ParseError(message: "a selector longer than \(Self.maxLength) characters", position: Self.maxLength + 1)
        }
        var parser = Parser(Array(text.unicodeScalars))
        complexes = try parser.selectorList()
        guard complexes.reduce(0, { $0 + $1.compounds.count }) <= Self.maxCompounds else {
            throw ParseError(message: "more than \(Self.maxCompounds) compound selectors", position: 1)
        }
        description = text.trimmingCharacters(in: .whitespaces)
    }

    // MARK: - Matching

    /// The outermost elements under `root` that the selector matches, in document order
    /// (the selector is matched against the whole page: `html body article` works).
    func outermostMatches(in dom: ArticleDOM, under root: Int) -> [Int] {
        var top = root
        while dom.nodes[top].parent >= 0 { top = dom.nodes[top].parent }
        let order = ([top] + dom.descendants(of: top)).filter { !dom.nodes[$0].isText }
        var matched = Set<Int>()
        for complex in complexes { matched.formUnion(matches(of: complex, in: dom, order: order)) }
        return order.filter { node in
            guard matched.contains(node), node != root else { return false }
            var ancestor = dom.nodes[node].parent
            while ancestor >= 0 && ancestor != root {
                if matched.contains(ancestor) { return false }
                ancestor = dom.nodes[ancestor].parent
            }
            return ancestor == root
        }
    }

    /// The elements of `order` (preorder, so parents and earlier siblings come first) that
    /// `complex` matches. For each element and compound `j`: whether the selector's first `j + 1`
    /// compounds match ending at it (`m`), at one of its ancestors (`d`), or at one of its
    /// earlier element siblings (`s`) — each read from its parent's or previous sibling's.
    private func matches(of complex: Complex, in dom: ArticleDOM, order: [Int]) -> [Int] {
        let k = complex.compounds.count
        // Flat tables, `node * k + j`; a missing parent or sibling reads as no match.
        var m = [Bool](repeating: false, count: dom.nodes.count * k)
        var d = m
        var s = m
        var result: [Int] = []
        for node in order {
            let parent = dom.nodes[node].parent
            let previous = previousElement(of: node, in: dom)
            for j in 0..<k {
                let parentM = parent >= 0 && m[parent * k + j]
                d[node * k + j] = parentM || (parent >= 0 && d[parent * k + j])
                let previousM = previous >= 0 && m[previous * k + j]
                s[node * k + j] = previousM || (previous >= 0 && s[previous * k + j])
            }
            for j in 0..<k where Self.matches(complex.compounds[j], node, in: dom) {
                guard j > 0 else {
                    m[node * k] = true
                    continue
                }
                let i = j - 1
                switch complex.combinators[i] {
                case .descendant: m[node * k + j] = d[node * k + i]
                case .child: m[node * k + j] = parent >= 0 && m[parent * k + i]
                case .nextSibling: m[node * k + j] = previous >= 0 && m[previous * k + i]
                case .laterSibling: m[node * k + j] = s[node * k + i]
                }
            }
            if m[node * k + k - 1] { result.append(node) }
        }
        return result
    }

    /// The element before `node` among its siblings, -1 when there is none.
    private func previousElement(of node: Int, in dom: ArticleDOM) -> Int {
        var previous = dom.nodes[node].previous
        while previous >= 0 && dom.nodes[previous].isText { previous = dom.nodes[previous].previous }
        return previous
    }

    private static func matches(_ compound: Compound, _ node: Int, in dom: ArticleDOM) -> Bool {
        if let tag = compound.tag, dom.nodes[node].name != tag { return false }
        if let id = compound.id, dom.attribute("id", of: node) != id { return false }
        if !compound.classes.isEmpty {
            let classes = (dom.attribute("class", of: node) ?? "").split(whereSeparator: \.isWhitespace)
            for name in compound.classes where !classes.contains(where: { $0 == name }) { return false }
        }
        return compound.attributes.allSatisfy { $0.matches(dom.attribute($0.name, of: node)) }
    }

    // MARK: - Reading

    private struct Parser {
        let scalars: [Unicode.Scalar]
        var index = 0

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        func fail(_ message: String) -> ParseError { ParseError(message: message, position: index + 1) }

        mutating func skipSpaces() -> Bool {
            let start = index
            while let c = current, c.properties.isWhitespace { index += 1 }
            return index > start
        }

        mutating func selectorList() throws(ParseError) -> [Complex] {
            var list: [Complex] = []
            repeat {
                if current == "," { index += 1 }
                _ = skipSpaces()
                list.append(try complex())
                _ = skipSpaces()
            } while current == ","
            if let c = current { throw fail("unexpected '\(c)'") }
            guard !list.isEmpty else { throw fail("an empty selector") }
            return list
        }

        mutating func complex() throws(ParseError) -> Complex {
            var compounds = [try compound()]
            var combinators: [Combinator] = []
            while true {
                let spaced = skipSpaces()
                guard let c = current, c != "," else { break }
                switch c {
                case ">":
                    combinators.append(.child)
                    index += 1
                case "+":
                    combinators.append(.nextSibling)
                    index += 1
                case "~":
                    combinators.append(.laterSibling)
                    index += 1
                default:
                    guard spaced else { throw fail("unexpected '\(c)'") }
                    combinators.append(.descendant)
                }
                _ = skipSpaces()
                compounds.append(try compound())
            }
            return Complex(compounds: compounds, combinators: combinators)
        }

        mutating func compound() throws(ParseError) -> Compound {
            var compound = Compound()
            let start = index
            if current == "*" {
                index += 1
            } else if let c = current, isNameStart(c) {
                compound.tag = try name().lowercased()
            }
            loop: while let c = current {
                switch c {
                case "#":
                    index += 1
                    compound.id = try name()
                case ".":
                    index += 1
                    compound.classes.append(try name())
                case "[":
                    index += 1
                    compound.attributes.append(try attribute())
                case ":":
                    let position = index
                    index += 1
                    if current == ":" { index += 1 }
                    let pseudo = (try? name()) ?? ""
                    index = position
                    throw fail("pseudo-classes (\":\(pseudo)\") are not supported")
                default:
                    break loop
                }
            }
            guard index > start else {
                if let c = current { throw fail("expected a selector, found '\(c)'") }
                throw fail("expected a selector")
            }
            return compound
        }

        mutating func attribute() throws(ParseError) -> AttributeTest {
            _ = skipSpaces()
            let attributeName = try name().lowercased()
            _ = skipSpaces()
            var test = AttributeTest(name: attributeName, operation: .exists, value: "", ignoresCase: false)
            if current == "]" {
                index += 1
                return test
            }
            let operations: [Unicode.Scalar: AttributeTest.Operation] = [
                "~": .includes, "|": .dashMatch, "^": .prefix, "$": .suffix, "*": .substring,
            ]
            if current == "=" {
                test.operation = .equals
                index += 1
            } else if let c = current, let operation = operations[c], index + 1 < scalars.count, scalars[index + 1] == "=" {
                test.operation = operation
                index += 2
            } else {
                throw fail("expected '=', '~=', '|=', '^=', '$=', '*=' or ']' in an attribute selector")
            }
            _ = skipSpaces()
            if current == "\"" || current == "'" {
                test.value = try quoted()
            } else {
                test.value = try name()
            }
            _ = skipSpaces()
            if current == "i" || current == "I" {
                test.ignoresCase = true
                index += 1
                _ = skipSpaces()
            }
            guard current == "]" else { throw fail("expected ']' to close the attribute selector") }
            index += 1
            return test
        }

        mutating func quoted() throws(ParseError) -> String {
            let quote = current!
            index += 1
            var text = ""
            while let c = current, c != quote {
                if c == "\\" {
                    index += 1
                    guard let escaped = current else { break }
                    text.unicodeScalars.append(escaped)
                } else {
                    text.unicodeScalars.append(c)
                }
                index += 1
            }
            guard current == quote else { throw fail("an unclosed string") }
            index += 1
            return text
        }

        func isNameStart(_ c: Unicode.Scalar) -> Bool {
            c.properties.isAlphabetic || c == "_" || c == "-" || c.value >= 0x80 || c == "\\"
        }

        mutating func name() throws(ParseError) -> String {
            var text = ""
            while let c = current, isNameStart(c) || c.properties.numericType != nil || ("0"..."9").contains(c) {
                if c == "\\" {
                    index += 1
                    guard let escaped = current else { break }
                    text.unicodeScalars.append(escaped)
                } else {
                    text.unicodeScalars.append(c)
                }
                index += 1
            }
            guard !text.isEmpty else {
                if let c = current { throw fail("expected a name, found '\(c)'") }
                throw fail("expected a name")
            }
            return text
        }
    }
}
