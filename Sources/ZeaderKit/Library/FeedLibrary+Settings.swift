import Foundation
import ObjectGraph

extension FeedLibrary {
    /// Sets one of the feed's own settings (``FeedSettings``), checked first; `full-article`
    /// is the feed's `Server.fullArticle`, as `zeader full-article` sets it. Returns the
    /// feed's settings as they now stand.
    ///
    /// ```swift
    /// try library.setFeedSetting(url: "https://example.org/feed", key: .reloadInterval, value: "60")
    /// ```
    @discardableResult
    public func setFeedSetting(url: String, key: FeedSettingKey, value: String?) throws(ZeaderError) -> FeedSettings {
        try withContext { context in
            let server = try FeedEditing.server(url: url, in: context)
            let settings = try FeedSettingsEditing.set(key, value, on: server)
            try context.save()
            return settings
        }
    }
}

/// Changing a feed's own settings: one implementation for `zeader set`, `zeader unset` and a
/// urls file's `< key value; …` (its import and the reader's edit-urls).
///
/// ```swift
/// try FeedSettingsEditing.set(.timeout, "10", on: server)
/// ```
public enum FeedSettingsEditing {
    /// Sets `key` to `value` on `server` (nil removes it); returns the feed's settings.
    ///
    /// ```swift
    /// try FeedSettingsEditing.set(.proxy, nil, on: server)   // unset
    /// ```
    @discardableResult
    public static func set(_ key: FeedSettingKey, _ value: String?, on server: Server) throws -> FeedSettings {
        var settings = FeedSettings(stored: server.settings)
        if key == .fullArticle {
            // One switch with `zeader full-article`: the stored attribute.
            if let value {
                let checked = try FeedSettings.checked(key, value)
                server.fullArticle = checked == "yes"
            } else {
                server.fullArticle = false
            }
            return settings
        }
        if let value { try settings.set(key, value) } else { settings.unset(key) }
        server.settings = settings.isEmpty ? nil : settings.text
        return settings
    }

    /// Replaces `server`'s settings with those of a urls-file line (`full-article` sets the
    /// feed's `Server.fullArticle`).
    ///
    /// ```swift
    /// try FeedSettingsEditing.replace(on: server, with: FeedSettings(parsing: "max-items 50"))
    /// ```
    public static func replace(on server: Server, with settings: FeedSettings) {
        var stored = settings
        if let fullArticle = settings.flag(.fullArticle) {
            server.fullArticle = fullArticle
            stored.unset(.fullArticle)
        }
        let text = stored.isEmpty ? nil : stored.text
        if server.settings != text { server.settings = text }
    }
}

extension FeedSettingsEditing {
    /// Applies a urls-file line's settings (the text after `<`, nil when it has none) to
    /// `server`: a line without settings clears them. A line whose settings cannot be read
    /// changes nothing and gives the note returned. Without `allowingPrograms` (a file
    /// imported as data), a setting that runs a program (`password-command`) is left out,
    /// the feed keeps its own, and the note says so.
    ///
    /// ```swift
    /// if let note = FeedSettingsEditing.applyLine("max-items 50", to: server, url: url) { notes.append(note) }
    /// ```
    public static func applyLine(_ text: String?, to server: Server, url: String, allowingPrograms: Bool = true)
        -> String?
    {
        do throws(FeedSettingsError) {
            var settings = try FeedSettings(parsing: text ?? "")
            let programs = allowingPrograms ? [] : settings.entries.map(\.key).filter(\.runsProgram)
            for key in programs {
                settings.unset(key)
                if let own = FeedSettings(stored: server.settings).value(key) { try settings.set(key, own) }
            }
            replace(on: server, with: settings)
            return programs.isEmpty ? nil : Messages.feedSettingProgramSkipped(url: url, programs[0])
        } catch {
            return Messages.feedSettingsKept(url: url, error)
        }
    }

    /// The settings of a urls-file line as ``Server/settings`` stores them (without
    /// `full-article`, which is the feed's `fullArticle`); nil for none or unreadable ones.
    static func storedText(of text: String?) -> String? {
        guard var settings = text.flatMap({ try? FeedSettings(parsing: $0) }) else { return nil }
        settings.unset(.fullArticle)
        return settings.isEmpty ? nil : settings.text
    }
}

extension FeedLibrary {
    /// `policy` with each feed's own `max-items` and `keep-days` and those of the config's
    /// `feed` lines over it (``RetentionPolicy/including(_:for:in:)``): what `zeader cleanup`
    /// and cleanup-on-quit apply, as a refresh does.
    ///
    /// ```swift
    /// let policy = try library.retention(config.retention, with: config.feedSettings)
    /// ```
    public func retention(_ policy: RetentionPolicy, with scopes: FeedSettingsScopes) throws(ZeaderError)
        -> RetentionPolicy
    {
        try withContext { context in
            policy.including(scopes, for: try Server.findAll(in: context).map(\.objectID), in: context)
        }
    }
}
