/// Zeader's version, sent in the User-Agent and printed by `zeader --version`.
public let zeaderVersion = "0.1.0"
