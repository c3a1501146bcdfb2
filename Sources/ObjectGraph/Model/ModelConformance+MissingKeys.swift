import Foundation

// A wrapper whose key the model lacks (`@Managed("titel")`) is refused when a container
// loads the model, with the model key it most likely meant. Older versions of a model share
// the newest version's classes, whose new keys they lack by nature: a model that a newer
// version of the same name supersedes (one the process has made, or one a
// ``MigrationPlan`` lists before its last) may lack keys, and a key it lacks stops the
// program with a message only when it is used.

extension ManagedObjectModel {
    /// Whether a newer version of this model (same name, higher version) exists in this
    /// process, or a migration plan lists this model before its last version.
    var isSuperseded: Bool {
        if Self.superseded.withLock({ $0.contains(ObjectIdentifier(self)) }) { return true }
        return Self.all.withLock { models in models.contains { $0.name == name && $0.version > version } }
    }

    /// Records that `models` are older versions (a migration plan's all but last).
    static func markSuperseded(_ models: some Sequence<ManagedObjectModel>) {
        superseded.withLock { set in for model in models { set.insert(ObjectIdentifier(model)) } }
    }

    /// The problem of a declared key that `entity` lacks altogether, naming the closest of
    /// its keys of the same kind (attributes for `@Managed`, relationships for the others).
    func missingKeyProblem(_ key: String, wrapper: String, in entity: Entity, kinds: [String]) -> String {
        // The nearest key, when it is near enough to be what was meant.
        let closest = kinds.map { (Self.editDistance(key, $0), $0) }.min { $0 < $1 }.flatMap {
            $0.0 <= max(2, key.count / 2) ? $0.1 : nil
        }
        let hint = closest.map { " (closest: '\($0)')" } ?? ""
        return "\(wrapper)(\"\(key)\"): \(entity.name) has no key '\(key)'\(hint)"
    }

    /// Levenshtein distance, case-insensitive (keys are short).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a.lowercased().unicodeScalars)
        let y = Array(b.lowercased().unicodeScalars)
        if x.isEmpty || y.isEmpty { return max(x.count, y.count) }
        var previous = Array(0...y.count)
        var current = [Int](repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
