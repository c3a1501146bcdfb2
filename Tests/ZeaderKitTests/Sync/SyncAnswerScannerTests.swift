import Foundation
import Testing

@testable import ZeaderKit

/// Fever's and Tiny Tiny RSS's answers read from their bytes (``FeverAnswerScanner``,
/// ``TTRSSHeadlineScanner``) against the `Decodable` types they stand in for: answers recorded
/// from the real servers (FreshRSS's Fever API, Debian's tt-rss) read from the bytes and alike,
/// and hostile variants (wrong types, missing or doubled members, huge and odd numbers,
/// escapes, bytes that are not UTF-8, cut answers) giving the client what JSONDecoder gave:
/// the same answer or the same ``SyncError``.
@Suite("Sync: Fever and Tiny Tiny RSS answers read from their bytes")
struct SyncAnswerScannerTests {
    static func fixture(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/sync-answers/\(name)", withExtension: "json"))
        return try Data(contentsOf: url)
    }

    /// What Fever's client makes of `body`: the answer or the error, as text.
    static func fever(_ body: Data, scanning: Bool) -> String {
        do {
            return String(reflecting: try FeverClient.answer(body, request: "items", scanning: scanning))
        } catch {
            return "error: \(String(reflecting: error))"
        }
    }

    /// What TT-RSS's client makes of `body` as headlines (only their ids and feeds with
    /// `idsOnly`, whichever way they were read): the answer or the error, as text.
    static func ttrss(_ body: Data, idsOnly: Bool, scanning: Bool) -> String {
        do {
            let envelope = try TTRSSClient.envelope(
                body, op: "getHeadlines", as: [TTRSSClient.Headline].self, idsOnly: idsOnly, scanning: scanning)
            if idsOnly, case .content(let rows?) = envelope {
                return String(reflecting: rows.map { [$0.id, $0.feedID] })
            }
            return String(reflecting: envelope)
        } catch {
            return "error: \(String(reflecting: error))"
        }
    }

    @Test(arguments: ["fever-items", "fever-items-with-ids", "fever-unread-item-ids", "fever-saved-item-ids", "fever-auth-0"])
    func feversRealAnswersReadFromTheirBytesAsJSONDecoderReadsThem(name: String) throws {
        let body = try Self.fixture(name)
        #expect(FeverAnswerScanner.scan(body) != nil, "not read from the bytes")
        #expect(Self.fever(body, scanning: true) == Self.fever(body, scanning: false))
    }

    @Test func feversRealItemsKeepEveryMember() throws {
        let answer = try #require(FeverAnswerScanner.scan(try Self.fixture("fever-items")))
        let items = try #require(answer.items)
        #expect(answer.auth == 1 && items.count == 16)
        #expect(items[0].title == "Café “quoted” \"double\" ＆amp; ampersand" && items[0].isRead?.value == 1)
        #expect(items[1].title == "Emoji 😀 and tab\tand back\\slash" && items[1].isSaved?.value == 1)
        #expect(items[1].author == "ann@example.org (Ann “A” Ö)" && items[0].author == "")
        #expect(items[0].html?.hasPrefix("<p>Item 0 of feed 0: a <b>bold</b>") == true)
        #expect(items[0].url?.hasSuffix("/f0/0?a=1&b=2") == true && items[0].feedID?.value == 1)
        #expect(items[0].createdOnTime?.value == 1_795_392_000 && (items[0].id.value ?? 0) > 1_700_000_000_000_000)
    }

    /// Feeds and groups (one answer a sync) are left to JSONDecoder.
    @Test func feversFeedsAndGroupsAreDecodedByJSONDecoder() throws {
        let body = try Self.fixture("fever-feeds-groups")
        #expect(FeverAnswerScanner.scan(body) == nil)
        #expect(Self.fever(body, scanning: true) == Self.fever(body, scanning: false))
    }

    @Test(arguments: ["ttrss-headlines-contents", "ttrss-headlines-unread", "ttrss-headlines-starred", "ttrss-article"])
    func ttrssRealHeadlinesReadFromTheirBytesAsJSONDecoderReadsThem(name: String) throws {
        let body = try Self.fixture(name)
        for idsOnly in [false, true] {
            #expect(TTRSSHeadlineScanner.scan(body, idsOnly: idsOnly) != nil, "not read from the bytes")
            #expect(Self.ttrss(body, idsOnly: idsOnly, scanning: true) == Self.ttrss(body, idsOnly: idsOnly, scanning: false))
        }
    }

    @Test func ttrssRealHeadlinesKeepEveryMemberAndIDsOnlyNoOther() throws {
        let body = try Self.fixture("ttrss-headlines-contents")
        guard case .content(let rows?) = TTRSSHeadlineScanner.scan(body, idsOnly: false),
            case .content(let ids?) = TTRSSHeadlineScanner.scan(body, idsOnly: true)
        else {
            Issue.record("not read")
            return
        }
        #expect(rows.count == 16 && ids.count == 16)
        #expect(rows[0].id == 8 && rows[0].feedID == 1 && rows[0].title == "Eight" && rows[0].updated == 1_795_417_200)
        #expect(rows[0].unread == false && rows[0].marked == false && rows[1].unread == true && rows[1].marked == true)
        #expect(rows[0].author == "ann@example.org (Ann “A” Ö)" && rows[0].content?.contains("&ldquo;quotes") == true)
        #expect(ids.map(\.id) == rows.map(\.id) && ids.map(\.feedID) == rows.map(\.feedID))
        #expect(ids.allSatisfy { $0.title == nil && $0.content == nil && $0.unread == nil && $0.updated == nil })
    }

    /// The client's decode takes the bytes' way for headlines: read for their ids only,
    /// the rows hold nothing else (JSONDecoder's would hold their titles).
    @Test func theClientReadsHeadlinesFromTheirBytes() throws {
        let body = try Self.fixture("ttrss-headlines-unread")
        let envelope = try TTRSSClient.envelope(body, op: "getHeadlines", as: [TTRSSClient.Headline].self, idsOnly: true)
        guard case .content(let rows?) = envelope else {
            Issue.record("no rows")
            return
        }
        #expect(!rows.isEmpty && rows.allSatisfy { $0.id != nil && $0.title == nil })
    }

    @Test func ttrssErrorsAreDecodedByJSONDecoder() throws {
        let body = try Self.fixture("ttrss-not-logged-in")
        #expect(TTRSSHeadlineScanner.scan(body, idsOnly: false) == nil)
        #expect(Self.ttrss(body, idsOnly: false, scanning: true) == Self.ttrss(body, idsOnly: false, scanning: false))
        #expect(Self.ttrss(body, idsOnly: false, scanning: true).contains("NOT_LOGGED_IN"))
    }

    // MARK: - Hostile variants

    /// Values put in place of a member's: every kind, numbers JSON allows and does not,
    /// escapes, half a surrogate pair, a raw control character, bytes that are not UTF-8.
    static let hostileValues: [[UInt8]] =
        [
            #""12""#, "12", "0", "-1", "-0", "01", "1.5", "1e3", "1E400", "-1e-400", "99999999999999999999",
            "18446744073709551615", "18446744073709551616", "9223372036854775808", "1.", ".5", "+1", "1-2", "0x10",
            "true", "false", "null", "nul", "tru", "{}", "[]", "[1,2]", #"{"a":1}"#, #"{"a":}"#, "[1,]", #""""#,
            #""  7""#, #""t""#, #""TRUE""#, #""f""#, #""1""#, #""0""#, #""yes""#, #""\u00e9\ud83d\ude00 \/ \"q\"""#,
            #""\ud800""#, #""\udc00x""#, #""\ud800\u0041""#, #""a\u0000b""#, #""\x""#, #""\u12""#, #""\u12g4""#,
            "\"tab\there\"", "\"unterminated", String(repeating: "[", count: 100) + String(repeating: "]", count: 100),
        ].map { Array($0.utf8) } + [
            [0x22, 0xFF, 0x22], [0x22, 0x61, 0xC3, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xC3, 0xA9, 0x22],
        ]

    /// Documents made from `prefix`, members `key:value` (each key's value replaced, removed
    /// or doubled in turn) and `suffix`, and `prefix` + `members` + `suffix` cut short.
    static func variants(prefix: String, members: [(String, String)], suffix: String) -> [[UInt8]] {
        func document(_ parts: [(String, [UInt8])]) -> [UInt8] {
            var bytes = Array(prefix.utf8)
            for (index, (key, value)) in parts.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                bytes += Array("\"\(key)\":".utf8) + value
            }
            return bytes + Array(suffix.utf8)
        }
        let plain = members.map { ($0.0, Array($0.1.utf8)) }
        var documents = [document(plain)]
        for index in plain.indices {
            for value in hostileValues {
                var parts = plain
                parts[index].1 = value
                documents.append(document(parts))
            }
            var removed = plain
            removed.remove(at: index)
            documents.append(document(removed))
            documents.append(document(plain + [plain[index]]))
            documents.append(document(plain + [(plain[index].0, Array("null".utf8))]))
        }
        for value in hostileValues { documents.append(document(plain + [("extra", value)])) }
        let whole = document(plain)
        for cut in 0..<whole.count { documents.append(Array(whole[..<cut])) }
        return documents
    }

    static let feverItem: [(String, String)] = [
        ("id", #""1796641869240739""#), ("feed_id", "1"), ("title", #""Caf\u00e9""#), ("author", #""""#),
        ("html", #""<p>x<\/p>""#), ("url", #""http:\/\/127.0.0.1\/f0\/0""#), ("is_saved", "0"), ("is_read", "1"),
        ("created_on_time", "1795392000"),
    ]

    @Test func hostileFeverItemsGiveWhatJSONDecoderGave() {
        let documents =
            Self.variants(prefix: #"{"api_version":3,"auth":1,"items":[{"id":"5"},{"#, members: Self.feverItem, suffix: "}]}")
            + Self.variants(
                prefix: "{",
                members: [("auth", "1"), ("items", "[]"), ("unread_item_ids", #""1,2""#), ("saved_item_ids", #""3""#)],
                suffix: "}")
            + ["", "[]", "null", " {\"auth\":1} ", "\u{FEFF}{\"auth\":1}", "{\"auth\":1} x", "{\"auth\":1,}"].map {
                Array($0.utf8)
            }
        var differ: [String] = []
        for document in documents {
            let body = Data(document)
            let scanned = Self.fever(body, scanning: true)
            let decoded = Self.fever(body, scanning: false)
            if scanned != decoded { differ.append("\(String(decoding: document, as: UTF8.self)):\n  \(scanned)\n  \(decoded)") }
        }
        #expect(differ.isEmpty, "\(differ.count) of \(documents.count) differ:\n\(differ.prefix(5).joined(separator: "\n"))")
    }

    static let ttrssRow: [(String, String)] = [
        ("id", "8"), ("guid", #""{\"ver\":2}""#), ("unread", "false"), ("marked", "true"), ("updated", "1795417200"),
        ("title", #""Eight \u201c""#), ("link", #""http:\/\/127.0.0.1\/f0\/7""#), ("feed_id", "1"), ("tags", #"[""]"#),
        ("content", #""<p>x<\/p>""#), ("author", #""ann""#), ("note", "null"),
    ]

    @Test func hostileTTRSSHeadlinesGiveWhatJSONDecoderGave() {
        let documents =
            Self.variants(
                prefix: #"{"seq":0,"status":0,"content":[{"id":5,"feed_id":1},{"#, members: Self.ttrssRow, suffix: "}]}")
            + Self.variants(
                prefix: "{", members: [("seq", "0"), ("status", "0"), ("content", #"[{"id":1,"feed_id":2}]"#)], suffix: "}")
            + [
                "", "[]", "null", #"{"status":0,"content":[7,null,"x",[]]}"#, #"{"status":1,"content":{"error":"API_DISABLED"}}"#,
                #"{"content":[],"status":0}"#, #"{"status":0,"content":[]} x"#, "\u{FEFF}{\"status\":0,\"content\":[]}",
            ].map { Array($0.utf8) }
        var differ: [String] = []
        for document in documents {
            let body = Data(document)
            for idsOnly in [false, true] {
                let scanned = Self.ttrss(body, idsOnly: idsOnly, scanning: true)
                let decoded = Self.ttrss(body, idsOnly: idsOnly, scanning: false)
                if scanned != decoded {
                    differ.append("\(idsOnly) \(String(decoding: document, as: UTF8.self)):\n  \(scanned)\n  \(decoded)")
                }
            }
        }
        #expect(differ.isEmpty, "\(differ.count) of \(documents.count * 2) differ:\n\(differ.prefix(5).joined(separator: "\n"))")
    }

    /// Keys are compared from their bytes when they are plain ASCII: a key spelled with
    /// escapes (`"\u0069d"` is `id`), not UTF-8, or with half a surrogate pair reads as
    /// JSONDecoder reads it, and so do skipped values with escapes; a key one byte shorter or
    /// longer than a name is another key.
    @Test func keysWithEscapesOrOtherBytesGiveWhatJSONDecoderGave() {
        let keys: [[UInt8]] =
            [
                #"\u0069d"#, #"feed\u005fid"#, #"t\u0069tle"#, #"\u0063ontent"#, #"is_r\u0065ad"#, #"\u0073tatus"#,
                #"\u0061uth"#, #"it\u0065ms"#, #"i\/d"#, #"\ud800id"#, #"\x"#, #"id\"#, "", "ID", "id ", "caf\u{E9}", "i", "idx",
                "feed_i",
                "feed_idd", "titl", "contents", "statu", "items_",
            ].map { Array($0.utf8) } + [[0x69, 0x64, 0xFF], [0x66, 0xC3, 0x22]]
        let values = ["7", #""8""#, #""a\"b\\c\/d\u00e9\ud83d\ude00""#, #""\ud800""#, #""\udc00\u0041""#, #""\q""#]
        var documents: [[UInt8]] = []
        for key in keys {
            for value in values {
                let member = [0x22] + key + [0x22, UInt8(ascii: ":")] + Array(value.utf8)
                documents.append(Array(#"{"auth":1,"items":[{"id":"5","#.utf8) + member + Array("}]}".utf8))
                documents.append(Array("{".utf8) + member + Array(#","auth":1,"items":[]}"#.utf8))
                documents.append(Array(#"{"status":0,"content":[{"id":5,"feed_id":1,"#.utf8) + member + Array("}]}".utf8))
                documents.append(Array("{".utf8) + member + Array(#","status":0,"content":[]}"#.utf8))
            }
        }
        var differ: [String] = []
        for document in documents {
            let body = Data(document)
            var pairs = [(Self.fever(body, scanning: true), Self.fever(body, scanning: false))]
            for idsOnly in [false, true] {
                pairs.append(
                    (Self.ttrss(body, idsOnly: idsOnly, scanning: true), Self.ttrss(body, idsOnly: idsOnly, scanning: false)))
            }
            for (scanned, decoded) in pairs where scanned != decoded {
                differ.append("\(String(decoding: document, as: UTF8.self)):\n  \(scanned)\n  \(decoded)")
            }
        }
        #expect(differ.isEmpty, "\(differ.count) differ:\n\(differ.prefix(5).joined(separator: "\n"))")
    }

    @Test func theExactCursorReadsJSONNumbersAndStringsOnly() {
        func number(_ text: String) -> JSONNumber? {
            Array(text.utf8).withUnsafeBufferPointer { buffer in
                var cursor = JSONCursor(buffer)
                return cursor.number()
            }
        }
        #expect(number("0") == .unsigned(0) && number("18446744073709551615") == .unsigned(.max))
        #expect(number("18446744073709551616") == .other && number("1.5") == .other && number("2E-3") == .other)
        #expect(number("-12") == .negative(-12) && number("-9223372036854775808") == .other)
        for bad in ["01", "-", "1.", ".5", "+1", "1e", "1-2", "0x1", ""] {
            #expect(number(bad) == nil, "\(bad)")
        }
        func string(_ bytes: [UInt8]) -> String? {
            bytes.withUnsafeBufferPointer { buffer in
                var cursor = JSONCursor(buffer)
                return cursor.exactString()
            }
        }
        #expect(string(Array(#""a\u00e9\ud83d\ude00\n""#.utf8)) == "aé😀\n")
        #expect(string(Array(#""\ud800""#.utf8)) == nil && string(Array(#""\udc00""#.utf8)) == nil)
        #expect(string([0x22, 0xFF, 0x22]) == nil && string([0x22, 0xC3, 0xA9, 0x22]) == "é")
        // With escapes, bytes that are not UTF-8 before, between or after them are refused too.
        let slash = Array(#"\/"#.utf8)
        #expect(string([0x22, 0xFF] + slash + [0x22]) == nil && string([0x22] + slash + [0xFF, 0x22]) == nil)
        #expect(string([0x22] + slash + [0xC3] + slash + [0xA9, 0x22]) == nil)
        #expect(string([0x22, 0xC3, 0xA9] + slash + [0xC3, 0xA9, 0x22]) == "é/é")
        #expect(string(Array(#""a\/b\"c\\d\u0041""#.utf8)) == "a/b\"c\\dA")
    }

    /// Fever's id lists (`unread_item_ids`) split on their bytes give the ids their
    /// characters gave: white space, signs, empty parts, overflow, ids out of range, and
    /// text that is not ASCII (a comma joined to a combining mark is no comma).
    @Test func feverIDListsReadFromTheirBytesAsFromTheirCharacters() {
        let now = Date()
        func asCharacters(_ text: String, keepingAtMost: Int) -> [UInt64] {
            var ids: [UInt64] = []
            for part in text.split(separator: ",") {
                guard let id = UInt64(part.trimmingCharacters(in: .whitespaces)), GReaderClient.isPlausibleItemID(id, now: now)
                else { continue }
                ids.append(id)
                if ids.count >= keepingAtMost { break }
            }
            return ids
        }
        let big = (1...3000).map { String(1_796_641_869_240_000 + $0) }.joined(separator: ",")
        for text in [
            "", ",", "1796641869240739", "12, 13 ,\t14\t,,15,", "+12,-0,-1,0,00012", "1e3,0x10,1.5,12a",
            "18446744073709551615,18446744073709551616,99999999999999999999,9999999999999999999",
            "1796641869240739,\u{301}12,12,\u{301}", "\u{00A0}12,\u{2003}13\u{2003},14", "12\n,13\r\n,14",
            "4102444800000000,99999999999999999", big,
        ] {
            for keepingAtMost in [Int.max, 3] {
                #expect(
                    FeverClient.ids(in: text, keepingAtMost: keepingAtMost, now: now)
                        == asCharacters(text, keepingAtMost: keepingAtMost),
                    "\(text.prefix(80))")
            }
        }
        #expect(FeverClient.ids(in: big, keepingAtMost: .max, now: now).count == 3000)
    }
}
