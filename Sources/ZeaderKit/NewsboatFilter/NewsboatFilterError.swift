import Foundation

/// Why a newsboat filter cannot be read or translated; the words are in
/// `Messages/NewsboatFilterMessages.swift`. Positions count Unicode scalars from 0.
///
/// ```swift
/// do { _ = try NewsboatFilter("feedindex < 3").predicate(now: Date()) }
/// catch { print(error) }   // newsboat's 'feedindex' (a feed's place in the list) has no equivalent in Zeader
/// ```
public enum NewsboatFilterError: Error, Sendable, Equatable {
    /// Something else was expected at `position`.
    case syntax(position: Int, expected: String, found: String)
    /// A string opened at `position` is never closed.
    case unterminatedString(position: Int)
    /// A number too large to compare.
    case numberOutOfRange(String, position: Int)
    /// `between` needs a range such as `0:7`.
    case betweenNeedsRange(attribute: String, position: Int)
    /// A range such as `0:7` goes with `between` only.
    case rangeNeedsBetween(attribute: String, position: Int)
    /// An attribute newsboat does not have.
    case unknownAttribute(String, position: Int)
    /// An article's attribute in a filter of the feed list.
    case articleAttributeInFeedList(attribute: String, position: Int)
    /// An attribute newsboat has and Zeader cannot filter on, with why.
    case noEquivalent(attribute: String, reason: NoEquivalentReason)
    /// An operator that does not apply to the attribute (`unread =~ "x"`, `title < 3`).
    case operatorNotApplicable(attribute: String, op: String, expected: String)
    /// A value the attribute cannot take (`unread = "maybe"`, `age = "old"`).
    case invalidValue(attribute: String, value: String, expected: String)
    /// A regular expression ICU cannot compile (or longer than ObjectGraph allows).
    case invalidRegex(pattern: String, reason: String)
    /// The filter passes one of ``NewsboatFilter/Limits``.
    case tooLong(limit: Int)
    case tooDeep(limit: Int)
    /// Levels of `and`, `or` and negation past ObjectGraph's bound, once translated.
    case tooManyLevels(limit: Int)
    case tooManyComparisons(limit: Int)
    case literalTooLong(limit: Int)

    /// The attributes of newsboat that name no stored value of Zeader's.
    ///
    /// ```swift
    /// NewsboatFilterError.noEquivalent(attribute: "feeddate", reason: .notStored)
    /// ```
    public enum NoEquivalentReason: Sendable, Equatable {
        /// A place in a list on screen (`feedindex`, `articleindex`).
        case listPosition
        /// A value of the feed document Zeader does not keep (`description`, `feeddate`).
        case notStored
    }
}
