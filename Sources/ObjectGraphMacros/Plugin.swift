import ObjectGraphMacroSupport
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin that serves ObjectGraph's macros. The compiler finds each macro by
/// this module's name (`#externalMacro(module: "ObjectGraphMacros", …)`), so the types it
/// lists are declared here, each handing its work to ObjectGraphMacroSupport.
@main
struct ObjectGraphMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ManagedEntityMacro.self, ManagedPropertyMacro.self, MarkerMacro.self,
    ]
}

/// `@ManagedEntity` (see `ObjectGraphMacroSupport.ManagedEntityMacro`).
///
/// ```swift
/// @ManagedEntity final class Tag: ManagedObject { var name: String }
/// ```
public struct ManagedEntityMacro: MemberMacro, MemberAttributeMacro {
    /// The entity's `entityDescription` override.
    ///
    /// ```swift
    /// let members = try ManagedEntityMacro.expansion(of: node, providingMembersOf: decl, conformingTo: [], in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try ObjectGraphMacroSupport.ManagedEntityMacro.expansion(
            of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    /// `@_ManagedProperty` on each managed stored property.
    ///
    /// ```swift
    /// let attributes = try ManagedEntityMacro.expansion(of: node, attachedTo: decl, providingAttributesFor: member, in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        try ObjectGraphMacroSupport.ManagedEntityMacro.expansion(
            of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
    }
}

/// `@_ManagedProperty` (see `ObjectGraphMacroSupport.ManagedPropertyMacro`).
///
/// ```swift
/// @_ManagedProperty var title: String   // applied by @ManagedEntity
/// ```
public struct ManagedPropertyMacro: AccessorMacro, PeerMacro {
    /// The property's accessors.
    ///
    /// ```swift
    /// let accessors = try ManagedPropertyMacro.expansion(of: node, providingAccessorsOf: variable, in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        try ObjectGraphMacroSupport.ManagedPropertyMacro.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }

    /// The property's wrapper storage (`_title`).
    ///
    /// ```swift
    /// let storage = try ManagedPropertyMacro.expansion(of: node, providingPeersOf: variable, in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try ObjectGraphMacroSupport.ManagedPropertyMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@Attribute`, `@Relationship` and `@Ignored`, which expand to nothing.
///
/// ```swift
/// @Ignored var isExpanded = false
/// ```
public struct MarkerMacro: PeerMacro {
    /// Nothing: `@ManagedEntity` reads the marker's arguments.
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
