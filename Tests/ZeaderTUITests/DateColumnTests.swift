import Foundation
import Testing
import ZeaderConfig
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

    /// The C library's local time gives the dates Foundation's calendar would, in the time
    /// zone this process runs in, around the epoch, leap days, years' ends and far dates.
    /// (Before 1582 Foundation's calendar is Julian, the C library's still Gregorian, as
    /// strftime's dates always were.)
    @Test func localTimeAgreesWithTheCalendar() {
        let seconds: [Double] = [
            0, -1, 86_399, 951_782_400, 951_868_799, 1_704_067_199, 1_711_846_800, 1_733_443_200.75, -2_208_988_800,
            253_402_214_399, -11_676_096_000, 1_000_000_000.999,
        ]
        for second in seconds {
            let date = Date(timeIntervalSince1970: second)
            let c = Calendar.current.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let t = LocalTime.parts(of: date)
            let parts = [t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec].map(Int.init)
            #expect(parts == [c.year, c.month, c.day, c.hour, c.minute, c.second].map { $0 ?? -1 }, "\(second)")
            let shown = DateTimeFormat("%Y-%m-%d %H:%M:%S").string(from: date)
            #expect(shown == DateTimeFormat("%Y-%m-%d %H:%M:%S").string(from: date, timeZone: .current), "\(second)")
        }
    }
}
