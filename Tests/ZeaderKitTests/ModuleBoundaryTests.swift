import Foundation
import Testing

/// The command line gets the reader's settings and notifier from ZeaderConfig; only the file
/// that opens the reader imports ZeaderTUI, so a command cannot come to depend on the reader.
@Suite struct ModuleBoundaryTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Whether a line of Swift imports `module`, in any of the language's forms: attributes
    /// (`@testable`, `@_exported`, `@preconcurrency`), an access level, a declaration kind
    /// (`import struct M.T`), a submodule (`import M.Sub`), after `;` on one line.
    static func imports(_ module: String, line: String) -> Bool {
        let pattern =
            #"(^|;)\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*((public|package|internal|fileprivate|private)\s+)?"#
            + #"(@[A-Za-z_]+\s+)*import\s+((typealias|struct|class|enum|protocol|let|var|func)\s+)?"#
            + NSRegularExpression.escapedPattern(for: module) + #"(\s|\.|;|//|/\*|$)"#
        return line.range(of: pattern, options: .regularExpression) != nil
    }

    @Test func theImportFormsAreRecognised() {
        let forms = [
            "import ZeaderTUI", "  import ZeaderTUI", "import\tZeaderTUI", "@testable import ZeaderTUI",
            "@_exported import ZeaderTUI", "@preconcurrency import ZeaderTUI", "public import ZeaderTUI",
            "internal import ZeaderTUI", "import struct ZeaderTUI.ReaderApp", "import ZeaderTUI.Screen",
            "import Foundation; import ZeaderTUI", "import ZeaderTUI // the reader", "import ZeaderTUI;",
        ]
        for form in forms { #expect(Self.imports("ZeaderTUI", line: form), "\(form)") }
        let others = [
            "import ZeaderTUIExtras", "import ZeaderKit", "/// import ZeaderTUI", "// import ZeaderTUI",
            "#if canImport(ZeaderTUI)", "let text = \"ZeaderTUI\"",
        ]
        for other in others { #expect(!Self.imports("ZeaderTUI", line: other), "\(other)") }
    }

    @Test func onlyTheReadersEntryPointImportsZeaderTUI() throws {
        let folder = Self.root.appendingPathComponent("Sources/zeader")
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder.path)
            .filter { $0.lowercased().hasSuffix(".swift") }
        #expect(files.contains("Zeader.swift"))
        var importing: [String] = []
        for file in files {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            if text.split(whereSeparator: \.isNewline).contains(where: { Self.imports("ZeaderTUI", line: String($0)) }) {
                importing.append(file)
            }
        }
        #expect(importing.sorted() == ["Zeader.swift"])
    }

    /// Every program Zeader starts goes through `Subprocess`, which closes inherited descriptors
    /// and resets signals; a `Process`, `posix_spawn`, `fork` or `exec` elsewhere would skip that.
    @Test func onlySubprocessStartsPrograms() throws {
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try FileManager.default.subpathsOfDirectory(atPath: sources.path).filter { $0.hasSuffix(".swift") }
        let pattern = #"(\bProcess\s*\(|\bposix_spawnp?\s*\(|\bfork\s*\(|\bexecv[pe]*\s*\()"#
        var starting: [String] = []
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            let code = text.split(whereSeparator: \.isNewline).filter {
                !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//")
            }
            if code.contains(where: { $0.range(of: pattern, options: .regularExpression) != nil }) {
                starting.append(file)
            }
        }
        #expect(files.contains("Feeds/Support/Subprocess.swift"))
        #expect(starting.sorted() == ["Feeds/Support/Subprocess.swift"])
    }
}
