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
public struct ManagedEntityMacro: MemberMacro, MemberAttributeMacro {
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try ObjectGraphMacroSupport.ManagedEntityMacro.expansion(
            of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        try ObjectGraphMacroSupport.ManagedEntityMacro.expansion(
            of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
    }
}

/// `@_ManagedProperty` (see `ObjectGraphMacroSupport.ManagedPropertyMacro`).
public struct ManagedPropertyMacro: AccessorMacro, PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        try ObjectGraphMacroSupport.ManagedPropertyMacro.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try ObjectGraphMacroSupport.ManagedPropertyMacro.expansion(of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@Attribute`, `@Relationship` and `@Ignored`, which expand to nothing.
public struct MarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        []
    }
}
