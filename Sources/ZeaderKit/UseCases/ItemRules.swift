import Feeds
import Foundation
import ObjectGraph

/// Rules that act: `PREDICATE -> ACTION…`, a predicate over FeedItem in the smart-feed
/// language (or newsboat's filter language), and what to do with each new item it matches.
/// A refresh and a sync apply them to the items they store anew (``ItemImport``), rule after
/// rule in order, so a later rule sees what an earlier one changed (`read == YES` after a
/// `mark-read`). `mark-read`, `flag`, `tag NAME` and `untag NAME` (the item's own tags,
/// ``FeedItem/tags``) change the item in the same save that stores it;
/// `notify`, `exec` and `full-article` happen after the save (``Firing``); `ignore` is the
/// killfile (``Killfile``): the item is never stored, so it is alone in its rule.
///
/// `exec PROGRAM ARG…` runs PROGRAM with the item's fields in its arguments (`%t` title,
/// `%l` link, `%a` author, `%f` the feed's URL, `%i` the item's id, `%d` its date, `%%` a
/// percent sign), never through a shell; `exec --json PROGRAM ARG…` gives it the item as a
/// JSON object on its standard input instead. The program is the rule's own word: a field
/// may not stand in it, so a feed never chooses what runs.
///
/// ```swift
/// let rule = try ItemRules.parse(#"title CONTAINS[cd] "release" -> flag notify"#)
/// let compiled = try ItemRules.compile(rule)
/// ```
public enum ItemRules {
    /// What a rule does to an item it matches.
    ///
    /// ```swift
    /// ItemRules.Action.exec(.init(argv: ["save-link", "%l"])).word   // "exec save-link %l"
    /// ```
    public enum Action: Sendable, Hashable {
        case markRead
        case flag
        /// Adds the tag to the item's own tags (``FeedItem/tags``).
        case tag(String)
        /// Takes the tag from the item's own tags.
        case untag(String)
        /// The reader's notifier (`notify-program`) shows the item's title.
        case notify
        /// The item's web page is fetched and its article stored (``FullArticles``).
        case fullArticle
        /// The item is not stored (``Killfile``).
        case ignore
        case exec(Exec)

        /// As a rule writes it.
        public var word: String {
            switch self {
            case .markRead: "mark-read"
            case .flag: "flag"
            case .tag(let tag): "tag \(Self.quoted(tag))"
            case .untag(let tag): "untag \(Self.quoted(tag))"
            case .notify: "notify"
            case .fullArticle: "full-article"
            case .ignore: "ignore"
            case .exec(let exec): (["exec"] + (exec.json ? ["--json"] : []) + exec.argv.map(Self.quoted)).joined(separator: " ")
            }
        }

        /// `word` quoted so that ``CommandWords`` splits it back into itself.
        static func quoted(_ word: String) -> String {
            guard word.isEmpty || word.contains(where: { $0.isWhitespace || "\"'\\".contains($0) }) else { return word }
            return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
        }
    }

    /// A program a rule runs: its argv as the user wrote it (fields in the arguments only),
    /// and whether the item goes on its standard input as JSON.
    ///
    /// ```swift
    /// let exec = ItemRules.Exec(argv: ["/usr/local/bin/archive"], json: true)
    /// ```
    public struct Exec: Sendable, Hashable {
        public var argv: [String]
        public var json: Bool

        public init(argv: [String], json: Bool = false) {
            self.argv = argv
            self.json = json
        }
    }

    /// One rule as the user wrote it.
    ///
    /// ```swift
    /// ItemRules.Rule(predicateFormat: "read == NO", actions: [.flag]).text   // "read == NO -> flag"
    /// ```
    public struct Rule: Sendable, Hashable {
        public var predicateFormat: String
        public var actions: [Action]

        public init(predicateFormat: String, actions: [Action]) {
            self.predicateFormat = predicateFormat
            self.actions = actions
        }

        /// As `zeader rule list` and the config write it: `PREDICATE -> ACTION…`.
        public var text: String { "\(predicateFormat) -> \(actions.map(\.word).joined(separator: " "))" }

        /// Whether it is the killfile's rule: its one action is `ignore`.
        public var isIgnore: Bool { actions == [.ignore] }

        /// Whether its actions change the item itself (`mark-read`, `flag`, `tag`, `untag`).
        var changesItem: Bool {
            actions.contains { action in
                switch action {
                case .markRead, .flag, .tag, .untag: return true
                case .notify, .fullArticle, .ignore, .exec: return false
                }
            }
        }
    }

    /// Why a rule's text is not a rule. Worded in ``Messages``.
    ///
    /// ```swift
    /// if case .invalidRule(_, .programFromItem(let program)) = error { print(program) }
    /// ```
    public enum Problem: Error, Sendable, Equatable {
        case missingArrow
        case noPredicate
        case noActions
        case unknownAction(String)
        case ignoreNotAlone
        case execWithoutProgram
        /// `tag` or `untag` (the word) without a tag after it.
        case tagWithoutName(String)
        /// A field (`%t`…) in the program's own word.
        case programFromItem(String)
        case unknownField(String, argument: String)
        case lineBreak
        case predicate(String)
    }

    /// A rule with its predicate parsed, ready to test items.
    ///
    /// ```swift
    /// let compiled = try ItemRules.compile(rule)   // compiled.rule == rule
    /// ```
    public struct CompiledRule: Sendable {
        public let rule: Rule
        let predicate: ObjectPredicate
        /// Whether `mark-read` and `flag` stay on the item as it is stored; false in the
        /// reader, which makes them afterwards as one undo step (``applyChanges(_:in:)``).
        var changesItems = true
    }

    /// An item a rule matched and what is left to do for it once it is stored: its fields as
    /// they were stored (the reader's notifier and programs get these, not the store's row).
    ///
    /// ```swift
    /// for firing in summary.results.flatMap(\.firings) { print(Messages.ruleFired(firing)) }
    /// ```
    public struct Firing: Sendable, Equatable {
        public var rule: Rule
        public var item: Fields
    }

    /// An item's fields as ``Firing`` carries them.
    ///
    /// ```swift
    /// let title = firing.item.title ?? firing.item.id
    /// ```
    public struct Fields: Sendable, Equatable {
        public var feed: String
        public var id: String
        public var title: String?
        public var link: String?
        public var author: String?
        public var published: Date?
    }

    // MARK: - Reading rules

    /// Reads `PREDICATE -> ACTION…`: the first `->` outside quotes ends the predicate; the
    /// actions are words (`mark-read`, `flag`, `tag NAME`, `untag NAME`, `notify`,
    /// `full-article`, `ignore`), and
    /// `exec` takes the rest of the line as its program and arguments.
    ///
    /// ```swift
    /// let rule = try ItemRules.parse(#"author == "bot" -> mark-read"#)   // rule.actions == [.markRead]
    /// ```
    public static func parse(_ text: String) throws(ZeaderError) -> Rule {
        guard !text.contains(where: \.isNewline) else { throw .invalidRule(text, .lineBreak) }
        guard let arrow = arrow(in: text) else { throw .invalidRule(text, .missingArrow) }
        let predicate = text[..<arrow.lowerBound].trimmingCharacters(in: .whitespaces)
        guard !predicate.isEmpty else { throw .invalidRule(text, .noPredicate) }
        var words = CommandWords.split(String(text[arrow.upperBound...]))[...]
        var actions: [Action] = []
        while let word = words.popFirst() {
            switch word.lowercased() {
            case "mark-read": actions.append(.markRead)
            case "flag": actions.append(.flag)
            case "tag", "untag":
                guard let name = words.popFirst().flatMap(FeedTags.clean) else {
                    throw .invalidRule(text, .tagWithoutName(word.lowercased()))
                }
                actions.append(word.lowercased() == "tag" ? .tag(name) : .untag(name))
            case "notify": actions.append(.notify)
            case "full-article": actions.append(.fullArticle)
            case "ignore": actions.append(.ignore)
            case "exec":
                let json = words.first == "--json"
                if json { words.removeFirst() }
                let argv = Array(words)
                words = []
                guard let program = argv.first, !program.isEmpty else { throw .invalidRule(text, .execWithoutProgram) }
                if program.contains("%") { throw .invalidRule(text, .programFromItem(program)) }
                for argument in argv.dropFirst() {
                    if let unknown = unknownField(in: argument) {
                        throw .invalidRule(text, .unknownField(unknown, argument: argument))
                    }
                }
                actions.append(.exec(Exec(argv: argv, json: json)))
            default: throw .invalidRule(text, .unknownAction(word))
            }
        }
        guard !actions.isEmpty else { throw .invalidRule(text, .noActions) }
        if actions.contains(.ignore), actions.count > 1 { throw .invalidRule(text, .ignoreNotAlone) }
        return Rule(predicateFormat: predicate, actions: actions)
    }

    /// Checks a rule's predicate against FeedItem (syntax, keys, types) and parses it.
    ///
    /// ```swift
    /// let compiled = try ItemRules.compile(ItemRules.Rule(predicateFormat: "read == NO", actions: [.flag]))
    /// ```
    public static func compile(_ rule: Rule) throws(ZeaderError) -> CompiledRule {
        do {
            let predicate = try ZeaderModel.itemPredicate(format: rule.predicateFormat)
            try predicate.validate(for: try ZeaderModel.current.entity(named: "FeedItem"), in: ZeaderModel.current)
            return CompiledRule(rule: rule, predicate: predicate)
        } catch {
            throw .invalidRule(rule.actions.isEmpty ? rule.predicateFormat : rule.text, .predicate("\(error)"))
        }
    }

    /// The predicate `zeader rule test` lists the items of: `text` itself, or the predicate of
    /// `text` when it is a whole rule; checked as a rule's is.
    ///
    /// ```swift
    /// try ItemRules.testedPredicate(#"author == "bot" -> mark-read"#)   // #"author == "bot""#
    /// ```
    public static func testedPredicate(_ text: String) throws(ZeaderError) -> String {
        let format = arrow(in: text) != nil ? try parse(text).predicateFormat : text.trimmingCharacters(in: .whitespaces)
        return try compile(Rule(predicateFormat: format, actions: [])).rule.predicateFormat
    }

    /// The range of the first `->` outside single or double quotes.
    static func arrow(in text: String) -> Range<String.Index>? {
        var quote: Character?
        var escaped = false
        var index = text.startIndex
        while index < text.endIndex {
            let c = text[index]
            if escaped {
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else if let open = quote {
                if c == open { quote = nil }
            } else if c == "\"" || c == "'" {
                quote = c
            } else if c == "-", text[index...].hasPrefix("->") {
                return index..<text.index(index, offsetBy: 2)
            }
            index = text.index(after: index)
        }
        return nil
    }

    /// The fields `exec`'s arguments may hold, by letter.
    static let fieldLetters: Set<Character> = ["t", "l", "a", "f", "i", "d", "%"]

    /// The first `%x` of `argument` that is not a field, or nil.
    static func unknownField(in argument: String) -> String? {
        var iterator = argument.makeIterator()
        while let c = iterator.next() {
            guard c == "%" else { continue }
            guard let letter = iterator.next() else { return "%" }
            if !fieldLetters.contains(letter) { return "%\(letter)" }
        }
        return nil
    }

    // MARK: - Applying rules

    /// Applies `rules` in order to `item`, new in `server` and not yet saved: the changes to
    /// the item are made here; what happens after the save is returned, one ``Firing`` per
    /// matching rule. Flagged or not, every new item is tested.
    ///
    /// ```swift
    /// firings += ItemRules.apply(rules, to: item, of: server)
    /// ```
    public static func apply(_ rules: [CompiledRule], to item: FeedItem, of server: Server) -> [Firing] {
        var firings: [Firing] = []
        let (wasRead, wasFlagged, hadTags) = (item.read, item.flagged, item.tags)
        let (readPending, flagPending) = (item.syncReadPending, item.syncFlagPending)
        // Left to the reader: the later rules still see the changes, the stored item does not.
        defer {
            if rules.contains(where: { !$0.changesItems }) {
                if item.read != wasRead { item.read = wasRead }
                if item.flagged != wasFlagged { item.flagged = wasFlagged }
                if item.tags != hadTags { item.tags = hadTags }
                if item.syncReadPending != readPending { item.syncReadPending = readPending }
                if item.syncFlagPending != flagPending { item.syncFlagPending = flagPending }
            }
        }
        for compiled in rules where (try? compiled.predicate.evaluate(with: item)) ?? false {
            for action in compiled.rule.actions {
                switch action {
                // An item a sync pulled keeps its mark pending, so that the sync's own states
                // do not undo it and its push tells the server (``SyncQueue``).
                case .markRead where !item.read:
                    item.read = true
                    if item.syncID != nil { item.syncReadPending = true }
                case .flag where !item.flagged:
                    item.flagged = true
                    if item.syncID != nil { item.syncFlagPending = true }
                case .markRead, .flag: break
                case .tag(let tag): item.setTag(tag, true)
                case .untag(let tag): item.setTag(tag, false)
                case .notify, .fullArticle, .exec, .ignore: break
                }
            }
            firings.append(
                Firing(
                    rule: compiled.rule,
                    item: Fields(
                        feed: server.url, id: item.guid, title: item.title, link: item.link, author: item.author,
                        published: item.published ?? item.updated)))
        }
        return firings
    }

    /// The rules of `rules` that act (an `ignore` rule is the killfile's, ``Killfile``),
    /// compiled; one that does not compile is left out, so one bad stored rule cannot stop
    /// refreshes (the config's are checked when it is read). Without `changingItems`, their
    /// `mark-read` and `flag` are left to ``applyChanges(_:in:)``.
    ///
    /// ```swift
    /// let acting = ItemRules.acting(config.itemRules + stored)   // changingItems: false in the reader
    /// ```
    public static func acting(_ rules: [Rule], changingItems: Bool = true) -> [CompiledRule] {
        rules.filter { !$0.isIgnore }.compactMap {
            guard var compiled = try? compile($0) else { return nil }
            compiled.changesItems = changingItems
            return compiled
        }
    }
}
