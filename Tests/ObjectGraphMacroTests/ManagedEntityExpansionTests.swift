import ObjectGraphMacroSupport
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

/// What `@ManagedEntity` writes for each kind of property.
final class ManagedEntityExpansionTests: XCTestCase {
    let macros: [String: Macro.Type] = [
        "ManagedEntity": ManagedEntityMacro.self, "_ManagedProperty": ManagedPropertyMacro.self,
        "Attribute": MarkerMacro.self, "Relationship": MarkerMacro.self, "Ignored": MarkerMacro.self,
    ]

    func testAttributes() {
        assertMacroExpansion(
            """
            @ManagedEntity
            final class Task: ManagedObject {
                var title: String
                var done = false
                var notes: String?
                @Attribute(.unique, .indexed, .named("uid_text"), .renamed(from: "id")) var uid: UUID
                @Attribute(.transient, .validated(.minimum(0), .maximum(3))) var rank: Int64 = 1
                @Attribute(.encoded) var layout: Layout?
                @Attribute(.derivedCount(of: "items", where: "done == NO")) var open: Int
                @Attribute var level: Level?
                @Ignored var isExpanded = false
                var summary: String { title }
                static let kind = "task"
            }
            """,
            expandedSource: "",
            macros: macros)
    }
}
