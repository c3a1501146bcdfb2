import Testing

@testable import Feeds

/// The one splitter of the command lines a user writes (exec: feeds, player, pipe,
/// bookmark-cmd, notify-program), and the one URL/long-word cutter of the article.
@Suite struct CommandWordsTests {
    @Test func splitsAsAShellWouldWithoutExpansions() {
        #expect(CommandWords.split(#"mpv --title "a b" 'c d'"#) == ["mpv", "--title", "a b", "c d"])
        #expect(CommandWords.split(#"sh -c 'cat > "$HOME/x"; echo $1'"#) == ["sh", "-c", #"cat > "$HOME/x"; echo $1"#])
        #expect(CommandWords.split(#"a\ b "c\"d" 'e\f'"#) == ["a b", #"c"d"#, #"e\f"#])
        #expect(CommandWords.split("  grep\t-i   x  ") == ["grep", "-i", "x"])
        #expect(CommandWords.split(#"echo "unclosed quote"#) == ["echo", "unclosed quote"])
        #expect(CommandWords.split("   ").isEmpty)
        #expect(CommandWords.split(#""""#) == [""])  // an empty argument, as a shell gives
    }

    @Test func cutsLongTextBetweenAnyTwoCharactersByDisplayWidth() {
        #expect(DisplayWidth.lines("https://example.org/a", width: 10) == ["https://ex", "ample.org/", "a"])
        #expect(DisplayWidth.lines("日本語", width: 4) == ["日本", "語"])
        #expect(DisplayWidth.lines("日", width: 1) == ["日"])  // too wide: a line of its own
        #expect(DisplayWidth.lines("", width: 5).isEmpty)
    }
}
