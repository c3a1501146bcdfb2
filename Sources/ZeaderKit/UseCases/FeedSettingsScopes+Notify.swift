import ObjectGraph

extension FeedSettingsScopes {
    /// The URLs of the stored feeds whose settings (their own, their tags', `*`) say
    /// `notify no`: their new items are left out of a refresh's notification.
    ///
    /// ```swift
    /// let quiet = try config.feedSettings.quietFeeds(in: context)
    /// ```
    public func quietFeeds(in context: ManagedObjectContext) throws -> Set<String> {
        Set(
            try Server.findAll(in: context).filter { server in
                effective(url: server.url, tags: server.tags, stored: server.settings).flag(.notify) == false
            }.map(\.url))
    }
}
