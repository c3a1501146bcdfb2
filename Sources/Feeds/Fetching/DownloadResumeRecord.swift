import Foundation

/// What a partial download belongs to, kept beside its part file (`NAME.part.resume`): the
/// URL asked for and the validators of the response its bytes came from. A part file is
/// continued only when its record names the same URL, and the range request carries
/// `If-Range` with the validator, so that the server sends the whole file again when its copy
/// changed. A part file without a record (or with an unreadable one) is started over: its
/// bytes could belong to anything.
///
/// A sidecar rather than a name derived from the URL: the part file keeps the episode's
/// readable name, and the validator, which a name cannot hold, travels with it.
///
/// ```swift
/// let record = DownloadResumeRecord.read(forPartFile: folder.appendingPathComponent("a.mp3.part"))
/// print(record?.url ?? "no partial download", record?.etag ?? "no ETag")
/// ```
public struct DownloadResumeRecord: Codable, Sendable, Equatable {
    /// The URL the bytes were asked from (before any redirect).
    public var url: String
    /// The response's `ETag`, if it sent one.
    public var etag: String?
    /// The response's `Last-Modified`, if it sent one.
    public var lastModified: String?

    /// A record; `DownloadResumeRecord(url: "https://x.example/a.mp3", etag: "\"v1\"")`.
    public init(url: String, etag: String? = nil, lastModified: String? = nil) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The record's file for `partFile`.
    ///
    /// ```swift
    /// DownloadResumeRecord.location(forPartFile: URL(fileURLWithPath: "/p/a.mp3.part")).path   // "/p/a.mp3.part.resume"
    /// ```
    public static func location(forPartFile partFile: URL) -> URL {
        URL(fileURLWithPath: partFile.path + ".resume")
    }

    /// The record beside `partFile`, or nil when there is none or it cannot be read.
    ///
    /// ```swift
    /// let owner = DownloadResumeRecord.read(forPartFile: folder.appendingPathComponent("a.mp3.part"))?.url
    /// ```
    public static func read(forPartFile partFile: URL) -> DownloadResumeRecord? {
        guard let data = try? Data(contentsOf: location(forPartFile: partFile), options: .uncached) else { return nil }
        return try? JSONDecoder().decode(DownloadResumeRecord.self, from: data)
    }

    /// Writes the record beside `partFile` (replacing it whole, never half-written).
    func write(forPartFile partFile: URL) throws {
        try JSONEncoder().encode(self).write(to: Self.location(forPartFile: partFile), options: .atomic)
    }

    /// Removes the record beside `partFile`, if there is one.
    static func remove(forPartFile partFile: URL) {
        try? FileManager.default.removeItem(at: location(forPartFile: partFile))
    }

    /// The record of a response to `url` with these (lowercased) headers.
    static func response(to url: URL, headers: [String: String]) -> DownloadResumeRecord {
        func value(_ name: String) -> String? {
            headers[name].map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
        }
        return DownloadResumeRecord(url: url.absoluteString, etag: value("etag"), lastModified: value("last-modified"))
    }

    /// The `If-Range` value that asks for the rest only if the server's copy is still this
    /// one: the ETag when it is a strong one (a weak one may not be used), else the date.
    var ifRangeValue: String? {
        if let etag, !etag.hasPrefix("W/") { return HTTPHeaderValues.headerSafe(etag) }
        return lastModified.flatMap(HTTPHeaderValues.headerSafe)
    }

    /// Whether a 206 carrying `answer`'s validators continues this record's bytes: a
    /// validator both name must be equal.
    func isContinued(by answer: DownloadResumeRecord) -> Bool {
        if let etag, let other = answer.etag, etag != other { return false }
        if let lastModified, let other = answer.lastModified, lastModified != other { return false }
        return true
    }
}
