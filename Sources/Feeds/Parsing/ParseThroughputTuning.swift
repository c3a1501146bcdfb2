import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Every speed-up of the XML parser that is about throughput, not about what a feed
/// means, in one place: each one can go without changing a byte of any result (the tests
/// that compare a split parse with a whole one, and the streamed JSON with the string
/// pipeline, hold either way). The figures behind each are in docs/PERFORMANCE.md
/// ("Tuning in the code"), from the benchmark feed of `zeader-bench parse`.
///
/// - **Two-thread splitting** (``FeedParser/parseInHalves(_:baseURL:itemsAsJSON:outsideAfterMiddle:stream:)``):
///   a document of at least ``FeedParser/Limits/parallelParsingThreshold`` bytes is cut
///   at an item boundary (``FeedXMLSplitter``) and the halves parsed on two cores, so a
///   large document waits on one core's share of the work. With `zeader parse`, the first
///   half's items are written while the second half is still being parsed.
/// - **libxml2 push chunks** (``libxmlChunkSize``): libxml2's push parser hands text
///   and CDATA over in blocks where its pull parser reads a character at a time; 1 MiB
///   chunks (a usual feed in one) let libxml2 copy and shift its input least.
/// - **Thread heap reservation** (``reserveHeap(bytes:)``): glibc grows a non-main
///   thread's heap one page-sized `mprotect` at a time, each under the process-wide mmap
///   lock, so the two parsing threads would wait on each other.
/// - **Main heap growth in large steps** (``growHeapInLargeSteps()``, for one-shot
///   processes such as `zeader parse`): a few `brk` calls, and few waits between the two
///   threads, instead of hundreds.
/// - **Prefaulting the JSON buffer** (``prefault(_:bytes:)``): one `madvise` maps the
///   output buffer instead of one page fault per 4 KiB as it fills.
public enum ParseThroughputTuning {
    /// Bytes handed to libxml2 per `xmlParseChunk` call (see above).
    static let libxmlChunkSize = 1024 * 1024

    /// Lets glibc grow the main heap in 64 MiB steps (`mallopt(M_TOP_PAD)`): for a
    /// one-shot process that keeps what it allocates, such as `zeader parse`. Pages are
    /// still only touched as they are used. Nothing happens without glibc.
    ///
    /// ```swift
    /// ParseThroughputTuning.growHeapInLargeSteps()
    /// let problems = try FeedParser.writeContractJSON(data: data) { chunk in write(chunk) }
    /// ```
    public static func growHeapInLargeSteps() {
        #if canImport(Glibc)
            // `<malloc.h>` is not part of the Glibc module, so `mallopt` is looked up by name.
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            let topPad: Int32 = -2  // M_TOP_PAD in <malloc.h>
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            _ = unsafeBitCast(symbol, to: MallOpt.self)(topPad, 64 << 20)
        #endif
    }

    /// Grows the calling thread's malloc heap once, in large steps, before a half is
    /// parsed: allocating and freeing blocks just under the mmap threshold grows it in
    /// 120 KiB steps, and glibc keeps the protection when the memory is freed.
    static func reserveHeap(bytes: Int) {
        #if os(Linux)
            let blockSize = 120 * 1024
            let count = min(bytes / blockSize, 512)
            var blocks: [UnsafeMutableRawPointer?] = []
            blocks.reserveCapacity(count)
            for _ in 0..<count { blocks.append(malloc(blockSize)) }
            for block in blocks.reversed() { free(block) }
        #endif
    }

    /// Maps the first `bytes` of a large buffer's capacity in one call
    /// (`MADV_POPULATE_WRITE`) instead of one page fault per 4 KiB as it fills.
    static func prefault(_ buffer: inout [UInt8], bytes: Int) {
        #if os(Linux)
            let page = 4096
            guard bytes >= 1 << 20 else { return }
            let length = min(bytes, buffer.capacity - buffer.count)
            buffer.withUnsafeMutableBufferPointer { elements in
                guard let base = elements.baseAddress else { return }
                let start = (Int(bitPattern: base) + page - 1) & ~(page - 1)
                let end = (Int(bitPattern: base) + length) & ~(page - 1)
                guard end > start, let pointer = UnsafeMutableRawPointer(bitPattern: start) else { return }
                _ = madvise(pointer, end - start, 23)  // MADV_POPULATE_WRITE (Linux 5.14)
            }
        #endif
    }
}

extension FeedParser {
    /// Parses `document` as two halves on two threads (see ``FeedXMLSplitter``); `nil` when
    /// it cannot be cut or a half does not parse as a feed (the caller then parses it whole).
    ///
    /// With `stream`, the first half is parsed on the calling thread, which writes its
    /// items to the stream as they come once the feed's head is settled (see
    /// ``ContractJSONItemWriter``); the second half is parsed on another thread meanwhile.
    static func parseInHalves(
        _ document: UnsafeBufferPointer<UInt8>, baseURL: String?, itemsAsJSON: Bool, outsideAfterMiddle: Int? = nil,
        stream: ContractJSONStream? = nil
    ) -> XMLResult? {
        guard ProcessInfo.processInfo.activeProcessorCount > 1,
            let cut = FeedXMLSplitter.split(document, outsideAfterMiddle: outsideAfterMiddle)
        else { return nil }
        let halves = UnsafeMutableBufferPointer<XMLResult?>.allocate(capacity: 2)
        halves.initialize(repeating: nil)
        defer { halves.deinitialize().deallocate() }
        let shared = HalvesWork(document: document, halves: halves)
        @Sendable func parse(half: Int, stream: ContractJSONStream?) {
            let document = shared.document
            let halves = shared.halves
            // Items kept as values allocate as much as the document; written as JSON, only
            // small strings per item plus one output buffer (mapped on its own).
            if !itemsAsJSON { ParseThroughputTuning.reserveHeap(bytes: document.count / 2) }
            let segments =
                half == 0
                ? [UnsafeBufferPointer(rebasing: document[..<cut.middle])]
                : [
                    UnsafeBufferPointer(rebasing: document[..<cut.firstItem]),
                    UnsafeBufferPointer(rebasing: document[cut.middle...]),
                ]
            let writer =
                itemsAsJSON
                ? ContractJSONItemWriter(stream: stream, expectedBytes: segments.reduce(0) { $0 + $1.count }) : nil
            let handler = FeedXMLParser.run(segments, baseURL: baseURL, truncated: half == 0, sink: writer)
            halves[half] = handler.makeFeed().map {
                XMLResult(feed: $0, itemsJSON: writer.map { [$0.json] } ?? [], sawInvalidCharacter: handler.sawInvalidCharacter)
            }
        }
        if let stream {
            let secondHalf = DispatchGroup()
            DispatchQueue.global().async(group: secondHalf) { parse(half: 1, stream: nil) }
            parse(half: 0, stream: stream)
            secondHalf.wait()
            if stream.headWritten, let first = halves[0] {
                // Items are out already: no going back to a parse in one piece. Both halves
                // read the same prolog (root, channel), so they agree on the format.
                var result = first
                if let second = halves[1] {
                    result.feed.warnings += second.feed.warnings
                    result.feed.problems += second.feed.problems
                    result.itemsJSON += second.itemsJSON
                    result.sawInvalidCharacter = result.sawInvalidCharacter || second.sawInvalidCharacter
                }
                return result
            }
        } else {
            DispatchQueue.concurrentPerform(iterations: 2) { half in parse(half: half, stream: nil) }
        }
        guard var result = halves[0], let second = halves[1], result.feed.format == second.feed.format else { return nil }
        result.feed.title = result.feed.title ?? second.feed.title
        result.feed.link = result.feed.link ?? second.feed.link
        result.feed.items += second.feed.items
        result.feed.warnings += second.feed.warnings
        result.feed.problems += second.feed.problems
        result.itemsJSON += second.itemsJSON
        result.sawInvalidCharacter = result.sawInvalidCharacter || second.sawInvalidCharacter
        return result
    }

    /// What the two threads of ``parseInHalves(_:baseURL:)`` share.
    // `document` is only read, and stays valid until `concurrentPerform` returns; each thread
    // writes only its own slot of `halves`, and the slots are read after `concurrentPerform`
    // has returned (it waits for both).
    // Safe to share across the two threads: shared reads, and writes to disjoint slots only.
    private struct HalvesWork: @unchecked Sendable {
        let document: UnsafeBufferPointer<UInt8>
        let halves: UnsafeMutableBufferPointer<XMLResult?>
    }
}
