/// newsboat's format directives: how the lists' rows and the title bar read
/// (``FormatString``), the item list's dates (``DateTimeFormat``) and the article's width.
///
/// ```text
/// feedlist-format     "%4i %n %11u %t"
/// articlelist-format  "%4i %f %D  %?T?|%-17T|  ?%t"
/// datetime-format     "%Y-%m-%d %H:%M"
/// text-width          72
/// ```
///
/// ```swift
/// let config = try ReaderConfig.parse("text-width 72", file: "config")
/// config.formats.textWidth  // 72
/// ```
public struct ListFormats: Equatable, Sendable {
    /// `feedlist-format`: one feed list row; nil keeps Zeader's own row.
    public var feedList: FormatString?
    /// `articlelist-format`: one item list row; nil keeps Zeader's own row.
    public var itemList: FormatString?
    /// `feedlist-title-format`: the feed list's title bar.
    public var feedListTitle: FormatString?
    /// `articlelist-title-format`: the item list's title bar.
    public var itemListTitle: FormatString?
    /// `itemview-title-format`: the article's title bar.
    public var articleTitle: FormatString?
    /// `searchresult-title-format`: the title bar of search results (else the item list's).
    public var searchResultTitle: FormatString?
    /// The title bars of the link list (`urlview-title-format`), the tag and filter pickers
    /// (`selecttag-title-format`, `selectfilter-title-format`), the list of open screens
    /// (`dialogs-title-format`) and help (`help-title-format`).
    public var urlViewTitle: FormatString?
    public var selectTagTitle: FormatString?
    public var selectFilterTitle: FormatString?
    public var dialogsTitle: FormatString?
    public var helpTitle: FormatString?
    /// `filebrowser-title-format`: the title bar while a prompt asks for a file to save to
    /// (Zeader's file browser), `%?O?Open File&Save File?` reading as saving.
    public var fileBrowserTitle: FormatString?
    /// `podlist-format`: one row of the podcast queue (podboat's fields); nil is podboat's default.
    public var podList: FormatString?
    /// `datetime-format`: the item list's dates; nil keeps `YYYY-MM-DD`.
    public var dateTime: DateTimeFormat?
    /// `text-width`: the article's widest line; 0 is the terminal's width.
    public var textWidth = 0
    /// `swap-title-and-hints`: the title bar at the bottom and the status line at the top.
    public var swapTitleAndHints = false

    public init() {}

    /// The field letters each format directive knows (newsboat's), for the config's warnings.
    static let fields: [String: Set<Character>] = [
        "feedlist-format": Set("dilLnStTuUc"),
        "articlelist-format": Set("aDfndFitTLe"),
        "feedlist-title-format": Set("NVTtuUF"),
        "articlelist-title-format": Set("NVTUutF"),
        "itemview-title-format": Set("NVTFut"),
        "searchresult-title-format": Set("NVut"),
        "urlview-title-format": Set("NV"), "selecttag-title-format": Set("NV"), "selectfilter-title-format": Set("NV"),
        "dialogs-title-format": Set("NV"), "help-title-format": Set("NV"),
        "filebrowser-title-format": Set("NVOf"), "podlist-format": Set("idtpkKSuFb"),
    ]

    /// The directives this file reads.
    static let directives: Set<String> = Set(fields.keys).union(["datetime-format", "text-width"])

    /// The article's wrapping width on a terminal `columns` wide.
    ///
    /// ```swift
    /// config.formats.articleWidth(terminalColumns: 120)  // 72 with `text-width 72`
    /// ```
    public func articleWidth(terminalColumns columns: Int) -> Int {
        textWidth > 0 ? min(textWidth, columns) : columns
    }
}

extension ReaderConfig {
    /// A format directive (``ListFormats/directives``); a field newsboat does not have, or a
    /// part the format cannot read, is a warning and the rest of the format is used.
    mutating func applyFormat(_ directive: String, _ arguments: [String], fail: (String) -> ReaderConfigError) throws {
        guard arguments.count == 1 else { throw fail("\(directive) needs one value (quote it)") }
        let value = arguments[0]
        switch directive {
        case "text-width":
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                throw fail("text-width needs a number of columns (0 = the terminal's width)")
            }
            // Wider than any terminal means the terminal's width.
            formats.textWidth = Int(value) ?? 0
        case "datetime-format":
            formats.dateTime = DateTimeFormat(value)
        default:
            let format = FormatString(value)
            for problem in format.problems { warnings.append(fail("\(directive): \(problem)")) }
            let known = ListFormats.fields[directive] ?? []
            let unknown = format.fields.subtracting(known).sorted()
            if !unknown.isEmpty {
                let names = unknown.map { "%\($0)" }.joined(separator: ", ")
                warnings.append(fail("\(directive): \(names) is not one of its fields (shown empty)"))
            }
            switch directive {
            case "feedlist-format": formats.feedList = format
            case "articlelist-format": formats.itemList = format
            case "feedlist-title-format": formats.feedListTitle = format
            case "articlelist-title-format": formats.itemListTitle = format
            case "searchresult-title-format": formats.searchResultTitle = format
            case "urlview-title-format": formats.urlViewTitle = format
            case "selecttag-title-format": formats.selectTagTitle = format
            case "selectfilter-title-format": formats.selectFilterTitle = format
            case "dialogs-title-format": formats.dialogsTitle = format
            case "help-title-format": formats.helpTitle = format
            case "filebrowser-title-format": formats.fileBrowserTitle = format
            case "podlist-format": formats.podList = format
            default: formats.articleTitle = format
            }
        }
    }
}
