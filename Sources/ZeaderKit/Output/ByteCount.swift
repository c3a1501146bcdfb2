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

    /// A size as a person writes it in the config, in the same units ``text(_:)`` prints:
    /// `1234` (bytes), `500K`, `500M`, `2G`, `1T` in powers of 1000 (as `500 MB` means
    /// there), `500MiB`, `2GiB` in powers of 1024; any case, an optional `B`, a space before
    /// the unit, a decimal point (`1.5G`). Nil for anything else: no sign, nothing past
    /// `Int64.max`, no other unit.
    ///
    /// ```swift
    /// ByteCount.parse("500M")    // 500_000_000
    /// ByteCount.parse("2 GiB")   // 2_147_483_648
    /// ```
    public static func parse(_ text: String) -> Int64? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces).lowercased())
        let number = rest.prefix { $0.isASCII && ($0.isNumber || $0 == ".") }
        rest = rest.dropFirst(number.count).drop { $0 == " " }
        if rest.last == "b" { rest = rest.dropLast() }
        var binary = false
        if rest.count == 2, rest.last == "i" {
            binary = true
            rest = rest.dropLast()
        }
        let powers: [Substring: Int] = ["": 0, "k": 1, "m": 2, "g": 3, "t": 4]
        guard let power = powers[rest], !(binary && power == 0) else { return nil }
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0]
        let fraction = parts.count == 2 ? parts[1] : ""
        // A fraction needs a unit (bytes are whole) and digits on at least one side.
        guard !whole.isEmpty || !fraction.isEmpty, !fraction.contains("."), fraction.isEmpty || power > 0,
            let wholeValue = Int64(whole.isEmpty ? "0" : whole)
        else { return nil }
        var scale: Int64 = 1
        for _ in 0..<power { scale *= binary ? 1024 : 1000 }
        let (wholeBytes, overflow) = wholeValue.multipliedReportingOverflow(by: scale)
        guard !overflow else { return nil }
        // Below a byte is dropped; at scales up to 2^40 a Double errs by far less than a byte.
        let fractionBytes = fraction.isEmpty ? 0 : Int64((Double("0." + fraction)! * Double(scale)).rounded(.down))
        let (bytes, sumOverflow) = wholeBytes.addingReportingOverflow(fractionBytes)
        return sumOverflow ? nil : bytes
    }
}
