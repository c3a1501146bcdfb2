import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension FeedFetcher {
    /// Downloads `url` (http or https) into `partFile`, streaming to disk: the body never
    /// sits in memory. A `partFile` that exists already is resumed with `Range: bytes=N-`
    /// from its end; a server that answers 200 (no ranges) rewrites it from the start, and
    /// one that answers 416 (the part is no prefix of the file any more) gets one fresh
    /// request. The fetcher's ``FetcherConfiguration/maxBodySize`` caps the whole file
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
        var outcome = await downloadOnce(url, to: partFile, progress: progress)
        if case .failed(.httpStatus(416, _)) = outcome, truncate(partFile.path, 0) == 0 {
            outcome = await downloadOnce(url, to: partFile, progress: progress)
        }
        await limiter.release(host: hostKey)
        if case .failed(let error) = outcome {
            // Nothing worth resuming: a refused size, or no byte of the file at all (a 404).
            let size = (try? FileManager.default.attributesOfItem(atPath: partFile.path)[.size] as? Int64) ?? nil
            if case .tooLarge = error {
                try? FileManager.default.removeItem(at: partFile)
            } else if size == 0 {
                try? FileManager.default.removeItem(at: partFile)
            }
        }
        return outcome
    }

    private func downloadOnce(
        _ url: URL, to partFile: URL, progress: (@Sendable (DownloadProgress) -> Void)?
    ) async -> DownloadOutcome {
        let descriptor = open(partFile.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            return .failed(
                .transport(url: url, message: "cannot open \(partFile.path): \(String(cString: strerror(errno)))"))
        }
        defer { close(descriptor) }
        let existing = max(0, Int64(lseek(descriptor, 0, SEEK_END)))
        let sink = DownloadSink(fileDescriptor: descriptor, resumeFrom: existing, progress: progress)
        guard
            let transfer = CurlTransfer(
                request: FeedRequest(url: url), limits: limits, acceptHeader: "*/*", download: sink)
        else {
            return .failed(.transport(url: url, message: "libcurl could not start a transfer"))
        }
        switch await run(transfer) {
        case .failure(let error):
            return .failed(error)
        case .response(let response):
            guard (200..<300).contains(response.status) else {
                return .failed(.httpStatus(response.status, url: response.finalURL))
            }
            if let total = sink.expectedTotal, sink.received != total {
                return .failed(.incompleteBody(url: response.finalURL, received: sink.received, expected: total))
            }
            return .completed(bytes: sink.received, resumedFrom: sink.base)
        }
    }
}
