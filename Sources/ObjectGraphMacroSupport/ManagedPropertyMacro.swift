import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_ManagedProperty`, which `@ManagedEntity` puts on each managed stored property: the
/// property becomes computed, reading and writing through the static subscript of the
/// property wrapper its kind calls for, with that wrapper's value as its storage (`_title`),
/// so that it behaves exactly as the explicit `@Managed("title") var title` form.
///
/// ```swift
/// @_ManagedProperty var title: String
/// // becomes: var title: String { get { Managed<String>[_enclosingInstance: self, …] } set { … } }
/// //          private var _title = Managed<String>("title")
/// ```
public struct ManagedPropertyMacro: AccessorMacro, PeerMacro {
    /// The property's accessors (and an init accessor when it has an initial value).
    ///
    /// ```swift
    /// let accessors = try ManagedPropertyMacro.expansion(of: node, providingAccessorsOf: variable, in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard case .managed(let p) = ManagedProperty.analyze(declaration) else { return [] }
        let subscriptCall = "\(p.storageType)[_enclosingInstance: self, wrapped: \\Self.\(p.name), storage: \\Self._\(p.name)]"
        let accessors: [AccessorDeclSyntax] = [
            "get { \(raw: subscriptCall) }",
            "set { \(raw: subscriptCall) = newValue }",
        ]
        let hasInitialValue = declaration.as(VariableDeclSyntax.self)?.bindings.first?.initializer != nil
        guard hasInitialValue else { return accessors }
        // The initial value (`var done = false`) is the model's default for new objects,
        // which the entity carries: the storage keeps nothing of it. (Only a property with an
        // initial value gets an init accessor: one without would then need an initializer.)
        let initAccessor: AccessorDeclSyntax = """
            @storageRestrictions(accesses: _\(raw: p.name))
            init(initialValue) {
            }
            """
        return [initAccessor] + accessors
    }

    /// The wrapper value the accessors keep their key in (`_title`).
    ///
    /// ```swift
    /// let storage = try ManagedPropertyMacro.expansion(of: node, providingPeersOf: variable, in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard case .managed(let p) = ManagedProperty.analyze(declaration) else { return [] }
        return ["private var _\(raw: p.name) = \(raw: p.storageType)(\(raw: p.key))"]
    }
}

/// `@Attribute(…)`, `@Relationship(…)` and `@Ignored`: read by `@ManagedEntity`, they
/// expand to nothing themselves.
///
/// ```swift
/// @Attribute(.unique) var name: String   // no expansion of its own
/// ```
public struct MarkerMacro: PeerMacro {
    /// Nothing: the marker's arguments are read by `@ManagedEntity`.
    ///
    /// ```swift
    /// let none = try MarkerMacro.expansion(of: node, providingPeersOf: variable, in: context)   // []
    /// ```
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
