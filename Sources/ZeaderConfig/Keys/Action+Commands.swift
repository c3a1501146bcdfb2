extension KeyMap {
    /// newsboat's default keys for the actions of Action+Commands.swift (merged into ``default``).
    static let newsboatCommandKeys: [Key: Action] = [
        .character("D"): .deleteArticle, .control("d"): .deleteAllArticles, .control("e"): .editFlags,
        .character(":"): .cmdline, .character("v"): .viewDialogs, .control("x"): .closeDialog,
        .control("v"): .nextDialog, .control("g"): .prevDialog, .control("u"): .toggleSourceView,
        .character("#"): .gotoURL, .character("E"): .editURLs,
        .character("f"): .selectFilter,
    ]
}
