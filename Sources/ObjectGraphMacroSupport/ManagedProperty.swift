import SwiftDiagnostics
import SwiftSyntax

/// One stored property of a `@ManagedEntity` class, read from its declaration: what the
/// entity says of it and which property wrapper's storage carries it.
struct ManagedProperty {
    enum Kind {
        /// `Managed<declaredType>`; `valueType` is the type without its `?`.
        case attribute(valueType: String, isOptional: Bool)
        /// `Encoded<valueType>`, a JSON string attribute.
        case encoded(valueType: String)
        case toOne(destination: String)
        case toMany(destination: String)
    }

    var name: String
    /// The model key, as Swift source: `"title"` unless `.named(…)` says otherwise.
    var key: String
    var kind: Kind
    /// The property's type as written (`String?`, `[Item]`).
    var declaredType: String
    var defaultValue: ExprSyntax?
    var isUnique = false
    var isIndexed = false
    var isTransient = false
    var renamedFrom: ExprSyntax?
    var validationRules: [String] = []
    var derivedCount: (of: ExprSyntax, where: ExprSyntax?)?
    var deleteRule: ExprSyntax?
    /// The inverse's key when the declaration names it (`inverse: \Folder.notes`).
    var inverse: String?
    var isOrdered = false
    var isRequired = false

    /// The property wrapper type whose storage and accessors carry the property.
    var storageType: String {
        switch kind {
        case .attribute: return "Managed<\(declaredType)>"
        case .encoded(let valueType): return "Encoded<\(valueType)>"
        case .toOne(let destination): return "ToOne<\(destination)>"
        case .toMany(let destination): return "ToMany<\(destination)>"
        }
    }

    /// What a stored property of a `@ManagedEntity` class turns out to be.
    enum Analysis {
        /// Not part of the entity: computed, static, lazy or `@Ignored`.
        case notManaged
        case managed(ManagedProperty)
        case invalid([Diagnostic])
    }

    /// Types an attribute can have without being marked `@Attribute`.
    static let valueTypes: Set<String> = [
        "String", "Int", "Int64", "Double", "Bool", "Date", "Data", "UUID",
        "Swift.String", "Swift.Int", "Swift.Int64", "Swift.Double", "Swift.Bool",
        "Foundation.Date", "Foundation.Data", "Foundation.UUID",
    ]

    static let explicitWrappers: Set<String> = ["Managed", "ToOne", "ToMany", "Encoded"]

    /// Reads `member` of the class, or says why it cannot be managed.
    static func analyze(_ member: some SyntaxProtocol) -> Analysis {
        guard let variable = member.as(VariableDeclSyntax.self) else { return .notManaged }
        let modifiers = Set(variable.modifiers.map(\.name.text))
        if !modifiers.isDisjoint(with: ["static", "class", "lazy"]) { return .notManaged }
        if variable.attributes.contains(where: { attributeName($0) == "Ignored" }) { return .notManaged }
        guard let binding = variable.bindings.first else { return .notManaged }
        if let accessors = binding.accessorBlock {
            switch accessors.accessors {
            case .getter: return .notManaged
            case .accessors(let list):
                let kinds = Set(list.map(\.accessorSpecifier.tokenKind))
                if kinds.isSubset(of: [.keyword(.willSet), .keyword(.didSet)]) {
                    return .invalid([Diagnostic(node: accessors, message: MacroDiagnostic.observers(name: bindingName(binding)))])
                }
                return .notManaged
            }
        }
        let name = bindingName(binding)
        if variable.bindings.count > 1 {
            return .invalid([Diagnostic(node: variable, message: MacroDiagnostic.severalBindings)])
        }
        for attribute in variable.attributes {
            guard case .attribute(let a) = attribute, let wrapper = attributeName(attribute),
                explicitWrappers.contains(wrapper)
            else { continue }
            var fixed = variable
            fixed.attributes = variable.attributes.filter { $0.as(AttributeSyntax.self) != a }
            fixed.leadingTrivia = variable.leadingTrivia
            return .invalid([
                Diagnostic(
                    node: a, message: MacroDiagnostic.wrapperInsideEntity(name: name, wrapper: "@\(wrapper)"),
                    fixIt: FixIt(
                        message: MacroFixIt.removeWrapper("@\(wrapper)"),
                        changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(fixed))]))
            ])
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            return .invalid([
                Diagnostic(
                    node: variable.bindingSpecifier, message: MacroDiagnostic.letProperty(name: name),
                    fixIt: FixIt(
                        message: MacroFixIt.useVar,
                        changes: [
                            .replace(
                                oldNode: Syntax(variable.bindingSpecifier),
                                newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var))))
                        ]))
            ])
        }
        let attributeMarker = variable.attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }
            .first { attributeName(.attribute($0)) == "Attribute" }
        let relationshipMarker = variable.attributes.lazy.compactMap { $0.as(AttributeSyntax.self) }
            .first { attributeName(.attribute($0)) == "Relationship" }

        let typeSyntax: TypeSyntax
        if let annotated = binding.typeAnnotation?.type {
            typeSyntax = annotated
        } else if let initial = binding.initializer?.value, let inferred = literalType(initial) {
            typeSyntax = TypeSyntax(IdentifierTypeSyntax(name: .identifier(inferred)))
        } else {
            return .invalid([Diagnostic(node: binding, message: MacroDiagnostic.noTypeAnnotation(name: name))])
        }
        let declaredType = typeSyntax.trimmedDescription
        var property = ManagedProperty(
            name: name, key: "\"\(name)\"", kind: .attribute(valueType: declaredType, isOptional: false),
            declaredType: declaredType, defaultValue: binding.initializer?.value)
        let (base, isOptional, isArray) = shape(of: typeSyntax)

        if let relationshipMarker {
            readRelationshipArguments(relationshipMarker, into: &property)
            if valueTypes.contains(base) {
                return .invalid([
                    Diagnostic(node: typeSyntax, message: MacroDiagnostic.relationshipToValue(name: name, type: base))
                ])
            }
            if isArray {
                if isOptional {
                    return .invalid([
                        Diagnostic(
                            node: typeSyntax, message: MacroDiagnostic.toManyOptional(name: name),
                            fixIt: FixIt(
                                message: MacroFixIt.removeOptional,
                                changes: [
                                    .replace(oldNode: Syntax(typeSyntax), newNode: Syntax(TypeSyntax(stringLiteral: "[\(base)]")))
                                ]))
                    ])
                }
                property.kind = .toMany(destination: base)
            } else {
                if !isOptional {
                    return .invalid([
                        Diagnostic(
                            node: typeSyntax, message: MacroDiagnostic.toOneNotOptional(name: name, type: base),
                            fixIt: FixIt(
                                message: MacroFixIt.makeOptional,
                                changes: [
                                    .replace(oldNode: Syntax(typeSyntax), newNode: Syntax(TypeSyntax(stringLiteral: "\(base)?")))
                                ]))
                    ])
                }
                property.kind = .toOne(destination: base)
            }
            return .managed(property)
        }

        if let attributeMarker { readAttributeArguments(attributeMarker, into: &property) }
        if case .attribute = property.kind {
        } else {
            // `.encoded`
            if !isOptional {
                return .invalid([
                    Diagnostic(
                        node: typeSyntax, message: MacroDiagnostic.encodedNotOptional(name: name),
                        fixIt: FixIt(
                            message: MacroFixIt.makeOptional,
                            changes: [
                                .replace(
                                    oldNode: Syntax(typeSyntax), newNode: Syntax(TypeSyntax(stringLiteral: "\(declaredType)?")))
                            ]))
                ])
            }
            let wrapped = optionalWrapped(typeSyntax)?.trimmedDescription ?? base
            property.kind = .encoded(valueType: wrapped)
            return .managed(property)
        }
        if property.derivedCount != nil
            && (isOptional || isArray || !["Int", "Int64", "Swift.Int", "Swift.Int64"].contains(base))
        {
            return .invalid([Diagnostic(node: typeSyntax, message: MacroDiagnostic.derivedCountNotInteger(name: name))])
        }
        if isArray {
            let withMarker = adding("@Attribute(.encoded)", to: variable)
            let asRelationship = adding("@Relationship", to: variable)
            return .invalid([
                Diagnostic(
                    node: typeSyntax, message: MacroDiagnostic.unsupportedCollection(name: name, type: declaredType),
                    fixIts: [
                        FixIt(
                            message: MacroFixIt.markRelationship,
                            changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(asRelationship))]),
                        FixIt(
                            message: MacroFixIt.markEncoded,
                            changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(withMarker))]),
                    ])
            ])
        }
        if (!valueTypes.contains(base) && attributeMarker == nil) || !isSimpleType(base) {
            let asRelationship = adding("@Relationship", to: variable)
            var fixIts: [FixIt] = []
            if isSimpleType(base) && isOptional {
                fixIts.append(
                    FixIt(
                        message: MacroFixIt.markRelationship,
                        changes: [.replace(oldNode: Syntax(variable), newNode: Syntax(asRelationship))]))
            }
            return .invalid([
                Diagnostic(
                    node: typeSyntax, message: MacroDiagnostic.unsupportedType(name: name, type: declaredType),
                    fixIts: fixIts)
            ])
        }
        property.kind = .attribute(valueType: base, isOptional: isOptional)
        return .managed(property)
    }

    /// `variable` with `attribute` written in front of it, on the same line.
    static func adding(_ attribute: AttributeSyntax, to variable: VariableDeclSyntax) -> VariableDeclSyntax {
        var fixed = variable
        fixed.leadingTrivia = []
        fixed.attributes.append(.attribute(attribute.with(\.trailingTrivia, .space)))
        fixed.leadingTrivia = variable.leadingTrivia
        return fixed
    }

    /// The name of an attribute such as `@Attribute(.unique)` (`Attribute`), without a module.
    static func attributeName(_ element: AttributeListSyntax.Element) -> String? {
        guard case .attribute(let attribute) = element else { return nil }
        let text = attribute.attributeName.trimmedDescription
        let last = text.split(separator: ".").last.map(String.init) ?? text
        return last.split(separator: "<").first.map(String.init) ?? last
    }

    /// The property's name, without the backticks of `` `default` ``: the model key and the
    /// storage's name (`_default`) are made from it.
    static func bindingName(_ binding: PatternBindingSyntax) -> String {
        guard let token = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier else {
            return binding.pattern.trimmedDescription
        }
        return token.identifier?.name ?? token.text
    }

    /// The type a literal initial value has when no annotation says.
    static func literalType(_ expr: ExprSyntax) -> String? {
        if expr.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if expr.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if expr.is(FloatLiteralExprSyntax.self) { return "Double" }
        if let string = expr.as(StringLiteralExprSyntax.self),
            string.segments.allSatisfy({ $0.is(StringSegmentSyntax.self) })
        {
            return "String"
        }
        if let prefix = expr.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return literalType(prefix.expression)
        }
        return nil
    }

    /// The type inside `T?` or `Optional<T>`, if it is one.
    static func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
            let argument = identifier.genericArgumentClause?.arguments.first?.argument
        {
            return TypeSyntax(argument.trimmed)
        }
        return nil
    }

    /// A type's base name, and whether it is optional and an array: `[Item]` is ("Item", false, true).
    static func shape(of type: TypeSyntax) -> (base: String, isOptional: Bool, isArray: Bool) {
        var current = type
        var isOptional = false
        if let wrapped = optionalWrapped(current) {
            isOptional = true
            current = wrapped
        }
        if let array = current.as(ArrayTypeSyntax.self) {
            return (array.element.trimmedDescription, isOptional, true)
        }
        if let identifier = current.as(IdentifierTypeSyntax.self), identifier.name.text == "Array",
            let element = identifier.genericArgumentClause?.arguments.first?.argument
        {
            return (element.trimmedDescription, isOptional, true)
        }
        if let identifier = current.as(IdentifierTypeSyntax.self),
            ["Set", "Dictionary"].contains(identifier.name.text)
        {
            return (current.trimmedDescription, isOptional, true)
        }
        if current.is(DictionaryTypeSyntax.self) { return (current.trimmedDescription, isOptional, true) }
        return (current.trimmedDescription, isOptional, false)
    }

    /// A plain (possibly qualified) type name, not a tuple, function or generic.
    static func isSimpleType(_ text: String) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }
    }

    /// Reads `@Attribute(.unique, .renamed(from: "old"), …)`.
    static func readAttributeArguments(_ attribute: AttributeSyntax, into property: inout ManagedProperty) {
        guard case .argumentList(let arguments) = attribute.arguments else { return }
        for argument in arguments {
            if let member = argument.expression.as(MemberAccessExprSyntax.self) {
                switch member.declName.baseName.text {
                case "unique": property.isUnique = true
                case "indexed": property.isIndexed = true
                case "transient": property.isTransient = true
                case "encoded": property.kind = .encoded(valueType: "")
                default: break
                }
            } else if let call = argument.expression.as(FunctionCallExprSyntax.self),
                let member = call.calledExpression.as(MemberAccessExprSyntax.self)
            {
                let values = Array(call.arguments)
                switch member.declName.baseName.text {
                case "named": if let first = values.first { property.key = first.expression.trimmedDescription }
                case "renamed": property.renamedFrom = values.first?.expression.trimmed
                case "validated": property.validationRules += values.map(\.expression.trimmedDescription)
                case "derivedCount":
                    if let of = values.first(where: { $0.label?.text == "of" }) {
                        property.derivedCount = (
                            of.expression.trimmed, values.first(where: { $0.label?.text == "where" })?.expression.trimmed
                        )
                    }
                default: break
                }
            }
        }
    }

    /// Reads `@Relationship(deleteRule: .cascade, inverse: \Folder.notes, ordered: true, …)`.
    static func readRelationshipArguments(_ attribute: AttributeSyntax, into property: inout ManagedProperty) {
        guard case .argumentList(let arguments) = attribute.arguments else { return }
        for argument in arguments {
            let expression = argument.expression
            switch argument.label?.text {
            case "deleteRule": property.deleteRule = expression.trimmed
            case "inverse":
                if let keyPath = expression.as(KeyPathExprSyntax.self),
                    let last = keyPath.components.last?.component.as(KeyPathPropertyComponentSyntax.self)
                {
                    property.inverse = last.declName.baseName.text
                }
            case "ordered":
                property.isOrdered = expression.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.true)
            case "required":
                property.isRequired = expression.as(BooleanLiteralExprSyntax.self)?.literal.tokenKind == .keyword(.true)
            case "renamedFrom": property.renamedFrom = expression.trimmed
            case "named": property.key = expression.trimmedDescription
            default: break
            }
        }
    }
}
