import Foundation

extension FeedLibrary {
    /// Whether a feed with this URL is subscribed.
    ///
    /// ```swift
    /// if try library.isSubscribed("https://example.org/feed.xml") { … }
    /// ```
    public func isSubscribed(_ url: String) throws(ZeaderError) -> Bool {
        try withContext { context in try FeedSubscription.isSubscribed(url, in: context) }
    }
}
