import Foundation
import Testing

@testable import ZeaderConfig

/// Every form of newsboat config line that newsboat's manual names, written the ways people
/// write them: each directive's example line from the manual (Fixtures/newsboat-manual/
/// examples.config, made by scripts/newsboat-manual-names.py) with a comment after it, tabs,
/// indentation, quoted arguments, CRLF line ends and a byte order mark; every action bound with
/// `bind-key` in every view, with `bind` and in a macro; every key name; every colour, element
/// and attribute. Nothing newsboat loads stops the reader, what the compatibility table honours
/// gives no warning, and each way of writing a line reads the same as the plain one.
@Suite struct NewsboatConfigFormsTests {
    static let manualFolder = NewsboatCompatibilityTests.root.appendingPathComponent(
        "Tests/ZeaderKitTests/Fixtures/newsboat-manual")

    /// The manual's example line of each directive, in its order.
    static func exampleLines() throws -> [String] {
        let text = try String(contentsOf: manualFolder.appendingPathComponent("examples.config"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    /// Warnings that an honoured directive's example line rightly gives here: the manual's
    /// include names a file this machine lacks, and its urls-source a service Zeader does not speak.
    static func isExpectedWarning(_ problem: ConfigProblem, directive: String) -> Bool {
        switch directive {
        case "include": problem.problem.message.contains("no such file")
        case "urls-source": problem.problem.message.hasPrefix("urls-source ")
        default: false
        }
    }

    /// The errors among `problems`: the lines that would stop the reader.
    static func errors(_ problems: [ConfigProblem]) -> [ConfigProblem] { problems.filter { $0.isError } }

    /// The problems of `text` as the reader reads a file holding exactly these bytes.
    static func problems(ofBytes bytes: [UInt8], in folder: URL) throws -> [ConfigProblem] {
        let file = folder.appendingPathComponent("config")
        try Data(bytes).write(to: file)
        return ReaderConfig.check(at: file).map {
            // The file's path is the same for every form; only what is wrong and where matters.
            ConfigProblem(
                isError: $0.isError, ReaderConfigError(file: "config", line: $0.problem.line, message: $0.problem.message))
        }
    }

    static func config(ofBytes bytes: [UInt8], in folder: URL) throws -> ReaderConfig {
        let file = folder.appendingPathComponent("config")
        try Data(bytes).write(to: file)
        var config = try ReaderConfig.load(from: file)
        config.warnings = []
        return config
    }

    // MARK: - Directives

    /// `line` written another way with the same meaning, as people write it.
    static func variants(of line: String) -> [(form: String, text: String)] {
        let words = (try? ReaderConfig.tokenize(line).get()) ?? []
        let quoted = words.dropFirst().map {
            "\"" + $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        }
        let quotedArguments = (words.prefix(1) + quoted).joined(separator: " ")
        return [
            ("a comment after it", line + "   # the manual's example"),
            ("a comment with no space", line + " #example"),
            (
                "a tab between directive and value",
                line.replacingOccurrences(of: " ", with: "\t", options: [], range: line.range(of: " "))
            ),
            ("indented", "  \t" + line),
            ("trailing blanks", line + " \t "),
            ("every argument quoted", quotedArguments),
        ]
    }

    @Test func everyDirectiveOfTheManualLoadsAsNewsboatWritesIt() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = try Self.exampleLines()
        #expect(lines.count >= 150)
        var honouredClean = 0
        for line in lines {
            let directive = String(line.prefix { !$0.isWhitespace })
            let support = try #require(NewsboatCompatibility.directive(directive), "\(directive) is not in the table")
            let problems = try Self.problems(ofBytes: Array((line + "\n").utf8), in: folder)
            #expect(Self.errors(problems).isEmpty, "\(line): \(problems)")
            if support.isHonoured {
                let unexpected = problems.filter { !Self.isExpectedWarning($0, directive: directive) }
                #expect(unexpected.isEmpty, "honoured \(line): \(unexpected)")
                if unexpected.isEmpty { honouredClean += 1 }
            } else {
                #expect(problems.count == 1, "\(line): \(problems)")
            }
            let plain = try Self.config(ofBytes: Array((line + "\n").utf8), in: folder)
            for (form, text) in Self.variants(of: line) {
                #expect(try Self.problems(ofBytes: Array((text + "\n").utf8), in: folder) == problems, "\(form): \(text)")
                #expect(try Self.config(ofBytes: Array((text + "\n").utf8), in: folder) == plain, "\(form): \(text)")
            }
        }
        let honoured = lines.filter {
            NewsboatCompatibility.directive(String($0.prefix { !$0.isWhitespace }))?.isHonoured == true
        }
        print("newsboat manual forms: \(honouredClean) of \(honoured.count) honoured directives' examples read without a warning")
    }

    /// The whole list as one file with CRLF line ends, or a byte order mark, or no newline at
    /// the end: the same problems on the same lines, the same settings.
    @Test func lineEndsAndAByteOrderMarkChangeNothing() throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let lines = try Self.exampleLines().filter { !$0.hasPrefix("include ") }
        let plainBytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let problems = try Self.problems(ofBytes: plainBytes, in: folder)
        let config = try Self.config(ofBytes: plainBytes, in: folder)
        let forms: [(String, [UInt8])] = [
            ("CRLF", Array((lines.joined(separator: "\r\n") + "\r\n").utf8)),
            ("byte order mark", [0xEF, 0xBB, 0xBF] + plainBytes),
            ("byte order mark and CRLF", [0xEF, 0xBB, 0xBF] + Array((lines.joined(separator: "\r\n") + "\r\n").utf8)),
            ("no newline at the end", Array(lines.joined(separator: "\n").utf8)),
        ]
        for (form, bytes) in forms {
            #expect(try Self.problems(ofBytes: bytes, in: folder) == problems, "\(form)")
            #expect(try Self.config(ofBytes: bytes, in: folder) == config, "\(form)")
        }
    }

    /// A value with spaces written unquoted: newsboat reads its first word, and so does Zeader,
    /// with a warning saying so; the reader starts.
    @Test func anUnquotedValueIsItsFirstWordAsNewsboatReadsIt() throws {
        for line in try Self.exampleLines() {
            let directive = String(line.prefix { !$0.isWhitespace })
            let words = (try? ReaderConfig.tokenize(line).get()) ?? []
            guard words.count == 2, words[1].contains(" "), ReaderConfig.takesOneValue(directive) else { continue }
            let unquoted = directive + " " + words[1]
            let problems = ReaderConfig.check(unquoted, file: "config")
            #expect(Self.errors(problems).isEmpty, "\(unquoted): \(problems)")
            #expect(problems.contains { $0.problem.message.contains("takes one value") }, "\(unquoted): \(problems)")
            let first = words[1].split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
            let asNewsboat = try ReaderConfig.parse(directive + " \"" + first + "\"", file: "config")
            var read = try ReaderConfig.parse(unquoted, file: "config")
            read.warnings = asNewsboat.warnings
            #expect(read == asNewsboat, "\(unquoted)")
        }
    }

    /// Every line of accepted-by-newsboat.config (made by scripts/newsboat-accepted-forms.py:
    /// the forms above, and real configs' idioms, that newsboat itself loads) starts the reader.
    @Test func everyLineNewsboatLoadsStartsTheReader() throws {
        let text = try String(
            contentsOf: Self.manualFolder.appendingPathComponent("accepted-by-newsboat.config"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
        #expect(lines.count >= 400)
        var silent = 0
        for line in lines {
            let problems = ReaderConfig.check(line, file: "config")
            #expect(Self.errors(problems).isEmpty, "\(line): \(problems)")
            if problems.isEmpty { silent += 1 }
        }
        print("lines newsboat loads: \(lines.count) start the reader, \(silent) with no warning")
    }

    // MARK: - Actions and views

    /// newsboat's views of `bind-key` (its manual's "dialogs") and of newer versions.
    static let views = [
        "all", "feedlist", "filebrowser", "help", "articlelist", "article", "tagselection", "filterselection", "urlview",
        "podboat", "dirbrowser", "searchresultslist", "dialogs",
    ]

    @Test func everyActionBindsInEveryViewAndInAMacro() throws {
        let actions = try NewsboatCompatibilityTests.manualNames().filter { $0.kind == "action" }.map(\.name)
        #expect(actions.count >= 80)
        for action in actions {
            let honoured = NewsboatCompatibility.action(action)?.isHonoured == true
            for view in Self.views {
                for line in ["bind-key x \(action) \(view)", "bind x \(view) \(action)"] {
                    let problems = ReaderConfig.check(line, file: "config")
                    #expect(Self.errors(problems).isEmpty, "\(line): \(problems)")
                    // Zeader has no file or folder browser: such a line is one warning.
                    let expected = honoured && !["filebrowser", "dirbrowser"].contains(view) ? 0 : 1
                    #expect(problems.count == expected, "\(line): \(problems)")
                }
            }
            for line in ["bind-key ^X \(action)", "macro x \(action)", "macro ^X \(action) -- \"\(action)\""] {
                let problems = ReaderConfig.check(line, file: "config")
                #expect(Self.errors(problems).isEmpty, "\(line): \(problems)")
                #expect(problems.count == (honoured ? 0 : 1), "\(line): \(problems)")
            }
        }
    }

    // MARK: - Keys

    /// Every key name of newsboat's manual, `^A` to `^Z`, and every printable character.
    static let keyNames: [String] =
        [
            "ENTER", "BACKSPACE", "LEFT", "RIGHT", "UP", "DOWN", "PPAGE", "NPAGE", "HOME", "END", "ESC", "TAB", "SPACE",
        ] + (1...12).map { "F\($0)" } + (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { "^" + String(UnicodeScalar($0)) }
        + (UInt8(ascii: "!")...UInt8(ascii: "~")).map { String(UnicodeScalar($0)) }

    /// `#` and `"` only quoted, as newsboat reads them; every other key as written.
    static func written(_ key: String) -> String {
        switch key {
        case "#": "\"#\""
        case "\"": "\"\\\"\""
        default: key
        }
    }

    @Test func everyKeyNameBindsUnbindsAndTakesAMacro() throws {
        for name in Self.keyNames {
            let key = try #require(Key(name: name), "\(name) names no key")
            let written = Self.written(name)
            let bound = ReaderConfig.check("bind-key \(written) open-in-browser articlelist", file: "config")
            #expect(bound.isEmpty, "bind-key \(name): \(bound)")
            let config = try ReaderConfig.parse(
                "unbind-key \(written)\nbind-key \(written) open-in-browser articlelist\nmacro \(written) reload ; open",
                file: "config")
            #expect(config.warnings.isEmpty, "\(name): \(config.warnings)")
            #expect(config.keyMap.action(for: key, in: .articlelist) == .openInBrowser, "\(name)")
            #expect(config.keyMap.action(for: key, in: .feedlist) == nil, "\(name)")
            #expect(config.articleCommands.macros[key] == [.action(.refreshFeed), .action(.open)], "\(name)")
        }
    }

    /// A key name newsboat takes and Zeader does not know (curses' other names, a newer
    /// newsboat's) loses only its own line, with a warning naming it.
    @Test func anUnknownKeyNameIsAWarning() throws {
        for line in [
            "bind-key F13 quit", "bind-key BTAB quit article", "unbind-key KEY_IC", "macro ^? open", "bind F99 all open",
        ] {
            let problems = ReaderConfig.check(line + "\nmax-items 50", file: "config")
            #expect(problems.count == 1 && !problems[0].isError, "\(line): \(problems)")
            #expect(problems.first?.problem.message.contains("unknown key") == true, "\(line): \(problems)")
            #expect(try ReaderConfig.parse(line + "\nrefresh-interval 5", file: "config").refreshIntervalMinutes == 5)
        }
    }

    // MARK: - Colours

    static let colorElements = [
        "background", "listnormal", "listfocus", "listnormal_unread", "listfocus_unread", "info", "article",
        "end-of-text-marker", "title", "hint-key", "hint-keys-delimiter", "hint-separator", "hint-description",
    ]
    static let colorNames =
        ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white", "default", "color0", "color123", "color255"]
    static let attributes = ["standout", "underline", "reverse", "blink", "dim", "bold", "protect", "invis"]

    @Test func everyColorElementColourAndAttributeIsRead() {
        for element in Self.colorElements {
            for (index, foreground) in Self.colorNames.enumerated() {
                let background = Self.colorNames[(index + 3) % Self.colorNames.count]
                let attribute = Self.attributes[index % Self.attributes.count]
                for line in [
                    "color \(element) \(foreground) \(background)",
                    "color \(element) \(foreground) \(background) \(attribute)",
                    "color \(element) \(foreground) \(background) \(attribute) bold underline",
                    "color\t\"\(element)\"\t\"\(foreground)\"  \"\(background)\"  # a comment",
                    "highlight all \"[[:alpha:]]+\" \(foreground) \(background) \(attribute)",
                ] {
                    let problems = ReaderConfig.check(line, file: "config")
                    #expect(problems.isEmpty, "\(line): \(problems)")
                }
            }
        }
    }

    /// A colour line of a newer newsboat (an element, colour or attribute Zeader does not
    /// know) loses only its own line.
    @Test func anUnknownColourWordIsAWarning() throws {
        for line in [
            "color listnormal_unread_flagged red default", "color info red default italic", "color article color256 default",
        ] {
            let problems = ReaderConfig.check(line + "\nmax-items 50", file: "config")
            #expect(problems.count == 1 && !problems[0].isError, "\(line): \(problems)")
        }
    }

    // MARK: - Regular expressions

    /// newsboat's patterns are POSIX's (glibc's regcomp): what glibc accepts compiles here
    /// and matches the same text.
    @Test func highlightPatternsAsGlibcReadsThem() throws {
        let cases: [(pattern: String, matches: String, not: String)] = [
            (".*(0/0))", "feed (0/0)", "feed (0/1"),
            ("\\<rss\\>", "an rss feed", "rsses"),
            ("[]x]", "a]", "ab"),
            ("[\\]", "a\\b", "ab"),
            ("a{", "xa{", "xa"),
            ("*new", "*new*", "new"),
            ("^+1", "+1 vote", "1 vote"),
            ("[[:digit:]]{4}", "in 2026", "in 26"),
            ("x{2,}", "axxb", "axb"),
        ]
        for (pattern, matches, not) in cases {
            let rule: HighlightRule
            switch HighlightRule.parse(["all", pattern, "red"]) {
            case .success(let parsed): rule = parsed
            case .failure(let error):
                Issue.record("\(pattern): \(error.message)")
                continue
            }
            func found(_ text: String) -> Bool {
                rule.matcher.regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            }
            #expect(found(matches), "\(pattern) should find \(matches)")
            #expect(!found(not), "\(pattern) should not find \(not)")
        }
    }

    private func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("zeader-forms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
