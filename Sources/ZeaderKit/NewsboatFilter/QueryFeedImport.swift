import Feeds
import Foundation
import ObjectGraph

/// newsboat's query feeds (`"query:NAME:FILTER" [TAG…]` lines of a `urls` file) made smart
/// feeds: the title is the line's NAME, the predicate its filter as written (read as
/// newsboat's language by ``ZeaderModel/itemPredicate(format:)``, so `age` stays relative to
/// the day it is shown). A line whose filter Zeader cannot translate is reported, never
/// dropped silently; a smart feed of the same title and filter is left as it is, so an
/// import run twice adds it once. Call on `context`'s queue; the caller saves.
///
/// ```swift
/// let outcome = try QueryFeedImport.add(list.queryFeeds, in: context)
/// outcome.notes.forEach { print($0) }
/// ```
public enum QueryFeedImport {
    /// What importing query feeds did.
    ///
    /// ```swift
    /// print(outcome.added, outcome.notes.map(\.description))
    /// ```
    public struct Outcome: Sendable, Equatable {
        public var added = 0
        /// One per line not imported, or imported with a loss.
        public var notes: [QueryFeedNote] = []
    }

    /// Why a query feed was not imported as written; worded in NewsboatFilterMessages.swift.
    ///
    /// ```swift
    /// QueryFeedImport.QueryFeedNote.noName(place: "urls:3").description
    /// ```
    public enum QueryFeedNote: Sendable, Equatable {
        /// Its filter is neither a predicate over items nor a newsboat filter Zeader translates.
        case notImported(place: String, name: String, reason: String)
        case noName(place: String)
        case noFilter(place: String, name: String)
        case titleTaken(place: String, name: String)
        case tagsNotKept(place: String, name: String, tags: [String])
    }

    /// Adds a smart feed for each query feed (see the type's summary).
    public static func add(_ queries: [SubscriptionImport.QueryFeed], in context: ManagedObjectContext) throws -> Outcome {
        var outcome = Outcome()
        for query in queries {
            let name = HTMLText.sanitizedLine(query.name).trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else {
                outcome.notes.append(.noName(place: query.place))
                continue
            }
            guard !query.filter.trimmingCharacters(in: .whitespaces).isEmpty else {
                outcome.notes.append(.noFilter(place: query.place, name: name))
                continue
            }
            if let problem = NewsboatFilter.problem(in: query.filter) {
                outcome.notes.append(.notImported(place: query.place, name: name, reason: problem))
                continue
            }
            if let existing = try SmartFeed.findFirst(byAttribute: "title", value: .string(name), in: context) {
                if existing.predicateFormat != query.filter { outcome.notes.append(.titleTaken(place: query.place, name: name)) }
                continue
            }
            try SmartFeeds.add(title: name, predicate: query.filter, in: context)
            outcome.added += 1
            if !query.tags.isEmpty { outcome.notes.append(.tagsNotKept(place: query.place, name: name, tags: query.tags)) }
        }
        return outcome
    }
}
