/// Newsboat's `urls` file: one feed per line, the URL then its tags.
///
/// ```text
/// # comment
/// https://example.org/feed.xml tech "long tag" "~Custom Title"
/// "query:Unread:unread = \"yes\""
/// ```
///
/// Tags are separated by blanks and may be quoted (`"cool stuff"`, with `\"` and `\\`
/// inside quotes); a tag starting with `~` renames the feed; `#` at the start of a word
/// outside quotes starts a comment. Query feeds (`query:NAME:FILTER`) are listed apart
/// (``SubscriptionImport/queryFeeds``, for the importer to make smart feeds of); `exec:` and
/// `filter:` lines run a command (with a note); lines whose first word is not an http,
/// https or file URL are skipped with a note. A tag starting with `!` (newsboat's hidden
/// feed) is kept as a tag: it hides the feed from the feed list while its items still reach
/// tags and smart feeds. A `<` word outside quotes ends the tags: what follows is the feed's
/// settings as newsraft writes them (`https://a.example/rss news < reload-interval 60; max-items 50`),
/// kept as text in ``OPMLSubscription/settings``.
///
/// ```swift
/// let list = NewsboatURLs.parse(try String(contentsOfFile: path, encoding: .utf8), source: path)
/// print(list.subscriptions.count, list.notes)
/// ```
public enum NewsboatURLs {
    /// Reads the text of a `urls` file. Never fails: lines it cannot use become notes
    /// that name the source and line number.
    ///
    /// ```swift
    /// let list = NewsboatURLs.parse("https://a.example/rss news \"~A\"\n", source: "urls")
    /// list.subscriptions[0].title  // "A"
    /// ```
    public static func parse(_ text: String, source: String) -> SubscriptionImport {
        var subscriptions: [OPMLSubscription] = []
        var indexByURL: [String: Int] = [:]
        var categorySets: [Set<String>] = []  // each feed's tags, so a repeated line costs its own tags
        var notes: [String] = []
        var queryFeeds: [SubscriptionImport.QueryFeed] = []
        var lineNumber = 0
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            lineNumber += 1
            let (line, settings) = splitSettings(DisplayWidth.sanitizeForTerminal(String(rawLine)))
            let (words, unterminatedQuote) = tokenize(line)
            guard let url = words.first else { continue }
            let place = "\(source):\(lineNumber)"
            if unterminatedQuote { notes.append("\(place): unterminated quote; read to the end of the line") }
            let lowered = url.lowercased()
            if lowered.hasPrefix("query:") {
                queryFeeds.append(SubscriptionImport.QueryFeed(line: url, tags: Array(words.dropFirst()), place: place))
                continue
            }
            let isCommand = CommandFeed.isCommand(url)
            if isCommand {
                guard CommandFeed(subscription: url) != nil else {
                    notes.append("\(place): skipped \"\(url)\": an exec: feed needs a command, a filter: feed COMMAND:URL")
                    continue
                }
                notes.append(
                    "\(place): \(lowered.hasPrefix("exec:") ? "exec" : "filter") feed: it runs \"\(url)\" (without a shell) at each refresh"
                )
            }
            guard isCommand || ["http://", "https://", "file://"].contains(where: { lowered.hasPrefix($0) }) else {
                notes.append("\(place): skipped \"\(url)\": not an http, https or file URL")
                continue
            }
            var title: String? = nil
            var categories: [String] = []
            var seen = Set<String>()
            for tag in words.dropFirst() {
                if tag.hasPrefix("~") {
                    let name = String(tag.dropFirst())
                    title = name.isEmpty ? nil : name
                } else if !tag.isEmpty, seen.insert(tag).inserted {
                    categories.append(tag)
                }
            }
            if let index = indexByURL[url] {
                notes.append("\(place): \(url) is listed again; tags merged")
                for category in categories where categorySets[index].insert(category).inserted {
                    subscriptions[index].categories.append(category)
                }
                if subscriptions[index].title == nil { subscriptions[index].title = title }
                if let settings { subscriptions[index].settings = settings }
                continue
            }
            indexByURL[url] = subscriptions.count
            var subscription = OPMLSubscription(url: url, title: title, categories: categories)
            subscription.settings = settings
            subscriptions.append(subscription)
            categorySets.append(seen)
        }
        var list = SubscriptionImport(subscriptions: subscriptions, notes: notes)
        list.format = .newsboatURLs
        list.queryFeeds = queryFeeds
        return list
    }

    /// The line before its settings, and the settings' text after the `<` word (outside
    /// quotes, before any comment), trimmed; nil when there is no `<`.
    ///
    /// ```swift
    /// NewsboatURLs.splitSettings("https://a.example/rss tech < timeout 5").settings   // "timeout 5"
    /// ```
    package static func splitSettings(_ line: String) -> (line: String, settings: String?) {
        var inQuotes = false
        var escaped = false
        var previous: Character = " "
        for index in line.indices {
            let character = line[index]
            defer { previous = character }
            if inQuotes {
                if escaped {
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inQuotes = false
                }
                continue
            }
            if character == "\"" { inQuotes = true }
            if character == "#" && previous.isWhitespace { return (line, nil) }
            let next = line.index(after: index)
            if character == "<", previous.isWhitespace, next == line.endIndex || line[next].isWhitespace {
                return (String(line[..<index]), String(line[next...]).trimmingCharacters(in: .whitespaces))
            }
        }
        return (line, nil)
    }

    /// Splits a line into words the way newsboat does: blanks separate, double quotes
    /// group (with backslash escapes inside), `#` at the start of a word outside quotes
    /// ends the line. Also reports a quote left open.
    package static func tokenize(_ line: String) -> (words: [String], unterminatedQuote: Bool) {
        var words: [String] = []
        var current = ""
        var inWord = false
        var inQuotes = false
        var escaped = false
        for character in line {
            if inQuotes {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    inQuotes = false
                } else {
                    current.append(character)
                }
                continue
            }
            switch character {
            case " ", "\t", "\r", "\r\n":
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            case "#" where !inWord:
                return (words, false)
            case "\"":
                inQuotes = true
                inWord = true
            default:
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return (words, inQuotes)
    }
}
