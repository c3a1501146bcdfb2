import Foundation
import ZeaderKit

/// podboat's directives (newsboat's `config`, or podboat's own), read as far as `zeader podcasts`
/// can follow them, and `urls-source`, which says where newsboat's feeds come from:
///
/// ```text
/// max-downloads 3              # zeader podcasts download's --jobs default (1 to 16)
/// delete-played-files yes      # zeader podcasts remove deletes the downloaded file too
/// download-filename-format "%F-%t.%e"   # podboat's placeholders; one safe file name
/// urls-source miniflux         # a warning: zeader sync add speaks its Google Reader API
/// ```
///
/// ```swift
/// let config = try ReaderConfig.parse("max-downloads 3\n", file: "config")
/// config.podcasts.maxDownloads   // 3
/// ```
extension ReaderConfig {
    /// The directives ``applyPodboat(_:_:fail:)`` reads.
    static let podboatDirectives: Set<String> = [
        "download-path", "podcast-max-size", "player", "max-downloads", "delete-played-files",
        "download-filename-format", "urls-source",
    ]

    /// newsboat's `urls-source` values for services with a Google Reader API, which `zeader sync add` speaks.
    static let googleReaderSources: Set<String> = ["freshrss", "miniflux", "inoreader", "oldreader", "feedhq"]

    /// A podboat directive or `urls-source`: applied, a warning for what Zeader does not follow,
    /// or an error for a value no setting could have.
    mutating func applyPodboat(_ directive: String, _ arguments: [String], fail: (String) -> ReaderConfigError) throws {
        func yesNo() throws -> Bool {
            guard arguments.count == 1 else { throw fail("\(directive) needs yes or no") }
            switch arguments[0].lowercased() {
            case "yes", "true": return true
            case "no", "false": return false
            default: throw fail("\(directive) needs yes or no")
            }
        }
        switch directive {
        case "max-downloads":
            guard arguments.count == 1, let value = Int(arguments[0]) else {
                throw fail("max-downloads needs a number from 1 to 16")
            }
            let kept = min(max(value, 1), 16)
            if kept != value { warnings.append(fail("max-downloads \(value) is outside 1–16; \(kept) is used")) }
            podcasts.maxDownloads = kept
        case "delete-played-files":
            podcasts.deletePlayedFiles = try yesNo()
        case "download-filename-format":
            guard arguments.count == 1 else { throw fail("download-filename-format needs one format (quote it)") }
            podcasts.fileNameFormat = arguments[0].isEmpty ? nil : arguments[0]
        case "urls-source":
            guard arguments.count == 1 else { throw fail("urls-source needs one source") }
            let source = arguments[0].lowercased()
            if source == "local" { return }
            if Self.googleReaderSources.contains(source) {
                warnings.append(
                    fail(
                        "urls-source \(source): Zeader reads the feeds from its store; to sync them with \(source), run `zeader sync add API_URL --user NAME` (its Google Reader API) (line ignored)"
                    ))
            } else {
                warnings.append(
                    fail(
                        "urls-source \(source): Zeader does not speak \(source)'s API (it syncs with Google Reader API services: FreshRSS, Miniflux, Inoreader, The Old Reader; see zeader sync add) (line ignored)"
                    ))
            }
        default:
            do { _ = try podcasts.apply(directive, arguments) } catch { throw fail(error.message) }
        }
    }
}
