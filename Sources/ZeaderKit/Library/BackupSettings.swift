import Feeds
import Foundation

/// A feed's own settings (``Server/settings``) as a backup carries them. A backup is an
/// export: it holds no secret (a header, a cookie, a proxy's login), so a backup written
/// here leaves them out. It is also data from elsewhere when restored: the settings that
/// decide where requests go and what they carry (``FeedSettingKey/affectsNetwork``) are
/// restored only when the user trusts them (`zeader import --trust-settings`), and a program
/// (`password-command`) only with `--allow-commands` as well; the others are withheld and
/// named in the restore's report.
///
/// ```swift
/// BackupSettings.exported("timeout 10; cookie s=1")   // "timeout 10"
/// ```
enum BackupSettings {
    /// What a restore may take: everything, the plain settings only, or those and the network's.
    struct Trust: Sendable, Equatable {
        /// `--trust-settings`: the settings that affect the network.
        var network = false
        /// `--allow-commands`: with ``network``, the settings that run a program.
        var commands = false

        func allows(_ key: FeedSettingKey) -> Bool {
            if key.runsProgram { return network && commands }
            return !key.affectsNetwork || network
        }
    }

    /// The stored settings as a backup writes them: without secrets (``FeedSettingKey/isSecret``,
    /// a proxy with a password); nil when none are left or they cannot be read.
    static func exported(_ stored: String?) -> String? {
        guard let stored, let settings = try? FeedSettings(parsing: stored) else { return nil }
        var kept = FeedSettings()
        for entry in settings.entries where !entry.key.isSecret {
            if entry.key == .proxy, RedactedURL.text(entry.value) != entry.value { continue }
            try? kept.set(entry.key, entry.value)
        }
        return kept.isEmpty ? nil : kept.text
    }

    /// The feed's settings after a restore of `text` (a backup's `settings`) over `stored`:
    /// each key the backup sets and `trust` allows replaces the stored one; the keys withheld
    /// are returned, each once, in order.
    static func restored(_ text: String, over stored: String?, trust: Trust) throws(FeedSettingsError) -> (
        settings: FeedSettings, withheld: [FeedSettingKey]
    ) {
        let backup = try FeedSettings(parsing: text)
        var allowed = FeedSettings()
        var withheld: [FeedSettingKey] = []
        for entry in backup.entries {
            if trust.allows(entry.key) {
                try allowed.set(entry.key, entry.value)
            } else if !withheld.contains(entry.key) {
                withheld.append(entry.key)
            }
        }
        return (FeedSettings(stored: stored).overridden(by: allowed), withheld)
    }
}
