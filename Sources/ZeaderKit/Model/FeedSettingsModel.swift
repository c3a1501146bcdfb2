import Foundation
import ObjectGraph

// v10 (settings per feed): each feed's own settings, as its urls-file line writes them after
// `<`. Additive (an optional attribute), so the step from version 9 is inferred.

extension Server {
    /// The feed's own settings as text, `key value; key value` (model version 10): from its
    /// urls-file line and `zeader set`; read them with ``FeedSettings/init(stored:)``.
    ///
    /// ```swift
    /// server.settings = try FeedSettings(parsing: "reload-interval 60").text
    /// ```
    public var settings: String? {
        get { String(fromValue: self["settings"]) }
        set { self["settings"] = newValue.valueRepresentation }
    }
}

extension ZeaderModel {
    /// Version 10's entities: version 9's and Server's `settings`.
    static func version10Entities() -> [EntityDescription] {
        var entities = version9Entities()
        if let server = entities.firstIndex(where: { $0.name == "Server" }) {
            entities[server].attributes.append(.string("settings"))
        }
        return entities
    }
}
