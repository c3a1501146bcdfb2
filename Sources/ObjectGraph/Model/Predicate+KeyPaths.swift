extension ObjectPredicate {
    /// Every key path the predicate reads (`title`, `server.title`, `feedItems.@count`).
    ///
    /// ```swift
    /// let keyPaths = try ObjectPredicate(format: "read == NO AND server.title != nil").referencedKeyPaths   // ["read", "server.title"]
    /// ```
    public var referencedKeyPaths: [String] {
        var result: [String] = []
        func visit(_ e: PredicateExpression) {
            switch e {
            case .keyPath(let k): if !result.contains(k) { result.append(k) }
            case .constant, .objectReference: break
            case .aggregate(let parts): parts.forEach(visit)
            }
        }
        func visit(_ p: ObjectPredicate) {
            switch p.node {
            case .constant: break
            case .and(let parts), .or(let parts): parts.forEach(visit)
            case .not(let inner): visit(inner)
            case .comparison(let c):
                visit(c.left)
                visit(c.right)
            }
        }
        visit(self)
        return result
    }
}

extension ObjectPredicate {
    /// The predicate with each key path replaced by `transform`'s answer for it — for a
    /// model that moved an attribute behind a relationship while its users keep the old
    /// name (`content` read as `body.content`).
    ///
    /// ```swift
    /// let moved = try ObjectPredicate(format: "content CONTAINS 'x'").replacingKeyPaths { $0 == "content" ? "body.content" : $0 }
    /// ```
    public func replacingKeyPaths(_ transform: (String) -> String) -> ObjectPredicate {
        func map(_ e: PredicateOperand) -> PredicateOperand {
            switch e {
            case .keyPath(let k): return .keyPath(transform(k))
            case .constant, .objectReference: return e
            case .aggregate(let parts): return .aggregate(parts.map(map))
            }
        }
        switch node {
        case .constant: return self
        case .and(let parts): return ObjectPredicate(.and(parts.map { $0.replacingKeyPaths(transform) }))
        case .or(let parts): return ObjectPredicate(.or(parts.map { $0.replacingKeyPaths(transform) }))
        case .not(let inner): return ObjectPredicate(.not(inner.replacingKeyPaths(transform)))
        case .comparison(var c):
            c.left = map(c.left)
            c.right = map(c.right)
            return ObjectPredicate(.comparison(c))
        }
    }
}
