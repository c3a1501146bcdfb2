import ZeaderKit

/// How the article view shows pictures, from the config file.
///
/// ```text
/// image-display auto        # auto (ask the terminal), kitty, sixel, iterm, symbols or none
/// image-viewer "feh %u"     # opens an image from the link list (U); else the browser
/// image-cache-size 50M      # the disk cache's cap ($XDG_CACHE_HOME/zeader/images); 0 = no cache
/// ```
///
/// ```swift
/// var settings = PictureSettings()
/// _ = try settings.apply("image-display", ["sixel"])   // settings.display == .sixel
/// ```
public struct PictureSettings: Sendable, Equatable {
    /// `image-display`: how pictures are drawn.
    public enum Display: String, Sendable, CaseIterable {
        /// The best the terminal answers it can do: kitty, sixel, iTerm2, else symbols.
        case auto
        case kitty
        case sixel
        case iterm
        /// Coloured Unicode mosaics, in any terminal with colour.
        case symbols
        /// Only the `[image: alt]` line.
        case none
    }

    /// `image-display`; `auto` by default.
    public var display = Display.auto
    /// `image-viewer`: a command line run as `browser` is (`%u`, the image's URL, quoted for the
    /// shell); nil: the browser opens images.
    public var viewer: String?
    /// `image-cache-size`: the most bytes the disk cache of pictures keeps.
    public var cacheBytes: Int64 = 50_000_000

    /// The directives this type reads.
    public static let directives: Set<String> = ["image-display", "image-viewer", "image-cache-size"]

    /// The defaults.
    public init() {}

    /// Applies one of ``directives``; returns false for another directive, throws a message for a
    /// bad argument.
    ///
    /// ```swift
    /// _ = try settings.apply("image-viewer", ["feh %u"])
    /// ```
    public mutating func apply(_ directive: String, _ arguments: [String]) throws(PictureSettingsError) -> Bool {
        switch directive {
        case "image-display":
            let names = Display.allCases.map(\.rawValue)
            guard arguments.count == 1, let display = Display(rawValue: arguments[0].lowercased()) else {
                throw .badDisplay(arguments.joined(separator: " "), choices: names)
            }
            self.display = display
        case "image-viewer":
            // Unquoted words are one command, as `browser` reads them.
            guard !arguments.isEmpty, !arguments.joined().allSatisfy(\.isWhitespace) else { throw .viewerNeedsCommand }
            viewer = arguments.joined(separator: " ")
        case "image-cache-size":
            guard arguments.count == 1, let size = ByteCount.parse(arguments[0]), size >= 0 else {
                throw .badCacheSize(arguments.joined(separator: " "))
            }
            cacheBytes = size
        default:
            return false
        }
        return true
    }
}

/// A bad picture directive: what was wrong, worded by ``message``.
///
/// ```swift
/// PictureSettingsError.viewerNeedsCommand.message  // "image-viewer needs a command"
/// ```
public enum PictureSettingsError: Error, Equatable, Sendable {
    case badDisplay(String, choices: [String])
    case viewerNeedsCommand
    case badCacheSize(String)

    /// The line the config check prints.
    public var message: String {
        switch self {
        case .badDisplay(let given, let choices):
            "image-display needs one of \(choices.joined(separator: ", ")) (not '\(given)')"
        case .viewerNeedsCommand:
            "image-viewer needs a command"
        case .badCacheSize(let given):
            "image-cache-size needs a size in bytes, or with K, M or G (50M), 0 for no cache (not '\(given)')"
        }
    }
}
