import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file a download's body goes to, as it arrives: written straight from libcurl's
/// buffer, never held in memory. The file is opened for appending, so a `.part` file left by
/// an interrupted download is continued from its end (the transfer asks for `Range: bytes=N-`);
/// a server that answers with the whole file (200) instead of the rest (206) starts it over,
/// and a 206 whose validators differ from the part's ``DownloadResumeRecord`` is refused
/// (``validatorChanged``) so that the download starts over. Each fresh start records the
/// response's validators beside the part file before its first byte is written.
// The fetching task makes the sink and hands it, inside its CurlTransfer, to CurlMulti's loop
// thread through the multi's locked inbox; from then on only the loop thread touches it
// (libcurl runs the callbacks there) until the transfer's continuation resumes the task,
// which orders the task's reads after the last write.
// Safe to share across threads: one thread at a time uses it, handed over under a lock.
final class DownloadSink: @unchecked Sendable {
    let fileDescriptor: Int32
    /// Bytes in the file before this request: where a `Range` request starts.
    let resumeFrom: Int64
    /// Bytes in the file before the current response's first byte (0 after a restart).
    private(set) var base: Int64 = 0
    /// A 2xx response's body is arriving (a redirect's or an error page's is not written).
    private(set) var isReceiving = false
    /// Body bytes written by this response.
    private(set) var written: Int64 = 0
    /// The whole file's size, when the response told it.
    private(set) var expectedTotal: Int64?
    /// The last status whose body was taken, to report.
    private(set) var status = 0
    /// A 206 answered for another copy of the file than the part's bytes came from.
    private(set) var validatorChanged = false
    private let progress: (@Sendable (DownloadProgress) -> Void)?
    private var lastReported: Int64 = 0
    /// Where the part file is, and the URL asked for: the record written beside it names them.
    private let partFile: URL
    private let requestedURL: URL
    /// The record of the part's bytes, when resuming.
    private let resuming: DownloadResumeRecord?

    /// A sink on an open file; `resumeFrom` is the file's current size, `resuming` the
    /// record of its bytes (nil when it starts empty).
    init(
        fileDescriptor: Int32, resumeFrom: Int64, partFile: URL, requestedURL: URL, resuming: DownloadResumeRecord?,
        progress: (@Sendable (DownloadProgress) -> Void)?
    ) {
        self.fileDescriptor = fileDescriptor
        self.resumeFrom = resumeFrom
        self.partFile = partFile
        self.requestedURL = requestedURL
        self.resuming = resuming
        self.progress = progress
    }

    /// The headers of a 2xx response are in: decide where its body goes and refuse one that
    /// would pass `limit` bytes in all. Returns the error that aborts the transfer, or nil.
    func begin(status: Int, headers: [String: String], limit: Int, url: URL) -> FetchError? {
        self.status = status
        let declared = HTTPHeaderValues.contentLength(headers["content-length"])
        if status == 206 {
            guard let range = Self.contentRange(headers["content-range"]), range.start == resumeFrom else {
                return .transport(url: url, message: "the server sent a byte range that does not continue the partial file")
            }
            let answer = DownloadResumeRecord.response(to: requestedURL, headers: headers)
            if let resuming {
                guard resuming.isContinued(by: answer) else {
                    validatorChanged = true
                    return .transport(url: url, message: "the file changed on the server since the partial download")
                }
            } else if let problem = record(answer, url: url) {
                return problem
            }
            base = resumeFrom
            expectedTotal = range.total ?? declared.map { resumeFrom + $0 }
        } else {
            // The whole file (the server ignores Range, or none was asked for): start over.
            if resumeFrom > 0, ftruncate(fileDescriptor, 0) != 0 {
                return .transport(url: url, message: "cannot restart the partial file: \(String(cString: strerror(errno)))")
            }
            base = 0
            expectedTotal = declared
            if let problem = record(DownloadResumeRecord.response(to: requestedURL, headers: headers), url: url) {
                return problem
            }
        }
        if let total = expectedTotal, total > Int64(limit) { return .tooLarge(url: url, limit: limit) }
        isReceiving = true
        written = 0
        report(force: true)
        return nil
    }

    /// Writes `answer` beside the part file before its bytes arrive: a run cut off from
    /// here on leaves a part that says whose bytes it holds.
    private func record(_ answer: DownloadResumeRecord, url: URL) -> FetchError? {
        do {
            try answer.write(forPartFile: partFile)
            return nil
        } catch {
            return .transport(url: url, message: "cannot record the partial download: \(error.localizedDescription)")
        }
    }

    /// Appends body bytes to the file; returns the error that aborts the transfer, or nil.
    func write(_ data: UnsafeMutablePointer<CChar>, count: Int, url: URL) -> FetchError? {
        var offset = 0
        while offset < count {
            let result = Glibc.write(fileDescriptor, data + offset, count - offset)
            if result < 0 {
                if errno == EINTR { continue }
                return .transport(url: url, message: "cannot write the downloaded file: \(String(cString: strerror(errno)))")
            }
            offset += result
        }
        written += Int64(count)
        report(force: false)
        return nil
    }

    /// Bytes of the file so far.
    var received: Int64 { base + written }

    private func report(force: Bool) {
        guard let progress else { return }
        // At most every 256 KiB: a progress bar needs no more, and a closure call per
        // 16 KiB write would cost more than the write.
        guard force || received - lastReported >= 256 * 1024 else { return }
        lastReported = received
        progress(DownloadProgress(received: received, total: expectedTotal))
    }

    /// `bytes START-END/TOTAL` (TOTAL may be `*`) as its start and total.
    static func contentRange(_ value: String?) -> (start: Int64, total: Int64?)? {
        guard var text = value?.trimmingCharacters(in: .whitespaces), text.lowercased().hasPrefix("bytes ") else { return nil }
        text = String(text.dropFirst(6)).trimmingCharacters(in: .whitespaces)
        let parts = text.split(separator: "/", maxSplits: 1)
        guard parts.count == 2, let dash = parts[0].firstIndex(of: "-"),
            let start = Int64(parts[0][..<dash].trimmingCharacters(in: .whitespaces)), start >= 0
        else { return nil }
        let total = parts[1] == "*" ? nil : Int64(parts[1].trimmingCharacters(in: .whitespaces))
        return (start, total)
    }
}

/// How far a download has come.
///
/// ```swift
/// let fraction = progress.total.map { Double(progress.received) / Double($0) }
/// ```
public struct DownloadProgress: Sendable, Equatable {
    /// Bytes of the file on disk so far (a resumed download counts the part it started from).
    public var received: Int64
    /// The whole file's size, when the server said.
    public var total: Int64?

    /// A progress report; `DownloadProgress(received: 1024, total: 4096)`.
    public init(received: Int64, total: Int64?) {
        self.received = received
        self.total = total
    }
}

/// The result of a download: the file complete at the path asked for, or why not.
///
/// ```swift
/// let outcome = await fetcher.download(episodeURL, to: folder.appendingPathComponent("a.mp3.part")) { _ in }
/// if case .completed(let bytes, let resumedFrom) = outcome { print(bytes, resumedFrom) }
/// ```
public enum DownloadOutcome: Sendable, Equatable {
    /// The whole file is in the part file: `bytes` in all, of which `resumedFrom` were there
    /// before (0 for a fresh or restarted download).
    case completed(bytes: Int64, resumedFrom: Int64)
    /// Nothing usable, or an interrupted transfer whose part file stays to be resumed
    /// (``FetchError/incompleteBody(url:received:expected:)``, a timeout, a lost connection).
    case failed(FetchError)
}
