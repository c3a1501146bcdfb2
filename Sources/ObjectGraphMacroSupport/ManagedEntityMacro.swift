import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ManagedEntity`: derives a class's `EntityDescription` from its stored properties
/// (a `class var entityDescription` override), names each property's key to typed queries
/// (a `_managedKey(for:)` override) and routes each of them through the storage of the
/// matching property wrapper (`@_ManagedProperty`).
///
/// ```swift
/// @ManagedEntity final class Tag: ManagedObject { var name: String }
/// // adds: override class var entityDescription: EntityDescription? { … }
/// ```
public struct ManagedEntityMacro: MemberMacro, MemberAttributeMacro {
    /// The `entityDescription` override, or nothing after diagnosing a misuse.
    ///
    /// ```swift
    /// let members = try ManagedEntityMacro.expansion(of: node, providingMembersOf: decl, conformingTo: [], in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = checkedClass(node, declaration, context) else { return [] }
        let className = classDecl.name.text
        var properties: [(ManagedProperty, Syntax)] = []
        var isValid = true
        for member in classDecl.memberBlock.members {
            switch ManagedProperty.analyze(member.decl) {
            case .notManaged: continue
            case .invalid(let diagnostics):
                diagnostics.forEach(context.diagnose)
                isValid = false
            case .managed(let property): properties.append((property, Syntax(member.decl)))
            }
        }
        // An entity with a property left out would only add errors of its own.
        guard diagnoseAmbiguousInverses(properties, of: className, context) && isValid else { return [] }

        let arguments = EntityArguments(node)
        let attributes = properties.compactMap { attributeSource($0.0) }
        let relationships = properties.compactMap { relationshipSource($0.0) }
        var unique = properties.filter { $0.0.isUnique }.map { "[\($0.0.key)]" }.joined(separator: ", ")
        unique = "[\(unique)]"
        if let more = arguments.unique { unique = unique == "[]" ? more : "\(unique) + \(more)" }
        let access = classDecl.modifiers.contains { ["public", "open"].contains($0.name.text) } ? "public " : ""
        func list(_ items: [String]) -> String {
            items.isEmpty ? "[]" : "[\n" + items.map { "            \($0),\n" }.joined() + "        ]"
        }
        let entity: DeclSyntax = """
            override \(raw: access)class var entityDescription: EntityDescription? {
                var entity = EntityDescription(
                    \(raw: arguments.name ?? "\"\(className)\""), managedClass: \(raw: className).self,
                    attributes: \(raw: list(attributes)),
                    relationships: \(raw: list(relationships)),
                    indexes: \(raw: arguments.indexes ?? "[]"), uniquenessConstraints: \(raw: unique),
                    renamingIdentifier: \(raw: arguments.renamedFrom ?? "nil"))
                entity.parentEntityName = super.entityDescription?.name
                entity.isAbstract = \(raw: arguments.isAbstract)
                return entity
            }
            """
        // Each property's key, for typed queries; a key path this class does not name (one
        // rooted in a sub-entity, a path through a relationship) goes to the superclass.
        let checks = properties.map { "if keyPath == \\\(className).`\($0.0.name)` { return \($0.0.key) }\n" }
        let keys: DeclSyntax = """
            override \(raw: access)class func _managedKey(for keyPath: AnyKeyPath) -> String? {
                \(raw: checks.joined(separator: "    "))    return super._managedKey(for: keyPath)
            }
            """
        return [entity, keys]
    }

    /// `@_ManagedProperty` for each stored property the entity holds, nothing for the others.
    ///
    /// ```swift
    /// let attributes = try ManagedEntityMacro.expansion(of: node, attachedTo: decl, providingAttributesFor: member, in: context)
    /// ```
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        // Not on a class that cannot be an entity: its error is the only one to see.
        guard let classDecl = declaration.as(ClassDeclSyntax.self), classDecl.inheritanceClause != nil,
            case .managed = ManagedProperty.analyze(member)
        else { return [] }
        return ["@_ManagedProperty"]
    }

    /// The class the macro is attached to, or nil after saying why it cannot be an entity.
    static func checkedClass(
        _ node: AttributeSyntax, _ declaration: some DeclGroupSyntax, _ context: some MacroExpansionContext
    ) -> ClassDeclSyntax? {
        if let classDecl = declaration.as(ClassDeclSyntax.self) {
            guard classDecl.inheritanceClause?.inheritedTypes.first != nil else {
                var fixed = classDecl
                fixed.name = classDecl.name.with(\.trailingTrivia, [])
                fixed.inheritanceClause = InheritanceClauseSyntax(
                    inheritedTypes: [InheritedTypeSyntax(type: TypeSyntax(" ManagedObject"))]
                ).with(\.trailingTrivia, .space)
                context.diagnose(
                    Diagnostic(
                        node: classDecl.name, message: MacroDiagnostic.noSuperclass(className: classDecl.name.text),
                        fixIt: FixIt(
                            message: MacroFixIt.addSuperclass,
                            changes: [.replace(oldNode: Syntax(classDecl), newNode: Syntax(fixed))])))
                return nil
            }
            return classDecl
        }
        let keyword: TokenSyntax
        if let s = declaration.as(StructDeclSyntax.self) {
            keyword = s.structKeyword
        } else if let e = declaration.as(EnumDeclSyntax.self) {
            keyword = e.enumKeyword
        } else if let a = declaration.as(ActorDeclSyntax.self) {
            keyword = a.actorKeyword
        } else if let p = declaration.as(ProtocolDeclSyntax.self) {
            keyword = p.protocolKeyword
        } else if let x = declaration.as(ExtensionDeclSyntax.self) {
            keyword = x.extensionKeyword
        } else {
            context.diagnose(Diagnostic(node: node, message: MacroDiagnostic.notAClass(kind: "declaration")))
            return nil
        }
        var fixIts: [FixIt] = []
        if let s = declaration.as(StructDeclSyntax.self), s.inheritanceClause == nil {
            var fixed = ClassDeclSyntax(
                attributes: s.attributes, modifiers: s.modifiers,
                classKeyword: .keyword(.class, leadingTrivia: s.structKeyword.leadingTrivia, trailingTrivia: .space),
                name: s.name.with(\.trailingTrivia, []), genericParameterClause: s.genericParameterClause,
                inheritanceClause: InheritanceClauseSyntax(inheritedTypes: [
                    InheritedTypeSyntax(type: TypeSyntax(" ManagedObject"))
                ]),
                genericWhereClause: s.genericWhereClause, memberBlock: s.memberBlock)
            fixed.inheritanceClause = fixed.inheritanceClause?.with(\.trailingTrivia, .space)
            fixIts.append(
                FixIt(message: MacroFixIt.makeClass, changes: [.replace(oldNode: Syntax(s), newNode: Syntax(fixed))]))
        }
        context.diagnose(Diagnostic(node: keyword, message: MacroDiagnostic.notAClass(kind: keyword.text), fixIts: fixIts))
        return nil
    }

    /// Two relationships of one class to the same destination cannot have their inverses
    /// found by destination alone: each must name its own.
    static func diagnoseAmbiguousInverses(
        _ properties: [(ManagedProperty, Syntax)], of className: String, _ context: some MacroExpansionContext
    ) -> Bool {
        var isValid = true
        var byDestination: [String: [String]] = [:]
        for (property, _) in properties {
            switch property.kind {
            case .toOne(let d), .toMany(let d): byDestination[d, default: []].append(property.name)
            default: continue
            }
        }
        for (property, node) in properties where property.inverse == nil {
            let destination: String
            switch property.kind {
            case .toOne(let d), .toMany(let d): destination = d
            default: continue
            }
            guard let names = byDestination[destination], names.count > 1 else { continue }
            // A relationship to this class that names this one as its inverse settles it.
            if destination == className && properties.contains(where: { $0.0.inverse == property.name }) {
                continue
            }
            let message = MacroDiagnostic.inverseRequired(
                name: property.name, destination: destination, others: names.filter { $0 != property.name })
            var fixIts: [FixIt] = []
            if let variable = node.as(VariableDeclSyntax.self),
                let marker = variable.attributes.compactMap({ $0.as(AttributeSyntax.self) })
                    .first(where: { ManagedProperty.attributeName(.attribute($0)) == "Relationship" }),
                marker.arguments == nil
            {
                let named = AttributeSyntax("@Relationship(inverse: \\\(raw: destination).<#inverse#>)")
                    .with(\.leadingTrivia, marker.leadingTrivia).with(\.trailingTrivia, marker.trailingTrivia)
                fixIts.append(
                    FixIt(message: MacroFixIt.nameInverse, changes: [.replace(oldNode: Syntax(marker), newNode: Syntax(named))]))
            }
            context.diagnose(Diagnostic(node: node, message: message, fixIts: fixIts))
            isValid = false
        }
        return isValid
    }

    /// The `AttributeDescription` a property declares, as Swift source (nil for a relationship).
    static func attributeSource(_ p: ManagedProperty) -> String? {
        var source: String
        if let count = p.derivedCount {
            source = "AttributeDescription.derivedCount(\(p.key), of: \(count.of)"
            if let predicate = count.where { source += ", where: \(predicate)" }
            return source + ")"
        }
        let renamed = p.renamedFrom.map { "\($0)" } ?? "nil"
        switch p.kind {
        case .attribute(let valueType, let isOptional):
            let defaultValue =
                p.defaultValue.map { "(\($0.trimmedDescription) as \(p.declaredType)).valueRepresentation" } ?? ".null"
            source =
                "AttributeDescription(name: \(p.key), type: \(valueType).attributeType, isOptional: \(isOptional), defaultValue: \(defaultValue), isTransient: \(p.isTransient), isIndexed: \(p.isIndexed), renamingIdentifier: \(renamed))"
        case .encoded:
            source =
                "AttributeDescription(name: \(p.key), type: .string, isOptional: true, isTransient: \(p.isTransient), isIndexed: \(p.isIndexed), renamingIdentifier: \(renamed))"
        case .toOne, .toMany:
            return nil
        }
        if !p.validationRules.isEmpty { source += ".validated(\(p.validationRules.joined(separator: ", ")))" }
        return source
    }

    /// The `RelationshipDescription` a property declares, as Swift source (nil for an attribute).
    /// An inverse left unnamed is found when the model is made (see `ManagedObjectModel`).
    static func relationshipSource(_ p: ManagedProperty) -> String? {
        let destination: String
        let isToMany: Bool
        switch p.kind {
        case .toOne(let d): (destination, isToMany) = (d, false)
        case .toMany(let d): (destination, isToMany) = (d, true)
        default: return nil
        }
        let entityName = destination.split(separator: ".").last.map(String.init) ?? destination
        return
            "RelationshipDescription(name: \(p.key), destinationEntityName: \"\(entityName)\", inverseName: \"\(p.inverse ?? "")\", isToMany: \(isToMany), deleteRule: \(p.deleteRule.map { "\($0)" } ?? ".nullify"), isOptional: \(!p.isRequired), renamingIdentifier: \(p.renamedFrom.map { "\($0)" } ?? "nil"), isOrdered: \(p.isOrdered))"
    }
}

/// The arguments of `@ManagedEntity("Name", renamedFrom:, unique:, indexes:, abstract:)`, as source.
struct EntityArguments {
    var name: String?
    var renamedFrom: String?
    var unique: String?
    var indexes: String?
    var isAbstract = false

    init(_ node: AttributeSyntax) {
        guard case .argumentList(let arguments) = node.arguments else { return }
        for argument in arguments {
            let source = argument.expression.trimmedDescription
            switch argument.label?.text {
            case nil: name = source
            case "renamedFrom": renamedFrom = source
            case "unique": unique = source
            case "indexes": indexes = source
            case "abstract":
                isAbstract = argument.expression.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.true)
            default: break
            }
        }
    }
}
