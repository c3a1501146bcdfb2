import Foundation

/// Where Zeader keeps its store and configuration (XDG base directories).
///
/// ```swift
/// let url = ZeaderPaths.databaseURL(explicit: nil)   // $ZEADER_DB or $XDG_DATA_HOME/zeader/zeader.sqlite
/// ```
public enum ZeaderPaths {
    /// `--db PATH`, else `$ZEADER_DB`, else `$XDG_DATA_HOME/zeader/zeader.sqlite`
    /// (`~/.local/share/zeader/zeader.sqlite` when XDG_DATA_HOME is unset).
    public static func databaseURL(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL
    {
        if let explicit, !explicit.isEmpty { return URL(fileURLWithPath: explicit) }
        if let env = environment["ZEADER_DB"], !env.isEmpty { return URL(fileURLWithPath: env) }
        return dataDirectory(environment: environment).appendingPathComponent("zeader.sqlite")
    }

    /// `$XDG_DATA_HOME/zeader`.
    public static func dataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        xdg("XDG_DATA_HOME", fallback: ".local/share", environment: environment).appendingPathComponent("zeader")
    }

    /// `$XDG_CONFIG_HOME/zeader` (`~/.config/zeader`).
    public static func configDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        xdg("XDG_CONFIG_HOME", fallback: ".config", environment: environment).appendingPathComponent("zeader")
    }

    private static func xdg(_ variable: String, fallback: String, environment: [String: String]) -> URL {
        if let value = environment[variable], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(fallback)
    }
}
