import Foundation

extension ObjectPredicate {
    /// Checks the predicate against `entity`: every key exists, quantifiers and `@count` apply to
    /// to-many relationships, and each comparison's operands have types that can be compared
    /// (an Int literal with a double attribute, 1/0 with a bool, numbers of seconds with a date).
    ///
    /// ```swift
    /// let p = try ObjectPredicate(format: "ANY feedItems.title CONTAINS[cd] %@", "swift")
    /// try p.validate(for: model.entity(named: "Server"), in: model)
    /// ```
    ///
    /// Throws ``ObjectGraphError/unknownKey(entity:key:)`` naming the entity in which a key was
    /// looked up, or ``ObjectGraphError/invalidPredicate(entity:message:)`` naming the key path.
    ///
    /// A predicate built in code that nests NOT, AND and OR deeper than ``Limits/predicateDepth``
    /// is refused too (a parsed one never is), as is a key path crossing more than
    /// ``Limits/keyPathRelationships`` relationships.
    public func validate(for entity: Entity, in model: ManagedObjectModel) throws(ObjectGraphError) {
        guard depth <= Limits.predicateDepth else {
            throw .invalidPredicate(
                entity: entity.name,
                message:
                    "the predicate nests NOT, AND and OR \(depth) levels deep, more than the limit of \(Limits.predicateDepth)")
        }
        try PredicateValidator(model: model, root: entity).validate(self)
    }
}

/// A key path resolved against a model: the relationships it crosses and what it ends on.
struct ModelKeyPath {
    struct Hop {
        let source: Entity
        let relationshipIndex: Int
        let destination: Entity
        var relationship: RelationshipDescription { source.relationships[relationshipIndex] }
        var isToMany: Bool { relationship.isToMany }
        /// Whether the source's row holds the destination's `Z_PK` (else the destination points back).
        var isStoredInSource: Bool { source.storesForeignKey[relationshipIndex] }
    }

    enum Terminal {
        /// An attribute of the last hop's destination (or of the root).
        case attribute(AttributeDescription)
        /// The last hop itself, a relationship compared with nil or object references
        /// (a to-many one under ANY, ALL or NONE).
        case relationship
        /// `@count` of the last hop, a to-many relationship.
        case count
    }

    let path: String
    let hops: [Hop]
    let terminal: Terminal
    /// Index in `hops` of the to-many relationship a quantifier ranges over (`nil` for
    /// single-valued paths, `@count` ones included).
    let quantifiedHop: Int?

    var kind: PredicateValidator.Kind {
        switch terminal {
        case .attribute(let a): return PredicateValidator.Kind(a.type)
        case .relationship: return .relationship(hops.last!.destination.name)
        case .count: return .number
        }
    }

    init(_ path: String, root: Entity, model: ManagedObjectModel) throws(ObjectGraphError) {
        self.path = path
        var entity = root
        var hops: [Hop] = []
        var terminal: Terminal?
        var toManyHops: [Int] = []
        let segments = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (i, key) in segments.enumerated() {
            let isLast = i == segments.count - 1
            if terminal != nil {
                throw .invalidPredicate(
                    entity: root.name,
                    message:
                        "in key path '\(PredicateFormatter.abbreviated(path))', '\(segments[i - 1])' is an attribute of \(entity.name); no key can follow it"
                )
            }
            if key == "@count" {
                guard i > 0, let last = hops.last, last.isToMany else {
                    throw .invalidPredicate(
                        entity: root.name,
                        message:
                            "in key path '\(PredicateFormatter.abbreviated(path))', @count must follow a to-many relationship")
                }
                guard isLast else {
                    throw .invalidPredicate(
                        entity: root.name, message: "in key path '\(PredicateFormatter.abbreviated(path))', @count must come last"
                    )
                }
                terminal = .count
                continue
            }
            if key.hasPrefix("@") {
                throw .invalidPredicate(
                    entity: root.name,
                    message:
                        "in key path '\(PredicateFormatter.abbreviated(path))', unsupported collection operator '\(PredicateFormatter.abbreviated(key))'"
                )
            }
            if let a = entity.attribute(named: key) {
                terminal = .attribute(a)
            } else if let r = entity.relationshipIndexByName[key] {
                guard hops.count < ObjectPredicate.Limits.keyPathRelationships else {
                    throw .invalidPredicate(
                        entity: root.name,
                        message:
                            "key path '\(PredicateFormatter.abbreviated(path))' crosses more than \(ObjectPredicate.Limits.keyPathRelationships) relationships (the limit)"
                    )
                }
                let destination = model.destination(of: entity, relationshipIndex: r)
                let hop = Hop(source: entity, relationshipIndex: r, destination: destination)
                if hop.isToMany { toManyHops.append(hops.count) }
                hops.append(hop)
                entity = destination
            } else {
                throw .unknownKey(entity: entity.name, key: PredicateFormatter.abbreviated(key))
            }
        }
        if terminal == nil {
            guard !hops.isEmpty else {
                throw .invalidPredicate(entity: root.name, message: "empty key path")
            }
            terminal = .relationship
        }
        guard toManyHops.count <= 1 else {
            throw .invalidPredicate(
                entity: root.name,
                message: "key path '\(PredicateFormatter.abbreviated(path))' crosses more than one to-many relationship")
        }
        self.hops = hops
        self.terminal = terminal!
        if case .count = self.terminal { quantifiedHop = nil } else { quantifiedHop = toManyHops.first }
    }
}

extension PredicateComparison {
    /// `feedItems CONTAINS %@` (a to-many relationship containing an object) as Core Data
    /// means it: `ANY feedItems == %@`. Other comparisons are returned unchanged.
    func membershipDesugared(root: Entity, model: ManagedObjectModel) throws(ObjectGraphError) -> PredicateComparison {
        guard modifier == .direct, op == .contains, case .keyPath(let path) = left else { return self }
        let resolved = try ModelKeyPath(path, root: root, model: model)
        guard case .relationship = resolved.terminal, resolved.quantifiedHop != nil else { return self }
        var c = self
        c.modifier = .any
        c.op = .equalTo
        return c
    }
}

struct PredicateValidator {
    let model: ManagedObjectModel
    let root: Entity

    /// What an operand compares as.
    enum Kind: Equatable {
        case string, number, bool, date, data, null
        /// A relationship key path, with its destination entity.
        case relationship(String)
        /// An object reference constant, with its entity.
        case object(String)

        init(_ type: AttributeType) {
            switch type {
            case .string: self = .string
            case .integer, .double: self = .number
            case .bool: self = .bool
            case .date: self = .date
            case .data: self = .data
            }
        }

        init(_ value: Value) {
            switch value {
            case .null: self = .null
            case .string: self = .string
            case .integer, .double: self = .number
            case .bool: self = .bool
            case .date: self = .date
            case .data: self = .data
            }
        }

        /// The entity of a relationship's destination or of an object reference.
        var objectEntity: String? {
            switch self {
            case .relationship(let e), .object(let e): return e
            default: return nil
            }
        }

        var name: String {
            switch self {
            case .string: return "a string"
            case .number: return "a number"
            case .bool: return "a bool"
            case .date: return "a date"
            case .data: return "data"
            case .relationship(let e): return "a relationship to \(e)"
            case .object(let e): return "a \(e) object"
            case .null: return "nil"
            }
        }
    }

    /// One operand as the checker sees it.
    struct Operand {
        var kind: Kind
        /// How a message names the operand: a described key path, or the source abbreviated.
        var described: String?
        var source: PredicateOperand
        var constant: Value?
        var keyPath: ModelKeyPath?

        var text: String { described ?? PredicateValidator.shown(source) }
    }

    /// `e` as messages show it: short whatever its size.
    static func shown(_ e: PredicateOperand) -> String {
        if case .aggregate(let members) = e, members.count > 8 {
            return "{" + members.prefix(3).map { shown($0) }.joined(separator: ", ") + ", … (\(members.count) members)}"
        }
        return PredicateFormatter.abbreviated(e.description, limit: 80)
    }

    func invalid(_ message: String) -> ObjectGraphError {
        .invalidPredicate(entity: root.name, message: message)
    }

    func validate(_ predicate: ObjectPredicate) throws(ObjectGraphError) {
        switch predicate.node {
        case .constant: return
        case .and(let parts), .or(let parts):
            for p in parts { try validate(p) }
        case .not(let inner): try validate(inner)
        case .comparison(let c): try validate(c)
        }
    }

    func operand(_ e: PredicateOperand, side: String) throws(ObjectGraphError) -> Operand {
        switch e {
        case .constant(let v): return Operand(kind: Kind(v), source: e, constant: v)
        case .objectReference(let entity, _):
            guard model.entityIfPresent(named: entity) != nil else { throw .unknownEntity(entity) }
            return Operand(kind: .object(entity), source: e)
        case .keyPath(let path):
            let resolved = try ModelKeyPath(path, root: root, model: model)
            if side != "left", resolved.quantifiedHop != nil {
                throw invalid(
                    "key path '\(PredicateFormatter.abbreviated(path))' crosses a to-many relationship; it can only be the left side of a comparison with ANY, ALL or NONE"
                )
            }
            let text: String
            switch resolved.terminal {
            case .attribute(let a): text = "'\(PredicateFormatter.abbreviated(path))' (\(a.type.rawValue))"
            case .relationship: text = "relationship '\(PredicateFormatter.abbreviated(path))'"
            case .count: text = "'\(PredicateFormatter.abbreviated(path))'"
            }
            return Operand(kind: resolved.kind, described: text, source: e, keyPath: resolved)
        case .aggregate:
            throw invalid("a collection \(Self.shown(e)) can only be the right side of IN or BETWEEN")
        }
    }

    func validate(_ comparison: PredicateComparison) throws(ObjectGraphError) {
        let c = try comparison.membershipDesugared(root: root, model: model)
        let left = try operand(c.left, side: "left")
        if c.modifier == .direct {
            if let quantified = left.keyPath?.quantifiedHop, let kp = left.keyPath {
                throw invalid(
                    "key path '\(PredicateFormatter.abbreviated(kp.path))' crosses the to-many relationship '\(kp.hops[quantified].relationship.name)': use ANY, ALL or NONE"
                )
            }
        } else if left.keyPath?.quantifiedHop == nil {
            throw invalid(
                "\(c.modifier.rawValue) needs a key path through a to-many relationship, but \(left.text) is a single value")
        }
        let rights: [Operand]
        switch (c.op, c.right) {
        case (.in, .aggregate(let members)), (.between, .aggregate(let members)):
            if c.op == .between && members.count != 2 {
                throw invalid("BETWEEN needs exactly two bounds, got \(Self.shown(c.right))")
            }
            var list: [Operand] = []
            for m in members {
                switch m {
                case .aggregate: throw invalid("collections cannot be nested: \(Self.shown(c.right))")
                // A string compares with a string key path whatever the operator (the common
                // `guid IN {…}` of hundreds): nothing to check, no operand to build.
                case .constant(.string) where left.kind == .string: continue
                default: list.append(try operand(m, side: "right"))
                }
            }
            rights = list
        case (.in, .constant(.null)):
            rights = []
        case (.in, _), (.between, _):
            throw invalid("\(c.op.rawValue) needs a collection such as {1, 2} on its right side, got \(Self.shown(c.right))")
        case (_, .aggregate):
            throw invalid("\(c.op.rawValue) needs a single value on its right side, got \(Self.shown(c.right))")
        default:
            rights = [try operand(c.right, side: "right")]
        }
        for right in rights { try check(left, c.op, right) }
        if c.op == .matches, case .constant(.string(let pattern)) = c.right {
            do {
                var p = pattern
                if c.options.contains(.diacriticInsensitive) { p = PredicateSemantics.stripDiacritics(p) }
                _ = try PredicateSemantics.regex(p, caseInsensitive: c.options.contains(.caseInsensitive))
            } catch {
                throw invalid("MATCHES with \(left.text): \(error.message)")
            }
        }
    }

    /// Whether `left op right` compares values of compatible types.
    func check(_ left: Operand, _ op: ComparisonOperator, _ right: Operand) throws(ObjectGraphError) {
        var described: String { "\(left.text) \(op.rawValue) \(right.text)" }
        if left.kind.objectEntity != nil || right.kind.objectEntity != nil {
            guard op == .equalTo || op == .notEqualTo || op == .in else {
                throw invalid("relationships and objects can only be compared using ==, != or IN: \(described)")
            }
            if left.kind == .null || right.kind == .null { return }
            guard left.kind.objectEntity == right.kind.objectEntity else {
                throw invalid("\(left.text) is \(left.kind.name), \(right.text) is \(right.kind.name): \(described)")
            }
            return
        }
        if left.kind == .null || right.kind == .null { return }
        if op.isStringOperator {
            guard left.kind == .string && right.kind == .string else {
                let culprit = left.kind != .string ? left : right
                throw invalid("\(op.rawValue) needs strings, but \(culprit.text) is \(culprit.kind.name)")
            }
            return
        }
        if left.kind == .data || right.kind == .data {
            guard left.kind == right.kind else { throw mismatch(left, right, described) }
            guard op == .equalTo || op == .notEqualTo || op == .in else {
                throw invalid("data can only be compared with ==, != or IN: \(described)")
            }
            return
        }
        switch (left.kind, right.kind) {
        case (.string, .string), (.number, .number), (.bool, .bool), (.date, .date):
            return
        case (.bool, .number), (.number, .bool):
            // A bool key path compares with 1/0; a number key path with YES/NO.
            let boolSide = left.kind == .bool ? left : right
            let numberSide = left.kind == .bool ? right : left
            if numberSide.keyPath != nil && boolSide.keyPath != nil { return }
            if let v = numberSide.constant, v.numericValue == 0 || v.numericValue == 1 { return }
            if boolSide.constant != nil { return }
            throw invalid("\(boolSide.text) compares with YES/NO or 1/0, not \(numberSide.text)")
        case (.date, .number), (.number, .date):
            // A number of seconds since 1970 stands for a date only as a constant.
            let numberSide = left.kind == .number ? left : right
            if numberSide.constant != nil { return }
            throw mismatch(left, right, described)
        default:
            throw mismatch(left, right, described)
        }
    }

    func mismatch(_ left: Operand, _ right: Operand, _ described: String) -> ObjectGraphError {
        invalid("cannot compare \(left.kind.name) with \(right.kind.name): \(described)")
    }
}
