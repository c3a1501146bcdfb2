import Foundation

/// Byte counts for people, in powers of 1000 with SI symbols: the one format of sizes in the
/// reader and on the command line, so one file shows one size everywhere.
///
/// ```swift
/// ByteCount.text(12_345_678)   // "12.3 MB"
/// ```
public enum ByteCount {
    /// `812 bytes`, `4.2 kB`, `12.3 MB`, `1.1 GB`: one decimal, and the same in every locale.
    ///
    /// ```swift
    /// ByteCount.text(999_999)   // "1.0 MB"
    /// ```
    public static func text(_ bytes: Int64) -> String {
        if bytes < 1000 { return "\(bytes) bytes" }
        let units = ["kB", "MB", "GB", "TB", "PB", "EB"]
        var value = Double(bytes) / 1000
        var unit = 0
        // 999.95 would round up to "1000.0": show it as 1.0 of the next unit.
        while value >= 999.95, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}
