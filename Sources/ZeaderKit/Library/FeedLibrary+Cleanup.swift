import Foundation
import ObjectGraph

extension FeedLibrary {
    /// Removes old items by `policy` (``RetentionCleanup``), then, with `vacuum`, rebuilds
    /// the store's file so that it shrinks; the `-wal` is checkpointed either way.
    ///
    /// ```swift
    /// let report = try library.cleanup(policy: config.retention, vacuum: true)
    /// ```
    public func cleanup(
        policy: RetentionPolicy, vacuum: Bool = false, now: Date = Date(), progress: ((CleanupReport) -> Void)? = nil
    ) throws(ZeaderError) -> CleanupReport {
        let context = store.container.newBackgroundContext(name: "cleanup")
        context.mergePolicy = .objectTrumps
        var report: CleanupReport
        do {
            var checkpointed = 0
            report = try context.performAndWait {
                try RetentionCleanup.run(policy, in: context, now: now) { report in
                    // Fold the -wal back now and then, or a large cleanup grows it without bound.
                    if report.removedItems - checkpointed >= 50_000 {
                        store.checkpoint()
                        checkpointed = report.removedItems
                    }
                    progress?(report)
                }
            }
        } catch {
            throw ZeaderError.wrapping(error)
        }
        if vacuum, let url = store.url {
            let before = Self.fileSize(url)
            do {
                try store.container.store.vacuum()
            } catch {
                throw ZeaderError.store(error)
            }
            report.reclaimedBytes = max(0, before - Self.fileSize(url))
        } else {
            store.checkpoint()
        }
        return report
    }

    private static func fileSize(_ url: URL) -> Int64 {
        let paths = [url.path, url.path + "-wal"]
        return paths.reduce(0) { total, path in
            total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
