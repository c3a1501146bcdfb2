import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FeedFetcher {
    /// Downloads `url` (http or https) into `partFile`, streaming to disk: the body never
    /// sits in memory. A `partFile` that exists already is resumed with `Range: bytes=N-`
    /// from its end only when its ``DownloadResumeRecord`` names this URL, with `If-Range`
    /// carrying the record's validator; any other part file starts over. A server that
    /// answers 200 (no ranges, or another copy of the file) rewrites it from the start, and
    /// one that answers 416 (the part is no prefix of the file any more) or a 206 with other
    /// validators gets one fresh request. The record is removed with the part file, or when
    /// the download completes. The fetcher's ``FetcherConfiguration/maxBodySize`` caps the whole file
    /// (announced sizes are refused before a byte is read), and its timeouts apply
    /// (give a download a long ``FetcherConfiguration/totalTimeout``). On failure the part
    /// file keeps what arrived, except after a refusal for size or when nothing arrived, when it is removed.
    ///
    /// ```swift
    /// let outcome = await fetcher.download(episodeURL, to: folder.appendingPathComponent("a.mp3.part")) { p in
    ///     print(p.received, p.total ?? -1)
    /// }
    /// ```
    public func download(
        _ url: URL, to partFile: URL, progress: (@Sendable (DownloadProgress) -> Void)? = nil
    ) async -> DownloadOutcome {
        switch url.scheme?.lowercased() {
        case "http", "https": break
        default: return .failed(.unsupportedScheme(url))
        }
        guard let host = url.host, !host.isEmpty else { return .failed(.invalidURL(url, reason: "no host")) }
        let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
        let hostKey = "\(host.lowercased()):\(url.port ?? defaultPort)"
        guard await limiter.acquire(host: hostKey) else { return .failed(.cancelled(url: url)) }
        var (outcome, startOver) = await downloadOnce(url, to: partFile, progress: progress)
        if case .failed(.httpStatus(416, _)) = outcome { startOver = true }
        if startOver, truncate(partFile.path, 0) == 0 {
            (outcome, _) = await downloadOnce(url, to: partFile, progress: progress)
        }
        await limiter.release(host: hostKey)
        switch outcome {
        case .completed:
            DownloadResumeRecord.remove(forPartFile: partFile)
        case .failed(let error):
            // Nothing worth resuming: a refused size, or no byte of the file at all (a 404).
            let size = (try? FileManager.default.attributesOfItem(atPath: partFile.path)[.size] as? Int64) ?? nil
            var isTooLarge = false
            if case .tooLarge = error { isTooLarge = true }
            if isTooLarge || size == 0 {
                try? FileManager.default.removeItem(at: partFile)
                DownloadResumeRecord.remove(forPartFile: partFile)
            }
        }
        return outcome
    }

    /// The record of `partFile`'s bytes when they may be continued from `url`; otherwise
    /// the part file is emptied (and its record removed) so that the download starts over.
    private func resumableRecord(of partFile: URL, descriptor: Int32, url: URL) -> DownloadResumeRecord? {
        guard lseek(descriptor, 0, SEEK_END) > 0 else { return nil }
        if let record = DownloadResumeRecord.read(forPartFile: partFile), record.url == url.absoluteString {
            return record
        }
        DownloadResumeRecord.remove(forPartFile: partFile)
        _ = ftruncate(descriptor, 0)
        return nil
    }

    /// One request; `startOver` is true when the part's bytes turned out to be another copy
    /// of the file (a 206 with other validators).
    private func downloadOnce(
        _ url: URL, to partFile: URL, progress: (@Sendable (DownloadProgress) -> Void)?
    ) async -> (outcome: DownloadOutcome, startOver: Bool) {
        let descriptor = open(partFile.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            return (
                .failed(.transport(url: url, message: "cannot open \(partFile.path): \(String(cString: strerror(errno)))")),
                false
            )
        }
        defer { close(descriptor) }
        let record = resumableRecord(of: partFile, descriptor: descriptor, url: url)
        let existing = max(0, Int64(lseek(descriptor, 0, SEEK_END)))
        let sink = DownloadSink(
            fileDescriptor: descriptor, resumeFrom: existing, partFile: partFile, requestedURL: url, resuming: record,
            progress: progress)
        var request = FeedRequest(url: url)
        if existing > 0, let validator = record?.ifRangeValue { request.headers["If-Range"] = validator }
        guard let transfer = CurlTransfer(request: request, limits: limits, acceptHeader: "*/*", download: sink) else {
            return (.failed(.transport(url: url, message: CurlGlobal.noTransferReason)), false)
        }
        switch await run(transfer) {
        case .failure(let error):
            return (.failed(error), sink.validatorChanged)
        case .response(let response):
            guard (200..<300).contains(response.status) else {
                return (.failed(.httpStatus(response.status, url: response.finalURL)), false)
            }
            if let total = sink.expectedTotal, sink.received != total {
                return (
                    .failed(.incompleteBody(url: response.finalURL, received: sink.received, expected: total)), false
                )
            }
            return (.completed(bytes: sink.received, resumedFrom: sink.base), false)
        }
    }
}
