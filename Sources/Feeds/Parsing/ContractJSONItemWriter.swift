/// `zeader parse`'s JSON as a consumer of parsed items: encodes each ``ParsedItem`` the
/// handler finishes into `json` (each preceded by a comma), and with a `stream`, hands
/// them on in pieces of about ``streamedBytes`` as soon as the feed's head is settled, so
/// a large feed's first items are written while the rest is still being parsed.
///
/// ```swift
/// let writer = ContractJSONItemWriter(stream: stream, itemsToSkip: 0)
/// handler.itemSink = writer
/// ```
final class ContractJSONItemWriter: FeedItemSink {
    /// Bytes of items gathered before they are handed to `stream`.
    static let streamedBytes = 1 << 20

    /// Items not yet handed to `stream` (all of them without one), each as a comma then
    /// its JSON object.
    var json: [UInt8] = []
    private let stream: FeedParser.ContractJSONStream?
    /// Items not to report: the first items of a document parsed again after some of its
    /// items were already written to `stream`.
    private var itemsToSkip: Int
    /// Items in `json` not yet handed to `stream`.
    private var itemsPending = 0

    /// `expectedBytes`: about how much JSON the items will make, when known (reserved once
    /// so the buffer is never copied to grow; see ``ParseThroughputTuning/prefault(_:bytes:)``).
    init(stream: FeedParser.ContractJSONStream?, itemsToSkip: Int = 0, expectedBytes: Int = 0) {
        self.stream = stream
        self.itemsToSkip = itemsToSkip
        if stream != nil {
            // Written out every `streamedBytes`: a small buffer, used over and over.
            json.reserveCapacity(Self.streamedBytes + 256 * 1024)
        } else if expectedBytes > 0 {
            json.reserveCapacity(expectedBytes + expectedBytes / 4 + 4096)
            ParseThroughputTuning.prefault(&json, bytes: expectedBytes)
        }
    }

    /// The contract JSON has neither.
    var wantsEnclosuresAndCategories: Bool { false }

    /// The content goes from the captured bytes to the JSON (validated as it is escaped).
    var takesContentAsUTF8: Bool { true }

    func receive(_ item: ParsedItem, contentUTF8: UnsafeBufferPointer<UInt8>?, from handler: FeedXMLHandler) {
        if itemsToSkip > 0 {
            itemsToSkip -= 1
            return
        }
        json.append(UInt8(ascii: ","))
        ContractJSONWriter.item(item, contentUTF8: contentUTF8, to: &json)
        itemsPending += 1
        if stream != nil && json.count >= Self.streamedBytes { writeToStream(handler) }
    }

    /// Hands the items gathered so far to `stream`, once the head is settled.
    private func writeToStream(_ handler: FeedXMLHandler) {
        guard let stream, !handler.sawInvalidCharacter else { return }
        if !stream.headWritten {
            guard let head = handler.settledHead() else { return }
            stream.write(head: head.contractJSONHead())
        }
        stream.write(items: &json, count: itemsPending)
        itemsPending = 0
    }
}
