import Foundation
import Testing

@testable import Feeds

/// The fast paths of a feed's parse: each gives what the plain code gave (the expected
/// values here were produced by the byte-by-byte implementations they replaced).
@Suite struct ParseFastPathTests {
    /// Links in HTML with odd quoting and spacing, tags cut off at the end, `<` that opens
    /// no tag, quotes and `>` inside values: the memchr-driven scan finds what the
    /// byte-by-byte one found.
    @Test func resolvesLinksInOddlyQuotedHTML() {
        let cases: [(String, String)] = [
            ("<a href=\"x", "<a href=\"https://x.example/a/x"),
            ("<a href=\'/y>z\'>t</a>", "<a href=\'https://x.example/y%3Ez\'>t</a>"),
            ("<a href=/p>q</a>", "<a href=https://x.example/p>q</a>"),
            ("<a href = \" r \" >", "<a href = \"https://x.example/a/r\" >"),
            ("a < b = c <1 href=\"s\"> <a", "a < b = c <1 href=\"s\"> <a"),
            ("<a href=", "<a href="),
            ("<a href", "<a href"),
            (
                "<img src=\"u\" src=\'v\' data=w/>",
                "<img src=\"https://x.example/a/u\" src=\'https://x.example/a/v\' data=https://x.example/a/w/>"
            ),
            ("<A HREF=\'x\"y\'>", "<A HREF=\'https://x.example/a/x%22y\'>"),
            ("<a title=\"<a href=\'z\'>\" href=\"q\">", "<a title=\"<a href=\'z\'>\" href=\"https://x.example/a/q\">"),
            ("x=y no tags", "x=y no tags"),
            ("<p class=c><a  href  =  k>", "<p class=c><a  href  =  https://x.example/a/k>"),
            ("<a href=\"http://abs/\">", "<a href=\"http://abs/\">"),
            ("<a href=\"?q\">", "<a href=\"https://x.example/a/b?q\">"),
            ("<a href=\"//h/p\">", "<a href=\"https://h/p\">"),
            ("<a/href=\"n\">", "<a/href=\"n\">"),
            ("<a href=\"é\">", "<a href=\"https://x.example/a/é\">"),
            ("<a href=\"a b>c\">", "<a href=\"https://x.example/a/a%20b%3Ec\">"),
            ("<a\thref=\"t\"\n>", "<a\thref=\"https://x.example/a/t\"\n>"),
            ("", ""),
        ]
        for (html, expected) in cases {
            let resolved = FeedURLResolver.resolvingLinks(inHTML: Array(html.utf8), against: "https://x.example/a/b")
            #expect(String(decoding: resolved, as: UTF8.self) == expected, "\(html)")
        }
    }
}
