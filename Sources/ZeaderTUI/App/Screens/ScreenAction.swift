import ZeaderConfig

/// An action whose meaning depends on the screen on top. ``ReaderApp/perform(_:)`` hands
/// each one to that screen's handler (`FeedListScreen.swift`, `ItemListScreen.swift`,
/// `ArticleScreen.swift`, `PickerScreen.swift`, `HelpScreen.swift`), and every handler has a
/// case for every one: a new case here does not compile until each screen decides.
///
/// ```swift
/// app.onScreen(.sort(reverse: true))
/// ```
enum ScreenAction: Equatable {
    case open
    case refreshFeed
    /// `J`/`K`: the next item while reading, the next feed from the item list.
    case step(forward: Bool)
    case goToFeed(forward: Bool)
    case sort(reverse: Bool)
    case setFilter, clearFilter, selectFilter
    case deleteFeed
    case moveFeed(by: Int)
    case editURLs
    case renameFeed
    case markFeedRead
    case deleteAllArticles
    case toggleSourceView
    /// An action on one item: the article shown or the item under the cursor.
    case item(ItemAction)

    /// The key map's action, for the messages that name it.
    var action: Action {
        switch self {
        case .open: return .open
        case .refreshFeed: return .refreshFeed
        case .step(let forward): return forward ? .next : .prev
        case .goToFeed(let forward): return forward ? .nextFeed : .prevFeed
        case .sort(let reverse): return reverse ? .revSort : .sort
        case .setFilter: return .setFilter
        case .clearFilter: return .clearFilter
        case .selectFilter: return .selectFilter
        case .deleteFeed: return .deleteFeed
        case .moveFeed(let offset): return offset < 0 ? .moveFeedUp : .moveFeedDown
        case .editURLs: return .editURLs
        case .renameFeed: return .renameFeed
        case .markFeedRead: return .markFeedRead
        case .deleteAllArticles: return .deleteAllArticles
        case .toggleSourceView: return .toggleSourceView
        case .item(let action): return action.action
        }
    }
}

/// An action on one item, whichever screen shows it (`ItemActions.swift`).
///
/// ```swift
/// app.onItem(.toggleFlag, id)
/// ```
enum ItemAction: Equatable {
    case toggleRead, toggleFlag, enqueue, deleteArticle, editFlags, gotoURL
    case openInBrowser, openInBrowserAndMarkRead, showUrls, save, pipeTo, bookmark, fullArticle, editTags

    /// The key map's action, for the messages that name it.
    var action: Action {
        switch self {
        case .toggleRead: return .toggleRead
        case .toggleFlag: return .toggleFlag
        case .enqueue: return .enqueue
        case .deleteArticle: return .deleteArticle
        case .editFlags: return .editFlags
        case .gotoURL: return .gotoURL
        case .openInBrowser: return .openInBrowser
        case .openInBrowserAndMarkRead: return .openInBrowserAndMarkRead
        case .showUrls: return .showUrls
        case .save: return .save
        case .pipeTo: return .pipeTo
        case .bookmark: return .bookmark
        case .fullArticle: return .fullArticle
        case .editTags: return .editTags
        }
    }
}
