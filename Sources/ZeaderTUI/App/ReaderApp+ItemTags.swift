import ObjectGraph
import ZeaderKit

/// The answer of edit-tags (`T`): the item's own tags, one undo step (``ItemTagging``).
extension ReaderApp {
    /// The edit-tags prompt's ENTER.
    func setItemTags(_ text: String, on id: ObjectID) {
        do {
            let tags = try ItemTagging.set(text, on: id, in: model.context)
            if state.article?.itemID == id { state.article?.tags = FeedTags.normalized(tags) }
            state.say(.reader(.tagsSet(tags)))
        } catch {
            state.say(.failed("\(error)"))
        }
    }
}
