import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// newsboat's command line (`:`): `quit`/`q`, `save FILE`, `set VARIABLE[=VALUE|!|&]`,
/// `tag NAME`, `goto TEXT`, `exec ACTION` and a number (go to that entry of the list).
/// Anything else is an error naming the command.
extension ReaderApp {
    /// The variables `set` knows: newsboat's names of the views Zeader keeps.
    static let commandLineVariables = ["show-read-feeds", "show-read-articles", "feed-sort-order", "article-sort-order"]

    /// `set browser COMMAND`: the browser until set again (`&`: the config's); no value shows it.
    func setBrowser(_ value: String?) {
        if var value, !value.isEmpty {
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = String(value.dropFirst().dropLast()) }
            browser = value == "&" ? config.browser : value
        }
        state.say(.reader(.variable("browser", browser ?? "$BROWSER, else xdg-open")))
    }

    func runCommandLine(_ line: String) {
        let line = line.trimmingCharacters(in: .whitespaces)
        guard !line.isEmpty else { return }
        if let number = Self.entryNumber(line) {
            goToEntry(number, typed: line)
            return
        }
        let command = String(line.prefix { !$0.isWhitespace })
        let argument = line.dropFirst(command.count).trimmingCharacters(in: .whitespaces)
        func needsArgument() -> Bool {
            if argument.isEmpty { state.say(.reader(.commandNeedsArgument(command))) }
            return argument.isEmpty
        }
        switch command {
        case "quit", "q": quit()
        case "save":
            guard !needsArgument() else { return }
            guard let article = currentItemID().flatMap(article(of:)) else {
                state.say(.reader(.needsItem))
                return
            }
            state.say(ArticleCommands.save(article, to: argument, width: max(20, min(state.width - 1, 100))))
        case "set":
            guard !needsArgument() else { return }
            set(argument)
        case "tag":
            guard !needsArgument() else { return }
            showTag(argument)
        case "goto":
            guard !needsArgument() else { return }
            gotoFeed(containing: argument)
        case "exec":
            guard !needsArgument() else { return }
            guard let action = Action(configName: argument) else {
                state.say(.reader(.unknownAction(argument)))
                return
            }
            perform(action)
        case "source", "dumpconfig":
            state.say(.reader(.configCommandNotAvailable(command)))
        case "dumpform":
            state.say(.reader(.dumpformNotAvailable))
        default:
            state.say(.reader(.unknownCommand(command)))
        }
    }

    /// `:N`: the N-th entry (from 1) of the list on screen.
    private func goToEntry(_ number: Int, typed: String) {
        let height = state.listHeight
        let count: Int
        switch state.screen {
        case .feeds: count = state.feeds.count
        case .items:
            loadRestOfItemList()
            count = state.items?.ids.count ?? 0
        case .picker: count = state.picker?.entries.count ?? 0
        case .article, .help:
            state.say(.reader(.numberNeedsAList))
            return
        }
        guard number >= 1, number <= count else {
            state.say(.reader(.noEntry(typed, count: count)))
            return
        }
        switch state.screen {
        case .feeds: state.feedPosition.set(number - 1, count: count, height: height)
        case .items: state.items?.position.set(number - 1, count: count, height: height)
        case .picker: state.picker?.position.set(number - 1, count: count, height: height)
        case .article, .help: break  // refused above
        }
    }

    /// `:set`: `NAME` shows the value, `NAME=VALUE` (or `NAME VALUE`) sets it, `NAME!`
    /// toggles a yes/no variable and `NAME&` resets it to its default.
    private func set(_ text: String) {
        var name = text
        var value: String?
        if let equals = text.firstIndex(of: "=") {
            name = String(text[..<equals])
            value = String(text[text.index(after: equals)...])
        } else if let space = text.firstIndex(where: \.isWhitespace) {
            name = String(text[..<space])
            value = String(text[space...])
        } else if text.hasSuffix("!") || text.hasSuffix("&") {
            name = String(text.dropLast())
            value = String(text.last!)
        }
        set(name.trimmingCharacters(in: .whitespaces), to: value?.trimmingCharacters(in: .whitespaces))
    }

    /// Sets (or, with no value, shows) the variable `name`: `:set` and a macro's `set` step.
    func set(_ name: String, to value: String?) {
        if name == "browser" { return setBrowser(value) }
        if name == "mouse" { return setMouse(value) }
        if name == "text-width" { return setTextWidth(value) }
        guard Self.commandLineVariables.contains(name) else {
            let known = ReaderConfig.newsboatDirectives.contains(name)
            state.say(.reader(known ? .cannotSetInReader(name) : .unknownVariable(name)))
            return
        }
        let defaults = ViewOptions()
        var views = state.views
        do {
            switch (name, value) {
            case ("show-read-feeds", let value?):
                views.showReadFeeds = try Self.yesNo(value, current: views.showReadFeeds, default: defaults.showReadFeeds)
            case ("show-read-articles", let value?):
                views.showReadArticles = try Self.yesNo(
                    value, current: views.showReadArticles, default: defaults.showReadArticles)
            case ("feed-sort-order", let value?):
                views.feedOrder = value == "&" ? defaults.feedOrder : try FeedSortOrder(newsboat: value)
            case ("article-sort-order", let value?):
                views.itemOrder = value == "&" ? defaults.itemOrder : try ItemSortOrder(newsboat: value)
            default: break
            }
        } catch {
            state.say(.reader(.cannotSet(name, (error as? ReaderConfigError.Message)?.text ?? "\(error)")))
            return
        }
        if views != state.views {
            let itemsChange = views.showReadArticles != state.views.showReadArticles || views.itemOrder != state.views.itemOrder
            state.views = views
            rearrangeFeeds()
            if itemsChange, let error = reloadItemList() { state.say(.failed("\(error)")) }
            viewsChanged()
        }
        let shown: String
        switch name {
        case "show-read-feeds": shown = state.views.showReadFeeds ? "yes" : "no"
        case "show-read-articles": shown = state.views.showReadArticles ? "yes" : "no"
        case "feed-sort-order": shown = state.views.feedOrder.name
        default: shown = state.views.itemOrder.name
        }
        state.say(.reader(.variable(name, shown)))
    }

    static func yesNo(_ value: String, current: Bool, default: Bool) throws -> Bool {
        switch value.lowercased() {
        case "yes", "true": return true
        case "no", "false": return false
        case "!": return !current
        case "&": return `default`
        default: throw ReaderConfigError.Message("needs yes, no, ! (toggle) or & (default), not '\(value)'")
        }
    }

    /// `:tag NAME`: only the feeds of that tag, as `t` picks it.
    private func showTag(_ name: String) {
        let tags: [String]
        do { tags = try model.tagCounts().map(\.tag) } catch {
            state.say(.failed("\(error)"))
            return
        }
        guard let tag = tags.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
            state.say(.reader(.noFeedTagged(name)))
            return
        }
        state.views.tag = tag
        rearrangeFeeds()
        if state.screen == .feeds { state.feedPosition.set(0, count: state.feeds.count, height: state.listHeight) }
        state.say(.reader(.showingTag(tag)))
    }

    /// `:goto TEXT`: the next feed after the cursor whose title contains TEXT (any case),
    /// wrapping round; from another screen, back to the feed list on it.
    private func gotoFeed(containing text: String) {
        completeFeedList()
        let feeds = state.feeds
        guard !feeds.isEmpty else { return }
        let start = state.screen == .feeds ? state.feedPosition.cursor + 1 : 0
        let order = (0..<feeds.count).map { (start + $0) % feeds.count }
        guard let index = order.first(where: { feeds[$0].title.range(of: text, options: .caseInsensitive) != nil }) else {
            state.say(.reader(.noFeedTitled(text)))
            return
        }
        while state.screens.count > 1 { back() }
        if modelChanged { reloadFromModel() }
        let kind = feeds[index].kind
        let found = state.feeds.firstIndex { $0.kind == kind } ?? index
        state.feedPosition.set(found, count: state.feeds.count, height: state.listHeight)
    }
}
