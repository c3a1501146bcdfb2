extension Predicate {
    /// Every key path the predicate reads (`title`, `server.title`, `feedItems.@count`).
    ///
    /// ```swift
    /// try Predicate(format: "read == NO AND server.title != nil").referencedKeyPaths   // ["read", "server.title"]
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
        func visit(_ p: Predicate) {
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
