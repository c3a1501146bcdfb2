import Foundation

/// A ``ObjectPredicate`` on objects of `Root`, written with key paths and checked by the compiler:
/// a misspelt property or a value of the wrong type does not compile. It holds the same
/// tree its format-string twin parses to, so it fetches, counts and evaluates in memory
/// exactly as that does.
///
/// ```swift
/// let recent: KeyPathPredicate<FeedItem> = \.read == false && \.published > Date(timeIntervalSince1970: 0)
/// print(recent.predicate.predicateFormat)   // read == NO AND published > CAST(…, "NSDate")
/// ```
///
/// Key paths name ``Managed``, ``ToOne`` and ``ToMany`` properties: `\.title`, through
/// to-one relationships (`\.server?.title`), a to-many's count (`\Server.feedItems.count`), and a
/// to-many's members with ``Swift/KeyPath/any(_:)`` and ``Swift/KeyPath/all(_:)``. A computed
/// property that hands one of them on unchanged counts as it; one that changes the value
/// (`!read`, `title ?? ""`) or reads none makes a key no entity has, saying what it read, and
/// a fetch or an evaluation throws ``ObjectGraphError/unknownKey(entity:key:)`` with it.
public struct KeyPathPredicate<Root: ManagedObject>: Sendable, Equatable, CustomStringConvertible {
    /// The untyped predicate, as ``ObjectPredicate/init(format:_:)`` would parse it.
    ///
    /// ```swift
    /// let p: KeyPathPredicate<FeedItem> = \.read == false
    /// let sameTree = try ObjectPredicate(format: "read == NO") == p.predicate   // true
    /// ```
    public let predicate: ObjectPredicate

    /// Wraps an untyped predicate, for mixing with a format string.
    ///
    /// ```swift
    /// let p = KeyPathPredicate<FeedItem>(try ObjectPredicate(format: "title MATCHES %@", "S.*")) && \.read == false
    /// ```
    public init(_ predicate: ObjectPredicate) { self.predicate = predicate }

    /// Every object. `let all = KeyPathPredicate<FeedItem>.true`
    public static var `true`: KeyPathPredicate { KeyPathPredicate(.true) }
    /// No object. `let none = KeyPathPredicate<FeedItem>.false`
    public static var `false`: KeyPathPredicate { KeyPathPredicate(.false) }

    /// Both hold. `let p: KeyPathPredicate<FeedItem> = \.read == false && \.title != nil`
    public static func && (lhs: KeyPathPredicate, rhs: KeyPathPredicate) -> KeyPathPredicate {
        KeyPathPredicate(lhs.predicate && rhs.predicate)
    }
    /// Either holds. `let p: KeyPathPredicate<Note> = \.rating < 1 || \.rating > 9`
    public static func || (lhs: KeyPathPredicate, rhs: KeyPathPredicate) -> KeyPathPredicate {
        KeyPathPredicate(lhs.predicate || rhs.predicate)
    }
    /// It does not hold. `let p: KeyPathPredicate<FeedItem> = !(\.read == true)`
    public static prefix func ! (predicate: KeyPathPredicate) -> KeyPathPredicate {
        KeyPathPredicate(!predicate.predicate)
    }

    /// The format string of the predicate: `read == NO`.
    public var description: String { predicate.predicateFormat }
}

/// The members of a to-many relationship, quantified, as the left side of a comparison:
/// `ANY feedItems.read == NO` is `(\Server.feedItems).any(\.read) == false`.
///
/// ```swift
/// let someUnread: KeyPathPredicate<Server> = (\Server.feedItems).any(\.read) == false
/// let allLow: KeyPathPredicate<Folder> = (\Folder.notes).all(\.rating) < 3
/// ```
public struct QuantifiedKeyPath<Root: ManagedObject, Value>: Sendable {
    /// The dotted key path from `Root`: `feedItems.read`.
    public let keyPath: String
    /// ``ComparisonModifier/any`` or ``ComparisonModifier/all``.
    public let modifier: ComparisonModifier
}

extension KeyPath where Root: ManagedObject {
    /// Some member of this to-many relationship has `member` satisfying the comparison
    /// that follows (`ANY`).
    ///
    /// ```swift
    /// let p: KeyPathPredicate<Server> = (\Server.feedItems).any(\.title).contains("swift")
    /// ```
    public func any<Member: ManagedObject, V>(_ member: KeyPath<Member, V>) -> QuantifiedKeyPath<Root, V>
    where Value == [Member] {
        QuantifiedKeyPath(keyPath: memberPath(member), modifier: .any)
    }

    /// Every member of this to-many relationship (none, for an empty one) has `member`
    /// satisfying the comparison that follows (`ALL`).
    ///
    /// ```swift
    /// let p: KeyPathPredicate<Server> = (\Server.feedItems).all(\.read) == true
    /// ```
    public func all<Member: ManagedObject, V>(_ member: KeyPath<Member, V>) -> QuantifiedKeyPath<Root, V>
    where Value == [Member] {
        QuantifiedKeyPath(keyPath: memberPath(member), modifier: .all)
    }

    private func memberPath<Member: ManagedObject, V>(_ member: KeyPath<Member, V>) -> String {
        KeyPathRecorder.keyPath(self as PartialKeyPath<Root>) + "." + KeyPathRecorder.keyPath(member as PartialKeyPath<Member>)
    }
}

// MARK: - Building comparisons

/// A typed left side of a comparison: a key path from `Root`, maybe quantified.
private struct TypedLeft {
    let keyPath: String
    let modifier: ComparisonModifier

    init<Root: ManagedObject, V>(_ keyPath: KeyPath<Root, V>) {
        self.keyPath = KeyPathRecorder.keyPath(keyPath as PartialKeyPath<Root>)
        modifier = .direct
    }

    init<Root: ManagedObject, V>(_ quantified: QuantifiedKeyPath<Root, V>) {
        keyPath = quantified.keyPath
        modifier = quantified.modifier
    }

    func compare<Root: ManagedObject>(
        _ op: ComparisonOperator, _ right: PredicateOperand, options: ComparisonOptions = []
    ) -> KeyPathPredicate<Root> {
        KeyPathPredicate(.comparison(.keyPath(keyPath), op, right, options: options, modifier: modifier))
    }
}

/// The operand a value compares as: managed objects by reference, the rest by value.
private func operand(_ value: some ValueConvertible) -> PredicateOperand { .constant(value.valueRepresentation) }
private func operand(_ object: ManagedObject?) -> PredicateOperand {
    object.map { .object($0.objectID) } ?? .constant(.null)
}

/// `keyPath == value`; `nil` matches no value. `let p: KeyPathPredicate<FeedItem> = \.read == false`
public func == <Root: ManagedObject, V: ValueConvertible>(lhs: KeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.equalTo, operand(rhs))
}
/// `keyPath != value`. `let p: KeyPathPredicate<FeedItem> = \.title != nil`
public func != <Root: ManagedObject, V: ValueConvertible>(lhs: KeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.notEqualTo, operand(rhs))
}
/// `keyPath < value`; false when either is nil. `let p: KeyPathPredicate<Note> = \.rating < 3`
public func < <Root: ManagedObject, V: ValueConvertible>(lhs: KeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.lessThan, operand(rhs))
}
/// `keyPath <= value`. `let p: KeyPathPredicate<Note> = \.rating <= 3`
public func <= <Root: ManagedObject, V: ValueConvertible>(lhs: KeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.lessThanOrEqualTo, operand(rhs))
}
/// `keyPath > value`. `let p: KeyPathPredicate<Note> = \.rating > 3`
public func > <Root: ManagedObject, V: ValueConvertible>(lhs: KeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.greaterThan, operand(rhs))
}
/// `keyPath >= value`. `let p: KeyPathPredicate<Note> = \.rating >= 3`
public func >= <Root: ManagedObject, V: ValueConvertible>(lhs: KeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.greaterThanOrEqualTo, operand(rhs))
}

/// A to-one relationship is `object` (nil: is empty). `let p: KeyPathPredicate<FeedItem> = \.server == server`
public func == <Root: ManagedObject, D: ManagedObject>(lhs: KeyPath<Root, D?>, rhs: D?) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.equalTo, operand(rhs))
}
/// A to-one relationship is not `object`. `let p: KeyPathPredicate<FeedItem> = \.server != nil`
public func != <Root: ManagedObject, D: ManagedObject>(lhs: KeyPath<Root, D?>, rhs: D?) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.notEqualTo, operand(rhs))
}

/// Some (`any`) or every (`all`) member's value equals `rhs`.
/// `let p: KeyPathPredicate<Server> = (\Server.feedItems).any(\.read) == false`
public func == <Root: ManagedObject, V: ValueConvertible>(lhs: QuantifiedKeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.equalTo, operand(rhs))
}
/// `let p: KeyPathPredicate<Server> = (\Server.feedItems).all(\.title) != nil`
public func != <Root: ManagedObject, V: ValueConvertible>(lhs: QuantifiedKeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.notEqualTo, operand(rhs))
}
/// `let p: KeyPathPredicate<Folder> = (\Folder.notes).any(\.rating) < 3`
public func < <Root: ManagedObject, V: ValueConvertible>(lhs: QuantifiedKeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.lessThan, operand(rhs))
}
/// `let p: KeyPathPredicate<Folder> = (\Folder.notes).any(\.rating) <= 3`
public func <= <Root: ManagedObject, V: ValueConvertible>(lhs: QuantifiedKeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.lessThanOrEqualTo, operand(rhs))
}
/// `let p: KeyPathPredicate<Folder> = (\Folder.notes).any(\.rating) > 3`
public func > <Root: ManagedObject, V: ValueConvertible>(lhs: QuantifiedKeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.greaterThan, operand(rhs))
}
/// `let p: KeyPathPredicate<Folder> = (\Folder.notes).all(\.rating) >= 3`
public func >= <Root: ManagedObject, V: ValueConvertible>(lhs: QuantifiedKeyPath<Root, V>, rhs: V) -> KeyPathPredicate<Root> {
    TypedLeft(lhs).compare(.greaterThanOrEqualTo, operand(rhs))
}

// MARK: - Strings and collections

/// `String` and `String?`: the values the string operators apply to.
///
/// ```swift
/// let p: KeyPathPredicate<FeedItem> = (\FeedItem.title).contains("swift")   // title is String?
/// ```
public protocol StringValueConvertible: ValueConvertible {}
extension String: StringValueConvertible {}
extension Optional: StringValueConvertible where Wrapped == String {}

extension KeyPath where Root: ManagedObject, Value: StringValueConvertible {
    /// `CONTAINS`, `[c]` and `[d]` from `options`.
    /// `let p: KeyPathPredicate<FeedItem> = (\FeedItem.title).contains("swift", options: .caseInsensitive)`
    public func contains(_ text: String, options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.contains, .constant(.string(text)), options: options)
    }
    /// `BEGINSWITH`. `let p: KeyPathPredicate<FeedItem> = (\FeedItem.title).beginsWith("Re:")`
    public func beginsWith(_ text: String, options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.beginsWith, .constant(.string(text)), options: options)
    }
    /// `ENDSWITH`. `let p: KeyPathPredicate<FeedItem> = (\FeedItem.title).endsWith("!")`
    public func endsWith(_ text: String, options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.endsWith, .constant(.string(text)), options: options)
    }
    /// `LIKE`: `*` any run of characters, `?` one. `let p: KeyPathPredicate<FeedItem> = (\FeedItem.title).like("S*t")`
    public func like(_ pattern: String, options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.like, .constant(.string(pattern)), options: options)
    }
    /// `==` with `[c]`/`[d]`. `let p: KeyPathPredicate<FeedItem> = (\FeedItem.title).equals("swift", options: .caseInsensitive)`
    public func equals(_ text: String, options: ComparisonOptions) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.equalTo, .constant(.string(text)), options: options)
    }
}

extension QuantifiedKeyPath where Value: StringValueConvertible {
    /// `ANY`/`ALL … CONTAINS`. `let p: KeyPathPredicate<Server> = (\Server.feedItems).any(\.title).contains("swift")`
    public func contains(_ text: String, options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.contains, .constant(.string(text)), options: options)
    }
    /// `ANY`/`ALL … BEGINSWITH`. `let p: KeyPathPredicate<Server> = (\Server.feedItems).all(\.title).beginsWith("a")`
    public func beginsWith(_ text: String, options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.beginsWith, .constant(.string(text)), options: options)
    }
    /// `ANY`/`ALL … ENDSWITH`. `let p: KeyPathPredicate<Server> = (\Server.feedItems).any(\.title).endsWith("!")`
    public func endsWith(_ text: String, options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.endsWith, .constant(.string(text)), options: options)
    }
}

extension KeyPath where Root: ManagedObject, Value: ValueConvertible {
    /// `IN {…}`: equal to one of `values`. `let p: KeyPathPredicate<Note> = (\Note.rating).in([1, 2, 3])`
    public func `in`(_ values: [Value], options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.in, .aggregate(values.map(operand)), options: options)
    }
}

extension QuantifiedKeyPath where Value: ValueConvertible {
    /// `ANY`/`ALL … IN {…}`. `let p: KeyPathPredicate<Folder> = (\Folder.notes).any(\.rating).in([1, 2])`
    public func `in`(_ values: [Value], options: ComparisonOptions = []) -> KeyPathPredicate<Root> {
        TypedLeft(self).compare(.in, .aggregate(values.map(operand)), options: options)
    }
}

// MARK: - Sorting

extension ObjectSortDescriptor {
    /// Sorts by the property `keyPath` names (through to-one relationships too).
    ///
    /// ```swift
    /// let newestFirst = ObjectSortDescriptor(\FeedItem.published, ascending: false)
    /// ```
    public init<Root: ManagedObject, V>(_ keyPath: KeyPath<Root, V>, ascending: Bool = true) {
        self.init(KeyPathRecorder.keyPath(keyPath as PartialKeyPath<Root>), ascending: ascending)
    }
}

extension FetchRequest {
    /// A request for the objects matching a key-path predicate.
    ///
    /// ```swift
    /// let request = FetchRequest<FeedItem>(where: \.read == false, sortDescriptors: [ObjectSortDescriptor(\FeedItem.published)])
    /// ```
    public init(
        where predicate: KeyPathPredicate<Result>, sortDescriptors: [ObjectSortDescriptor] = [], fetchLimit: Int = 0,
        fetchOffset: Int = 0, fetchBatchSize: Int = 0
    ) {
        self.init(
            predicate: predicate.predicate, sortDescriptors: sortDescriptors, fetchLimit: fetchLimit, fetchOffset: fetchOffset,
            fetchBatchSize: fetchBatchSize)
    }
}
