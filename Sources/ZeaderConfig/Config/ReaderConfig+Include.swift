import Feeds
import Foundation

/// newsboat's `include FILE`: another file's lines read in place, as if written there. A
/// relative path is relative to the including file's folder, a leading `~` is the home
/// folder; a file that includes itself, directly or through others, is refused (an error
/// naming the chain); a missing file is a warning, so a config copied without its author's
/// extra files still starts the reader.
///
/// ```text
/// include ~/.config/newsboat/colors
/// include keys        # beside this file
/// ```
extension ReaderConfig {
    /// The path an `include` line names, resolved against the file that holds it.
    ///
    /// ```swift
    /// ReaderConfig.includedPath("keys", from: "/home/ada/.config/zeader/config")   // "/home/ada/.config/zeader/keys"
    /// ```
    static func includedPath(_ path: String, from file: String) -> String {
        let expanded = HomePath.expanding(path)
        if expanded.hasPrefix("/") { return (expanded as NSString).standardizingPath }
        let folder = (file as NSString).deletingLastPathComponent
        let base = folder.isEmpty ? FileManager.default.currentDirectoryPath : folder
        return ((base as NSString).appendingPathComponent(expanded) as NSString).standardizingPath
    }

    /// The same file under every name (a symbolic link, `..`), for finding a cycle.
    static func canonicalPath(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().standardizedFileURL.path
    }

    /// Reads the file an `include` line names into this config; `chain` holds the files
    /// being read, outermost first (the line's own file last).
    mutating func include(
        _ arguments: [String], chain: [String], fail: (String) -> ReaderConfigError, errors: inout [ReaderConfigError]
    ) throws {
        guard let file = chain.last else { return }
        // newsboat runs a command written in backticks; Zeader runs none from here.
        if arguments.contains(where: { $0.hasPrefix("`") }) {
            warnings.append(fail("include: Zeader does not run commands in backticks (line ignored)"))
            return
        }
        guard arguments.count == 1, !arguments[0].isEmpty else { throw fail("include needs one file (quote it)") }
        let path = Self.includedPath(arguments[0], from: file)
        let canonical = Self.canonicalPath(path)
        if chain.contains(where: { Self.canonicalPath($0) == canonical }) {
            throw fail("include \(path): the file includes itself (\((chain + [path]).joined(separator: " → ")))")
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            warnings.append(fail("include \(path): no such file (line ignored)"))
            return
        }
        guard !isFolder.boolValue, let data = FileManager.default.contents(atPath: path),
            let text = String(data: data, encoding: .utf8)
        else {
            warnings.append(fail("include \(path): cannot be read as UTF-8 text (line ignored)"))
            return
        }
        read(text, chain: chain + [path], errors: &errors)
    }
}
