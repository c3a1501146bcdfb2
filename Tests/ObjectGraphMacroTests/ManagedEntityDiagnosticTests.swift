import ObjectGraphMacroSupport
import SwiftSyntaxMacros
import SwiftSyntaxMacrosTestSupport
import XCTest

/// Each misuse of `@ManagedEntity` is one error at the offending place, with a fix-it where
/// the fix is clear, and no expansion that would add compiler errors of its own.
final class ManagedEntityDiagnosticTests: XCTestCase {
    let macros: [String: Macro.Type] = [
        "ManagedEntity": ManagedEntityMacro.self, "_ManagedProperty": ManagedPropertyMacro.self,
        "Attribute": MarkerMacro.self, "Relationship": MarkerMacro.self, "Ignored": MarkerMacro.self,
    ]

    func testAStructIsRefusedAndCanBecomeAClass() {
        assertMacroExpansion(
            """
            @ManagedEntity
            struct Note {
                var title: String
            }
            """,
            expandedSource: """
                struct Note {
                    var title: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@ManagedEntity applies to a ManagedObject subclass, not to a struct", line: 2, column: 1,
                    fixIts: [FixItSpec(message: "make it a ManagedObject subclass")])
            ],
            macros: macros, applyFixIts: ["make it a ManagedObject subclass"],
            fixedSource: """
                @ManagedEntity
                class Note: ManagedObject {
                    var title: String
                }
                """)
    }

    func testOtherKindsOfDeclarationAreRefused() {
        for (kind, article) in [("enum", "an"), ("actor", "an"), ("protocol", "a")] {
            assertMacroExpansion(
                "@ManagedEntity \(kind) Note {}", expandedSource: "\(kind) Note {}",
                diagnostics: [
                    DiagnosticSpec(
                        message: "@ManagedEntity applies to a ManagedObject subclass, not to \(article) \(kind)", line: 1,
                        column: 16)
                ],
                macros: macros)
        }
    }

    func testAClassWithoutSuperclassGetsOne() {
        assertMacroExpansion(
            """
            @ManagedEntity
            final class Note {
                var title: String
            }
            """,
            expandedSource: """
                final class Note {
                    var title: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@ManagedEntity class 'Note' must be a ManagedObject subclass", line: 2, column: 13,
                    fixIts: [FixItSpec(message: "add ': ManagedObject'")])
            ],
            macros: macros, applyFixIts: ["add ': ManagedObject'"],
            fixedSource: """
                @ManagedEntity
                final class Note: ManagedObject {
                    var title: String
                }
                """)
    }

    /// One property with a problem: the error names it at its place, and the entity is not
    /// expanded (so no second error follows from it).
    func assertPropertyProblem(
        _ declaration: String, message: String, column: Int, fixIts: [String] = [], fixed: String? = nil,
        expanded: String? = nil, file: StaticString = #filePath, line: UInt = #line
    ) {
        assertMacroExpansion(
            """
            @ManagedEntity final class Note: ManagedObject {
                \(declaration)
            }
            """,
            expandedSource: """
                final class Note: ManagedObject {
                    \(expanded ?? declaration)
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: message, line: 2, column: column, fixIts: fixIts.map { FixItSpec(message: $0) })
            ],
            macros: macros, applyFixIts: fixed == nil ? nil : fixIts.first.map { [$0] },
            fixedSource: fixed.map {
                """
                @ManagedEntity final class Note: ManagedObject {
                    \($0)
                }
                """
            }, file: file, line: line)
    }

    func testALetBecomesAVar() {
        assertPropertyProblem(
            "let title: String", message: "'title' is a 'let': a managed property is a 'var' (or mark it @Ignored)",
            column: 5, fixIts: ["replace 'let' with 'var'"], fixed: "var title: String")
    }

    func testAnUnsupportedTypeIsNamed() {
        assertPropertyProblem(
            "var point: CGPoint",
            message:
                "'point' has unsupported type 'CGPoint': an attribute is String, Int, Int64, Double, Bool, Date, Data or UUID (or another ValueConvertible marked @Attribute), a relationship is marked @Relationship, a Codable value @Attribute(.encoded)",
            column: 16)
        assertPropertyProblem(
            "var run: () -> Void",
            message:
                "'run' has unsupported type '() -> Void': an attribute is String, Int, Int64, Double, Bool, Date, Data or UUID (or another ValueConvertible marked @Attribute), a relationship is marked @Relationship, a Codable value @Attribute(.encoded)",
            column: 14)
    }

    func testAnUnmarkedClassTypeIsOfferedARelationship() {
        assertPropertyProblem(
            "var folder: Folder?",
            message:
                "'folder' has unsupported type 'Folder?': an attribute is String, Int, Int64, Double, Bool, Date, Data or UUID (or another ValueConvertible marked @Attribute), a relationship is marked @Relationship, a Codable value @Attribute(.encoded)",
            column: 17, fixIts: ["mark it @Relationship"], fixed: "@Relationship var folder: Folder?")
    }

    func testCollectionsAreRelationshipsOrEncoded() {
        let message = { (name: String, type: String) in
            "'\(name)' has unsupported type '\(type)': a to-many relationship is an array of a ManagedObject class marked @Relationship; store a collection of values as @Attribute(.encoded)"
        }
        assertPropertyProblem(
            "var notes: [Note]", message: message("notes", "[Note]"), column: 16,
            fixIts: ["mark it @Relationship", "store it as @Attribute(.encoded)"], fixed: "@Relationship var notes: [Note]")
        assertPropertyProblem(
            "var tags: Set<String>", message: message("tags", "Set<String>"), column: 15,
            fixIts: ["mark it @Relationship", "store it as @Attribute(.encoded)"])
        assertPropertyProblem(
            "var counts: [String: Int]", message: message("counts", "[String: Int]"), column: 17,
            fixIts: ["mark it @Relationship", "store it as @Attribute(.encoded)"])
    }

    func testAToOneIsOptional() {
        assertPropertyProblem(
            "@Relationship var folder: Folder",
            message:
                "to-one relationship 'folder' must be optional ('Folder?'); @Relationship(required: true) makes saving require it",
            column: 31, fixIts: ["make it optional"], fixed: "@Relationship var folder: Folder?",
            expanded: "var folder: Folder")
    }

    func testAToManyIsNotOptional() {
        assertPropertyProblem(
            "@Relationship var notes: [Note]?",
            message: "to-many relationship 'notes' is an array, not an optional (an empty array means no members)",
            column: 30, fixIts: ["remove '?'"], fixed: "@Relationship var notes: [Note]",
            expanded: "var notes: [Note]?")
    }

    func testARelationshipToAValueTypeIsRefused() {
        assertPropertyProblem(
            "@Relationship var name: String?",
            message: "'name' is marked @Relationship but 'String' is a value type, not a ManagedObject class", column: 29,
            expanded: "var name: String?")
    }

    func testAnEncodedValueIsOptional() {
        assertPropertyProblem(
            "@Attribute(.encoded) var layout: Layout",
            message: "@Attribute(.encoded) property 'layout' must be optional: a value that no longer decodes reads as nil",
            column: 38, fixIts: ["make it optional"], fixed: "@Attribute(.encoded) var layout: Layout?",
            expanded: "var layout: Layout")
    }

    func testADerivedCountIsAnInteger() {
        assertPropertyProblem(
            #"@Attribute(.derivedCount(of: "notes")) var count: String"#,
            message: "derived count 'count' must be a non-optional Int or Int64", column: 55, expanded: "var count: String")
        assertPropertyProblem(
            #"@Attribute(.derivedCount(of: "notes")) var count: Int?"#,
            message: "derived count 'count' must be a non-optional Int or Int64", column: 55, expanded: "var count: Int?")
    }

    func testAnExplicitWrapperInsideAnEntityIsRemoved() {
        for wrapper in [#"@Managed("title")"#, #"@ToOne("title")"#, #"@ObjectGraph.Encoded("title")"#] {
            let name = wrapper.split(separator: "(")[0].replacingOccurrences(of: "ObjectGraph.", with: "")
            assertPropertyProblem(
                "\(wrapper) var title: String",
                message: "'title' is declared by @ManagedEntity; remove \(name) (use @Attribute(.named(…)) for another key)",
                column: 5, fixIts: ["remove \(name)"], fixed: "var title: String")
        }
    }

    func testAPropertyWithoutTypeOrLiteralNeedsAnAnnotation() {
        assertPropertyProblem(
            "var created = Date()", message: "'created' needs a type annotation: only a literal's type can be inferred",
            column: 9)
        assertPropertyProblem(
            #"var greeting = "Hello \(name)""#,
            message: "'greeting' needs a type annotation: only a literal's type can be inferred", column: 9)
    }

    func testObserversAreRefused() {
        assertPropertyProblem(
            "var title: String { didSet {} }", message: "'title': willSet/didSet are not supported on a managed property",
            column: 23)
    }

    func testTwoRelationshipsToOneClassNameTheirInverses() {
        assertMacroExpansion(
            """
            @ManagedEntity final class Doc: ManagedObject {
                @Relationship var author: Person?
                @Relationship(inverse: \\Person.edited) var editor: Person?
                @Relationship var reviewer: Person?
            }
            """,
            expandedSource: """
                final class Doc: ManagedObject {
                    var author: Person? {
                        get {
                            ToOne<Person> [_enclosingInstance: self, wrapped: \\Self.author, storage: \\Self._author]
                        }
                        set {
                            ToOne<Person> [_enclosingInstance: self, wrapped: \\Self.author, storage: \\Self._author] = newValue
                        }
                    }

                    private var _author = ToOne<Person>("author")
                    var editor: Person? {
                        get {
                            ToOne<Person> [_enclosingInstance: self, wrapped: \\Self.editor, storage: \\Self._editor]
                        }
                        set {
                            ToOne<Person> [_enclosingInstance: self, wrapped: \\Self.editor, storage: \\Self._editor] = newValue
                        }
                    }

                    private var _editor = ToOne<Person>("editor")
                    var reviewer: Person? {
                        get {
                            ToOne<Person> [_enclosingInstance: self, wrapped: \\Self.reviewer, storage: \\Self._reviewer]
                        }
                        set {
                            ToOne<Person> [_enclosingInstance: self, wrapped: \\Self.reviewer, storage: \\Self._reviewer] = newValue
                        }
                    }

                    private var _reviewer = ToOne<Person>("reviewer")
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'author' needs its inverse named: 'author' and 'editor' and 'reviewer' point to the same class; write @Relationship(inverse: \\Person.…)",
                    line: 2, column: 5, fixIts: [FixItSpec(message: "name the inverse")]),
                DiagnosticSpec(
                    message:
                        "'reviewer' needs its inverse named: 'reviewer' and 'author' and 'editor' point to the same class; write @Relationship(inverse: \\Person.…)",
                    line: 4, column: 5, fixIts: [FixItSpec(message: "name the inverse")]),
            ],
            macros: macros, applyFixIts: ["name the inverse"],
            fixedSource: """
                @ManagedEntity final class Doc: ManagedObject {
                    @Relationship(inverse: \\Person.<#inverse#>) var author: Person?
                    @Relationship(inverse: \\Person.edited) var editor: Person?
                    @Relationship(inverse: \\Person.<#inverse#>) var reviewer: Person?
                }
                """)
    }

    func testOnePropertyPerVar() {
        assertPropertyProblem("var a: Int, b: Int", message: "declare one managed property per 'var'", column: 5)
    }
}
