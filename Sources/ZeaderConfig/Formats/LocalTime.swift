import Foundation

/// Dates broken down in the local time zone by the C library, as strftime(3) would.
///
/// The reader shows dates on every screen; Foundation's `Calendar.current` and
/// `TimeZone.current` would load ICU's calendar and zone tables into the reader at rest to
/// do what `localtime_r` does with the system's zone file.
///
/// ```swift
/// let parts = LocalTime.parts(of: Date(timeIntervalSince1970: 0))
/// parts.tm_year + 1900   // 1970 (or 1969 west of Greenwich)
/// ```
public enum LocalTime {
    /// `date` in the process's local time zone (`TZ`, else `/etc/localtime`), its seconds
    /// rounded down. A date outside what `time_t` holds is taken at its nearest end.
    public static func parts(of date: Date) -> tm {
        let since1970 = date.timeIntervalSince1970.rounded(.down)
        var seconds: time_t
        if since1970.isNaN {
            seconds = 0
        } else if since1970 >= Double(time_t.max) {
            seconds = .max
        } else if since1970 <= Double(time_t.min) {
            seconds = .min
        } else {
            seconds = time_t(since1970)
        }
        var parts = tm()
        if localtime_r(&seconds, &parts) == nil {
            // Only a year past what `tm` holds fails: show the epoch rather than garbage.
            seconds = 0
            localtime_r(&seconds, &parts)
        }
        return parts
    }
}
