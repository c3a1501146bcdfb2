import Foundation
import Testing
import ZeaderKit

@testable import ZeaderTUI

/// The reader's dates print for any `Date`: one a store held before dates were checked where
/// they enter (``DateBounds``) keeps the date column's width.
@Suite struct DateColumnTests {
    static let dates: [Date] = [
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 1e17, -1e17, 9.3e18, -9.3e18, .infinity, -.infinity, .nan,
        253_402_300_800, -62_135_596_801,
    ].map { Date(timeIntervalSince1970: $0) }

    @Test func anyDateKeepsTheColumnsWidth() {
        for date in Self.dates {
            let short = ReaderView.shortDate(date)
            #expect(short.wholeMatch(of: /\d{4}-\d{2}-\d{2}/) != nil, "\(date.timeIntervalSince1970): \(short)")
            let long = ReaderView.longDate(date)
            #expect(long.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}/) != nil, "\(date.timeIntervalSince1970): \(long)")
        }
        #expect(ReaderView.shortDate(nil) == "          ")
    }
}
