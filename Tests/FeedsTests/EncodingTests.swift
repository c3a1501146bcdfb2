import Foundation
import Testing

@testable import Feeds

@Suite("Encodings")
struct EncodingTests {
    @Test func utf8ValidationHoldsAtEveryLengthAndPosition() {
        // The check reads 16 and 8 bytes at a time: a bad or multi-byte sequence must be
        // judged wherever it falls, and nothing read past the end.
        let sequences: [[UInt8]] = [
            [0xC3, 0xA9], [0xE2, 0x80, 0x99], [0xF0, 0x9F, 0x9A, 0x80], [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF],
        ]
        for length in 0...40 {
            for position in 0...length {
                for sequence in sequences {
                    var bytes = Array(repeating: UInt8(ascii: "a"), count: length)
                    bytes.insert(contentsOf: sequence, at: position)
                    let expected = String(data: Data(bytes), encoding: .utf8) != nil
                    let found = bytes.withUnsafeBufferPointer { FeedXMLEncoding.isValidUTF8($0, from: 0) }
                    #expect(found == expected, "\(length) \(position) \(sequence)")
                }
            }
        }
    }

    @Test func latin1IsReadAsWindows1252() throws {
        let feed = try parseFixture("rss091-latin1.xml")
        #expect(feed.format == .rss09)
        #expect(feed.title == "Dicas em português")
        #expect(feed.items.first?.title == "Olá – ação “quoted”", "0x93/0x94/0x96 are windows-1252 quotes and dash")
    }

    @Test func windows1251() throws {
        let feed = try parseFixture("rss2-windows1251.xml")
        #expect(feed.title == "Новости дня")
        #expect(feed.items.first?.title == "Привет, мир")
        #expect(feed.items.first?.published == utc("2020-02-10T06:00:00Z"))
    }

    @Test func gb2312IsReadAsGB18030() throws {
        let feed = try parseFixture("rss2-gb2312.xml")
        #expect(feed.title == "中文新闻")
        #expect(feed.items.first?.title == "北京天气 𠀀", "a character outside GB2312 but inside GB18030")
    }

    @Test func utf16WithByteOrderMark() throws {
        let feed = try parseFixture("atom-utf16le-bom.xml")
        #expect(feed.title == "UTF-16 Ω feed")
        #expect(feed.items.first?.title == "日本語のタイトル")
    }

    @Test func utf16BigEndianWithoutMark() throws {
        let xml =
            "<?xml version=\"1.0\" encoding=\"UTF-16BE\"?><rss version=\"2.0\"><channel><title>Größe</title></channel></rss>"
        let feed = try FeedParser.parse(data: Data(xml.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }))
        #expect(feed.title == "Größe")
    }

    @Test func utf8LabelledAsLatin1IsReadAsUTF8() throws {
        let feed = try parseFixture("rss2-utf8-labelled-latin1.xml")
        #expect(feed.title == "Brøndby – fodbold")
        #expect(feed.items.first?.title == "Kærlighed på tværs")
    }

    @Test func mostlyUTF8WithAStrayLatin1Byte() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss version=\"2.0\"><channel><title>Brøndby".utf8)
        bytes += [0x20, 0xF8]  // a Latin-1 ø among UTF-8 text
        bytes += Array("</title><item><title>Kærlighed på tværs</title></item></channel></rss>".utf8)
        let feed = try FeedParser.parse(data: Data(bytes))
        #expect(feed.title == "Brøndby ø")
        #expect(feed.items.first?.title == "Kærlighed på tværs")
    }

    @Test func latin1WithoutDeclaration() throws {
        let feed = try parseFixture("rss2-latin1-no-declaration.xml")
        #expect(feed.title == "Sem declaração")
        #expect(feed.items.first?.title == "Notícias")
    }

    @Test func httpCharsetHintWinsOverTheDeclaration() throws {
        let xml =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><rss version=\"2.0\"><channel><title>Caf\u{E9}</title></channel></rss>"
        let latin1 = try #require(xml.data(using: .isoLatin1))
        let feed = try FeedParser.parse(data: latin1, contentTypeCharset: "iso-8859-1")
        #expect(feed.title == "Café")
        let cyrillic = Data([0xCF, 0xF0, 0xE8, 0xE2, 0xE5, 0xF2])  // "Привет" in windows-1251
        let document = Data("<rss><channel><title>".utf8) + cyrillic + Data("</title></channel></rss>".utf8)
        #expect(try FeedParser.parse(data: document, contentTypeCharset: "windows-1251").title == "Привет")
    }

    @Test func utf8ByteOrderMarkAndLeadingBlankLines() throws {
        let xml =
            "\u{FEFF}\n\n  <?xml version=\"1.0\" encoding=\"utf-8\"?>\n<rss version=\"2.0\"><channel><title>A &amp; B</title></channel></rss>"
        let feed = try parse(xml)
        #expect(feed.title == "A & B", "a declaration after blank lines is still honoured, and &amp; survives")
        #expect(feed.warnings.isEmpty)
    }

    @Test func ebcdic() throws {
        let xml =
            "<?xml version=\"1.0\" encoding=\"IBM037\"?><rss version=\"2.0\"><channel><title>EBCDIC works</title></channel></rss>"
        let cp037: [Character: UInt8] = {
            var table: [Character: UInt8] = [:]
            let letters = Array("abcdefghi")
            let upper = Array("ABCDEFGHI")
            for (i, c) in letters.enumerated() {
                table[c] = 0x81 + UInt8(i)
                table[upper[i]] = 0xC1 + UInt8(i)
            }
            for (i, c) in Array("jklmnopqr").enumerated() { table[c] = 0x91 + UInt8(i) }
            for (i, c) in Array("JKLMNOPQR").enumerated() { table[c] = 0xD1 + UInt8(i) }
            for (i, c) in Array("stuvwxyz").enumerated() { table[c] = 0xA2 + UInt8(i) }
            for (i, c) in Array("STUVWXYZ").enumerated() { table[c] = 0xE2 + UInt8(i) }
            for (i, c) in Array("0123456789").enumerated() { table[c] = 0xF0 + UInt8(i) }
            table[" "] = 0x40
            table["<"] = 0x4C
            table[">"] = 0x6E
            table["?"] = 0x6F
            table["="] = 0x7E
            table["\""] = 0x7F
            table["."] = 0x4B
            table["/"] = 0x61
            table["-"] = 0x60
            return table
        }()
        let bytes = try xml.map { try #require(cp037[$0], "no EBCDIC code for \($0)") }
        #expect(try FeedParser.parse(data: Data(bytes)).title == "EBCDIC works")
    }

    @Test func utf8ValidationAgreesWithTheStandardLibrary() {
        let samples: [[UInt8]] = [
            Array("plain ascii text, long enough for the word loop".utf8), Array("naïve café 日本 🚀".utf8),
            [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0x80], [0xF0, 0x9F, 0x9A, 0x80],
        ]
        for sample in samples {
            let ours = sample.withUnsafeBufferPointer { FeedXMLEncoding.isValidUTF8($0, from: 0) }
            #expect(ours == (String(validating: sample, as: UTF8.self) != nil), "\(sample)")
        }
    }
}
