import Foundation
import ObjectGraph
import ZeaderKit

/// The podcast queue in the reader (newsboat's `e`; model version 3).
extension ReaderModel {
    /// The item's enclosure, nil when it has none or is gone.
    ///
    /// ```swift
    /// model.enclosure(id)?.headerLine   // "Enclosure: https://… (audio/mpeg, 12.3 MB)"
    /// ```
    public func enclosure(_ id: ObjectID) -> EnclosureSummary? {
        item(id).flatMap(EnclosureSummary.init)
    }

    /// Queues the item's enclosure for `zeader podcasts download`, as one undoable step;
    /// returns false when it was queued already. Throws for an item without an enclosure.
    ///
    /// ```swift
    /// if try model.enqueue(id) { … }
    /// ```
    public func enqueue(_ id: ObjectID) throws -> Bool {
        try ItemMarking.undoable("Queue Enclosure", in: context) {
            try PodcastQueue.enqueue([id], in: context) > 0
        }
    }

    /// The podcast queue, oldest first (the reader's podcast view lists it).
    ///
    /// ```swift
    /// for episode in try model.podcastEpisodes() { print(episode.title ?? episode.id) }
    /// ```
    public func podcastEpisodes() throws -> [PodcastEpisode] {
        try PodcastQueue.episodes(in: context)
    }

    /// Takes the items' enclosures out of the queue, as one undoable step; returns how many left it.
    ///
    /// ```swift
    /// try model.dequeue([episode.objectID])   // z puts it back
    /// ```
    @discardableResult
    public func dequeue(_ ids: [ObjectID]) throws -> Int {
        try ItemMarking.undoable("Remove from Queue", in: context) {
            try PodcastQueue.dequeue(ids, in: context)
        }
    }
}
