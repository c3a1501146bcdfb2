import Feeds
import Foundation

/// One setting a feed (or a tag's feeds) may have of its own.
///
/// ```swift
/// FeedSettingKey(rawValue: "reload-interval")   // .reloadInterval
/// ```
public enum FeedSettingKey: String, Sendable, Hashable, CaseIterable {
    /// Minutes between two refreshes of the feed (`zeader refresh --due`, the reader's timer).
    case reloadInterval = "reload-interval"
    case maxItems = "max-items"
    case keepDays = "keep-days"
    case userAgent = "user-agent"
    /// A request header, `Name: value`; the key may be given several times.
    case header
    /// The `Cookie` header's value; given several times, the values are joined with `; `.
    case cookie
    case proxy
    case proxyType = "proxy-type"
    case proxyAuth = "proxy-auth"
    case useProxy = "use-proxy"
    case httpAuthMethod = "http-auth-method"
    case cookieCache = "cookie-cache"
    case sslVerify = "ssl-verify"
    /// The feed's `Server.fullArticle` (`zeader full-article`).
    case fullArticle = "full-article"
    /// Whether the feed's new items count in `notify-program`'s message.
    case notify
    /// Every refresh fetches the whole feed, without `ETag` or `Last-Modified`.
    case ignoreHTTPCache = "ignore-http-cache"
    /// Most kilobytes a second the fetch receives.
    case maxDownloadSpeed = "max-download-speed"
    /// Seconds the whole fetch may take.
    case timeout
    /// A program (its words, run as argv, never through a shell unless they name one) whose
    /// first line of output is the feed's HTTP password: only the user's own config, urls
    /// file and `zeader set` give one, never an import or a backup (``runsProgram``).
    case passwordCommand = "password-command"

    /// Whether the value is shown masked (``RedactedURL/mask``) by `zeader list`: it may hold
    /// a login, a token or a session. A proxy shows with its password masked.
    ///
    /// ```swift
    /// FeedSettingKey.cookie.isSecret   // true
    /// ```
    public var isSecret: Bool {
        switch self {
        case .header, .cookie, .proxyAuth: true
        default: false
        }
    }

    /// Whether the value names a program Zeader runs: data (an imported file, a backup) never
    /// sets it unless the user allows commands.
    ///
    /// ```swift
    /// FeedSettingKey.passwordCommand.runsProgram   // true
    /// ```
    public var runsProgram: Bool { self == .passwordCommand }

    /// Whether the value decides where the feed's requests go, what they carry or whether the
    /// server's certificate is checked: a backup's are restored only when the user trusts them
    /// (`zeader import --trust-settings`), since they could send a login elsewhere.
    ///
    /// ```swift
    /// FeedSettingKey.proxy.affectsNetwork   // true
    /// ```
    public var affectsNetwork: Bool {
        switch self {
        case .header, .cookie, .proxy, .proxyType, .proxyAuth, .useProxy, .httpAuthMethod, .cookieCache, .sslVerify,
            .passwordCommand:
            true
        case .reloadInterval, .maxItems, .keepDays, .userAgent, .fullArticle, .notify, .ignoreHTTPCache,
            .maxDownloadSpeed, .timeout:
            false
        }
    }

    /// Keys that may be given more than once (each value kept).
    var repeats: Bool { self == .header || self == .cookie }
}

/// Why a feed setting cannot be used; worded by `description` (Messages/FeedSettingsMessages.swift).
///
/// ```swift
/// if case .unknownKey(let key) = error { print("no setting", key) }
/// ```
public enum FeedSettingsError: Error, Sendable, Equatable {
    case unknownKey(String)
    case missingValue(FeedSettingKey)
    /// The value does not fit the key; `expected` says what would.
    case badValue(FeedSettingKey, value: String, expected: String)
    case unterminatedQuote(String)
}

/// Settings of one feed, or of the feeds of a tag, as newsraft writes them after a URL:
/// `key value; key value`. A value holding `;` or a leading or trailing blank is quoted
/// (`user-agent "Mozilla/5.0 (X11; Linux x86_64)"`). Precedence, from weakest: the config's
/// global directives, `feed *`, `feed tag:NAME`, `feed URL`, then the feed's own settings
/// (its urls-file line, `zeader set`) — see ``FeedSettingsScopes``.
///
/// ```swift
/// var settings = try FeedSettings(parsing: "reload-interval 30; max-items 200")
/// try settings.set(.userAgent, "Mozilla/5.0")
/// settings.text   // "reload-interval 30; max-items 200; user-agent Mozilla/5.0"
/// ```
public struct FeedSettings: Sendable, Equatable {
    /// One `key value` pair.
    public struct Entry: Sendable, Equatable {
        public var key: FeedSettingKey
        public var value: String
    }

    /// The pairs in the order written.
    public private(set) var entries: [Entry] = []

    /// No setting.
    ///
    /// ```swift
    /// FeedSettings().isEmpty   // true
    /// ```
    public init() {}

    /// Reads `key value; key value`; every pair is checked (``set(_:_:)``).
    ///
    /// ```swift
    /// let settings = try FeedSettings(parsing: "timeout 10; ssl-verify no")
    /// ```
    public init(parsing text: String) throws(FeedSettingsError) {
        for part in try Self.split(text) {
            let trimmed = part.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            let keyEnd = trimmed.firstIndex(where: \.isWhitespace) ?? trimmed.endIndex
            let name = String(trimmed[..<keyEnd])
            guard let key = FeedSettingKey(rawValue: name.lowercased()) else { throw .unknownKey(name) }
            let value = Self.unquoted(trimmed[keyEnd...].trimmingCharacters(in: .whitespaces))
            try set(key, value)
        }
    }

    /// The settings stored as text (``text``), none when `text` is nil or cannot be read.
    ///
    /// ```swift
    /// let settings = FeedSettings(stored: server.settings)
    /// ```
    public init(stored text: String?) {
        self = text.flatMap { try? FeedSettings(parsing: $0) } ?? FeedSettings()
    }

    public var isEmpty: Bool { entries.isEmpty }

    /// As written after a URL: `key value; key value`.
    ///
    /// ```swift
    /// try FeedSettings(parsing: "user-agent \"A; B\"").text   // "user-agent \"A; B\""
    /// ```
    public var text: String {
        entries.map { "\($0.key.rawValue) \(Self.quotedIfNeeded($0.value))" }.joined(separator: "; ")
    }

    /// The value of `key` (the last one given); nil when unset.
    ///
    /// ```swift
    /// settings.value(.reloadInterval)   // "30"
    /// ```
    public func value(_ key: FeedSettingKey) -> String? { entries.last { $0.key == key }?.value }

    /// Every value of `key`, in order (several `header`s).
    public func values(_ key: FeedSettingKey) -> [String] { entries.filter { $0.key == key }.map(\.value) }

    /// Sets `key` to `value`, replacing its value (a `header` replaces the header of the
    /// same name, a `cookie` the cookie of the same name); the value is checked first.
    ///
    /// ```swift
    /// try settings.set(.maxItems, "500")
    /// ```
    public mutating func set(_ key: FeedSettingKey, _ value: String) throws(FeedSettingsError) {
        let checked = try Self.checked(key, value)
        if key.repeats {
            let name = Self.repeatName(key, checked)
            entries.removeAll { $0.key == key && Self.repeatName(key, $0.value) == name }
        } else {
            entries.removeAll { $0.key == key }
        }
        entries.append(Entry(key: key, value: checked))
    }

    /// Removes every value of `key`.
    ///
    /// ```swift
    /// settings.unset(.proxy)
    /// ```
    public mutating func unset(_ key: FeedSettingKey) { entries.removeAll { $0.key == key } }

    /// These settings with `other`'s over them: a key `other` sets replaces this one's
    /// (headers and cookies are added, one per name).
    ///
    /// ```swift
    /// let effective = tagSettings.overridden(by: feedSettings)
    /// ```
    public func overridden(by other: FeedSettings) -> FeedSettings {
        var result = self
        let replaced = Set(other.entries.filter { !$0.key.repeats }.map(\.key))
        result.entries.removeAll { replaced.contains($0.key) }
        for entry in other.entries where entry.key.repeats {
            let name = Self.repeatName(entry.key, entry.value)
            result.entries.removeAll { $0.key == entry.key && Self.repeatName(entry.key, $0.value) == name }
        }
        result.entries += other.entries
        return result
    }

    /// The pairs as they may be shown: secrets masked (``FeedSettingKey/isSecret``), a
    /// header's name kept, a proxy's password masked.
    ///
    /// ```swift
    /// try FeedSettings(parsing: "cookie session=abc").masked   // [("cookie", "***")]
    /// ```
    public var masked: [(key: String, value: String)] {
        entries.map { entry in
            switch entry.key {
            case .header:
                let name = entry.value.split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
                return (entry.key.rawValue, "\(name): \(RedactedURL.mask)")
            case .proxy: return (entry.key.rawValue, RedactedURL.text(entry.value))
            default: return (entry.key.rawValue, entry.key.isSecret ? RedactedURL.mask : entry.value)
            }
        }
    }

    // MARK: - Reading the values

    /// The fetch's network options these settings give.
    ///
    /// ```swift
    /// request.network = settings.network
    /// ```
    public var network: NetworkOptions {
        var options = NetworkOptions()
        options.userAgent = value(.userAgent)
        options.headers = values(.header)
        let cookies = values(.cookie)
        options.cookie = cookies.isEmpty ? nil : cookies.joined(separator: "; ")
        options.cookieFile = value(.cookieCache).map { HomePath.expanding($0) }
        options.proxy = value(.proxy)
        options.proxyType = value(.proxyType).flatMap(NetworkOptions.ProxyType.init(rawValue:))
        options.proxyAuth = value(.proxyAuth)
        options.useProxy = flag(.useProxy)
        options.authMethod = value(.httpAuthMethod).flatMap(NetworkOptions.AuthMethod.init(rawValue:))
        options.verifyTLS = flag(.sslVerify)
        options.timeout = number(.timeout).map(TimeInterval.init)
        options.maxBytesPerSecond = number(.maxDownloadSpeed).map { $0 * 1024 }
        return options
    }

    /// A yes/no setting; nil when unset.
    public func flag(_ key: FeedSettingKey) -> Bool? { value(key).flatMap(Self.yesNo) }

    /// A number setting; nil when unset.
    public func number(_ key: FeedSettingKey) -> Int? { value(key).flatMap { Int($0) } }

    // MARK: - Checking

    static let flagKeys: Set<FeedSettingKey> = [.useProxy, .sslVerify, .fullArticle, .notify, .ignoreHTTPCache]

    /// `value` as stored for `key`, or why it does not fit.
    static func checked(_ key: FeedSettingKey, _ raw: String) throws(FeedSettingsError) -> String {
        let value = raw.trimmingCharacters(in: .whitespaces)
        guard !value.isEmpty else { throw .missingValue(key) }
        // Every value ends up in a request line, a file name or a libcurl option.
        guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .badValue(key, value: value, expected: "no control characters")
        }
        func number(_ range: ClosedRange<Int>, _ expected: String) throws(FeedSettingsError) -> String {
            guard let n = Int(value), range.contains(n) else { throw .badValue(key, value: value, expected: expected) }
            return String(n)
        }
        switch key {
        case .reloadInterval: return try number(1...525_600, "a number of minutes, 1 or more")
        case .maxItems, .keepDays: return try number(0...Int(Int32.max), "a number, 0 for no limit")
        case .timeout: return try number(1...86_400, "a number of seconds, 1 or more")
        case .maxDownloadSpeed: return try number(0...Int(Int32.max), "kilobytes a second, 0 for no limit")
        case .useProxy, .sslVerify, .fullArticle, .notify, .ignoreHTTPCache:
            guard let yes = yesNo(value) else { throw .badValue(key, value: value, expected: "yes or no") }
            return yes ? "yes" : "no"
        case .proxyType:
            guard NetworkOptions.ProxyType(rawValue: value.lowercased()) != nil else {
                throw .badValue(key, value: value, expected: "http, socks4, socks5 or socks5h")
            }
            return value.lowercased()
        case .httpAuthMethod:
            guard NetworkOptions.AuthMethod(rawValue: value.lowercased()) != nil else {
                throw .badValue(
                    key, value: value, expected: NetworkOptions.AuthMethod.allCases.map(\.rawValue).joined(separator: ", "))
            }
            return value.lowercased()
        case .header:
            guard let colon = value.firstIndex(of: ":"), colon != value.startIndex,
                !value[..<colon].contains(where: \.isWhitespace)
            else {
                throw .badValue(key, value: value, expected: "Name: value")
            }
            return value
        case .cookie:
            guard value.contains("=") else { throw .badValue(key, value: value, expected: "name=value") }
            return value
        case .proxy:
            guard !value.contains(where: \.isWhitespace) else {
                throw .badValue(key, value: value, expected: "HOST:PORT or a proxy URL")
            }
            return value
        case .proxyAuth:
            guard value.contains(":") else { throw .badValue(key, value: value, expected: "USER:PASSWORD") }
            return value
        case .userAgent, .cookieCache: return value
        case .passwordCommand:
            guard CommandWords.split(value).first?.isEmpty == false else {
                throw .badValue(key, value: value, expected: "a program and its arguments")
            }
            return value
        }
    }

    static func yesNo(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "on", "1": true
        case "no", "false", "off", "0": false
        default: nil
        }
    }

    /// What makes two values of a repeated key the same setting: a header's name, a cookie's name.
    private static func repeatName(_ key: FeedSettingKey, _ value: String) -> String {
        let separator: Character = key == .header ? ":" : "="
        return (value.split(separator: separator, maxSplits: 1).first.map(String.init) ?? value)
            .trimmingCharacters(in: .whitespaces).lowercased()
    }

    // MARK: - Text

    /// The parts between `;`s outside double quotes.
    private static func split(_ text: String) throws(FeedSettingsError) -> [String] {
        var parts: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted && character == "\\" {
                current.append(character)
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                current.append(character)
            } else if character == ";" && !quoted {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if quoted { throw .unterminatedQuote(text) }
        parts.append(current)
        return parts
    }

    /// A value without its surrounding quotes and with `\"` and `\\` read.
    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.first == "\"", value.last == "\"" else { return value }
        var result = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }

    private static func quotedIfNeeded(_ value: String) -> String {
        guard value.contains(where: { $0 == ";" || $0 == "\"" || $0 == "#" }) else { return value }
        return "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
