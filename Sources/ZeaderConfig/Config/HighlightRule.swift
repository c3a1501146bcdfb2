import Foundation
import ZeaderKit

/// A newsboat `highlight TARGET REGEX FOREGROUND [BACKGROUND [ATTRIBUTE…]]` line: text matching
/// REGEX (case-insensitive, as newsboat's; POSIX's syntax, ``POSIXPattern``) is drawn in those colours in the feed list
/// (`feedlist`), the item list (`articlelist`), the article (`article`) or all three (`all`).
///
/// ```swift
/// let rule = try HighlightRule.parse(["articlelist", "swift|linux", "yellow", "default", "bold"]).get()
/// ```
public struct HighlightRule: Equatable, Sendable {
    public enum Target: String, Sendable, CaseIterable { case all, feedlist, articlelist, article }

    public var target: Target
    public var foreground: Int16
    public var background: Int16
    public var attributes: [String]
    package let matcher: RegexMatcher

    public var pattern: String { matcher.pattern }

    static func parse(_ words: [String]) -> Result<HighlightRule, ReaderConfig.TokenizeError> {
        guard words.count >= 3 else {
            return .failure(.init(message: "highlight needs a target, a regular expression and a colour"))
        }
        guard let target = Target(rawValue: words[0]) else {
            return .failure(
                .init(
                    message:
                        "unknown highlight target '\(words[0])' (one of: \(Target.allCases.map(\.rawValue).joined(separator: ", ")))"
                ))
        }
        let regex: NSRegularExpression
        do {
            regex = try NSRegularExpression(pattern: POSIXPattern.icu(words[1]), options: [.caseInsensitive])
        } catch {
            return .failure(.init(message: "highlight's regular expression '\(words[1])' does not compile"))
        }
        // The colours and attributes as a color line has them (the background defaults to the terminal's).
        let colorWords = [words[2], words.count > 3 ? words[3] : "default"] + words.dropFirst(4)
        switch ColorRule.parse(["article"] + colorWords) {
        case .failure(let error): return .failure(error)
        case .success(let colors):
            return .success(
                HighlightRule(
                    target: target, foreground: colors.foreground, background: colors.background,
                    attributes: colors.attributes, matcher: RegexMatcher(pattern: words[1], regex: regex)))
        }
    }

    /// Whether the rule colours the view `target` names (`all` colours every view).
    package func applies(to view: Target) -> Bool { target == .all || target == view }
}

/// A compiled regular expression, shared by the rules' copies.
package final class RegexMatcher: Sendable, Equatable {
    let pattern: String
    package let regex: NSRegularExpression

    init(pattern: String, regex: NSRegularExpression) {
        self.pattern = pattern
        self.regex = regex
    }

    package static func == (lhs: RegexMatcher, rhs: RegexMatcher) -> Bool { lhs.pattern == rhs.pattern }
}
