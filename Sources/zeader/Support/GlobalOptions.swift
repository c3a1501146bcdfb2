/// Moves options that every command accepts (`--db PATH`) from before the subcommand's
/// name to just after it, so `zeader --db X refresh` parses like `zeader refresh --db X`
/// (swift-argument-parser only reads a subcommand's options after its name).
///
/// ```swift
/// GlobalOptions.normalize(["--db", "x.sqlite", "list", "--json"], subcommands: ["list"])
/// // ["list", "--db", "x.sqlite", "--json"]
/// ```
enum GlobalOptions {
    /// The options taking one value that may come before the subcommand.
    static let valueOptions: Set<String> = ["--db"]

    /// The arguments (without the program name) with global options moved after the first
    /// subcommand name. Arguments with no subcommand name, or after `--`, are left alone.
    static func normalize(_ arguments: [String], subcommands: Set<String>) -> [String] {
        var moved: [String] = []
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" { break }
            if valueOptions.contains(argument) {
                moved.append(argument)
                if index + 1 < arguments.count { moved.append(arguments[index + 1]) }
                index += 2
                continue
            }
            if let equals = argument.firstIndex(of: "="), valueOptions.contains(String(argument[..<equals])) {
                moved.append(argument)
                index += 1
                continue
            }
            if subcommands.contains(argument) {
                guard !moved.isEmpty else { return arguments }
                return kept + [argument] + moved + arguments[(index + 1)...]
            }
            if argument.hasPrefix("-") {
                kept.append(argument)
                index += 1
                continue
            }
            return arguments  // a positional before any subcommand: not ours to rearrange
        }
        return arguments
    }
}
