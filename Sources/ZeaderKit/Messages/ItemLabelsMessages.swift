extension Messages {
    /// A sync's one line when its service keeps no labels on items: the items' tags stay on
    /// this device (``FeedSync/Report/refused``).
    ///
    /// ```swift
    /// Messages.syncItemTagsUnsupported(.fever, items: 3)
    /// // "the Fever API cannot tag items: the tags of 3 items stay on this device"
    /// ```
    public static func syncItemTagsUnsupported(_ service: SyncServiceKind, items: Int) -> String {
        "\(serviceName(service)) cannot \(operationName(.tagItems)): the tags of "
            + (items == 1 ? "1 item stay" : "\(items) items stay") + " on this device"
    }
}
