import ZeaderKit

/// The listing `zeader ignore list` and `zeader rule list` print: the stored rules by their
/// number (which `remove` takes), then the config's, marked `-` and `(config)`.
enum RuleListing {
    /// `stored` as (number, the rule's line), then `config`'s lines, one per line.
    static func text(stored: [(number: Int, line: String)], config: [String]) -> String {
        stored.map { "\($0.number)  \(TerminalText.line($0.line))\n" }.joined()
            + config.map { "-  \(TerminalText.line($0))  (config)\n" }.joined()
    }
}
