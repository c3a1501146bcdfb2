import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that serves ObjectGraph's macros.
@main
struct ObjectGraphMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [
        ManagedEntityMacro.self, ManagedPropertyMacro.self, MarkerMacro.self,
    ]
}
