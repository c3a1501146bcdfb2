import Foundation

// The words of newsboat filter errors (``NewsboatFilterError``), beside Messages.swift.

extension NewsboatFilterError: CustomStringConvertible {
    /// One line naming what is wrong and where.
    ///
    /// ```swift
    /// NewsboatFilterError.unknownAttribute("titel", position: 0).description
    /// // "newsboat filter: unknown attribute 'titel' at character 1"
    /// ```
    public var description: String {
        "newsboat filter: " + detail
    }

    var detail: String {
        switch self {
        case .syntax(let position, let expected, let found):
            return "expected \(expected) at character \(position + 1), found \(found)"
        case .unterminatedString(let position):
            return "the string starting at character \(position + 1) has no closing quote"
        case .numberOutOfRange(let number, let position):
            return "the number \(number) at character \(position + 1) is too large"
        case .betweenNeedsRange(let attribute, let position):
            return "'\(attribute) between' at character \(position + 1) needs a range such as 0:7"
        case .rangeNeedsBetween(let attribute, let position):
            return "the range after '\(attribute)' at character \(position + 1) goes with between (\(attribute) between 0:7)"
        case .unknownAttribute(let attribute, let position):
            return "unknown attribute '\(attribute)' at character \(position + 1)"
        case .articleAttributeInFeedList(let attribute, let position):
            return
                "'\(attribute)' at character \(position + 1) is an article's attribute; the feed list filters by feedtitle, rssurl, feedlink, tags, unread_count or total_count"
        case .noEquivalent(let attribute, .listPosition):
            return "newsboat's '\(attribute)' (a place in a list on screen) has no equivalent in Zeader"
        case .noEquivalent(let attribute, .notStored):
            return "newsboat's '\(attribute)' has no equivalent in Zeader (it does not keep that value of a feed)"
        case .operatorNotApplicable(let attribute, let op, let expected):
            return "'\(op)' does not apply to \(attribute): use \(expected)"
        case .invalidValue(let attribute, let value, let expected):
            return "\(attribute) cannot be \"\(Self.shown(value))\": it takes \(expected)"
        case .invalidRegex(let pattern, let reason):
            return "\"\(Self.shown(pattern))\" is not a regular expression Zeader can use: \(reason)"
        case .tooLong(let limit): return "longer than \(limit) characters"
        case .tooDeep(let limit): return "parentheses nested more than \(limit) deep"
        case .tooManyLevels(let limit): return "'and', 'or' and negations nested more than \(limit) levels deep"
        case .tooManyComparisons(let limit): return "more than \(limit) comparisons"
        case .literalTooLong(let limit): return "a string longer than \(limit) characters"
        }
    }

    /// A value as shown in a message: control characters out, cut at 60 characters.
    static func shown(_ text: String) -> String {
        let clean = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        return clean.count > 60 ? String(clean.prefix(60)) + "…" : clean
    }
}

extension QueryFeedImport.QueryFeedNote: CustomStringConvertible {
    /// One line naming the urls file's line and the query feed.
    ///
    /// ```swift
    /// QueryFeedImport.QueryFeedNote.noName(place: "urls:3").description
    /// // "urls:3: query feed without a name not imported (query:NAME:FILTER)"
    /// ```
    public var description: String {
        switch self {
        case .notImported(let place, let name, let reason):
            return "\(place): query feed \"\(name)\" not imported: \(reason)"
        case .noName(let place):
            return "\(place): query feed without a name not imported (query:NAME:FILTER)"
        case .noFilter(let place, let name):
            return "\(place): query feed \"\(name)\" not imported: it has no filter (query:NAME:FILTER)"
        case .titleTaken(let place, let name):
            return "\(place): query feed \"\(name)\" not imported: a smart feed of that name with another filter exists"
        case .tagsNotKept(let place, let name, let tags):
            return "\(place): query feed \"\(name)\" is a smart feed; its tags (\(tags.joined(separator: ", "))) are not kept"
        }
    }
}
