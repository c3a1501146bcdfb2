import Foundation

extension FeedFetcher {
    /// Reads a `file:` URL with the same size cap as downloads. The file's modification time
    /// plays the part of `Last-Modified`, so an unchanged file comes back as `notModified`.
    func fetchFile(_ request: FeedRequest) async -> FetchOutcome {
        let url = request.url
        if let host = url.host, !host.isEmpty, host.lowercased() != "localhost" {
            return .failed(.invalidURL(url, reason: "file URL on another host '\(host)'"))
        }
        let limit = limits.maxBodySize
        // Disk reads block: run them on a dispatch queue, not the cooperative pool.
        return await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: Self.readFile(request, limit: limit))
            }
        }
    }

    private static func readFile(_ request: FeedRequest, limit: Int) -> FetchOutcome {
        let url = request.url
        let path = url.path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            if !FileManager.default.fileExists(atPath: path) { return .failed(.fileNotFound(url)) }
            return .failed(.fileUnreadable(url, message: String(describing: error)))
        }
        if (attributes[.type] as? FileAttributeType) == .typeDirectory {
            return .failed(.fileUnreadable(url, message: "is a directory"))
        }
        let lastModified = (attributes[.modificationDate] as? Date).map(HTTPHeaderValues.formatHTTPDate)
        var metadata = FetchMetadata(finalURL: url, status: 200, lastModified: lastModified)
        if let lastModified, request.lastModified == lastModified {
            metadata.status = 304
            return .notModified(metadata)
        }
        if let size = attributes[.size] as? NSNumber, size.int64Value > Int64(limit) {
            return .failed(.tooLarge(url: url, limit: limit))
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failed(.fileUnreadable(url, message: "permission denied"))
        }
        defer { try? handle.close() }
        // Read in chunks: the size reported above may be wrong (a growing file, /dev/zero).
        var body = Data()
        do {
            while let chunk = try handle.read(upToCount: 64 * 1024), !chunk.isEmpty {
                if body.count + chunk.count > limit { return .failed(.tooLarge(url: url, limit: limit)) }
                body.append(chunk)
            }
        } catch {
            return .failed(.fileUnreadable(url, message: String(describing: error)))
        }
        return .fetched(body: body, metadata: metadata)
    }
}
