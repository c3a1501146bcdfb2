import Foundation
import GRDB

/// The SQL functions compiled predicates call for what SQLite cannot do with Core Data's
/// semantics: `[c]`/`[d]` folding, BEGINSWITH, ENDSWITH, CONTAINS, LIKE and MATCHES. They run
/// the same Swift code as ``ObjectPredicate/evaluate(with:)``, so SQL and memory agree.
/// Register them on every connection that runs predicate SQL.
///
/// ```swift
/// var config = Configuration()
/// config.prepareDatabase { db in PredicateSQLFunctions.register(in: db) }
/// ```
public enum PredicateSQLFunctions {
    /// `OG_FOLD(text, options)`: the text folded for ``ComparisonOptions`` `options`; other
    /// values unchanged.
    static let foldFunctionName = "OG_FOLD"
    /// `OG_STRING_OP(operator, options, subject, pattern)`: 1 when the string operator holds,
    /// 0 otherwise (also when either side is not a string).
    static let stringOperatorFunctionName = "OG_STRING_OP"

    /// Adds the functions to `db` (deterministic, so SQLite may use them in indexes and
    /// factor them out of loops).
    ///
    /// ```swift
    /// dbQueue.inDatabase { db in PredicateSQLFunctions.register(in: db) }
    /// ```
    public static func register(in db: Database) {
        db.add(function: fold)
        db.add(function: stringOperator)
    }

    private static let fold = DatabaseFunction(foldFunctionName, argumentCount: 2, pure: true) { arguments in
        guard case .string(let s) = arguments[0].storage else { return arguments[0] }
        let options = ComparisonOptions(rawValue: Int(Int64.fromDatabaseValue(arguments[1]) ?? 0))
        return PredicateSemantics.fold(s, options)
    }

    private static let stringOperator = DatabaseFunction(stringOperatorFunctionName, argumentCount: 4, pure: true) {
        arguments in
        guard let name = String.fromDatabaseValue(arguments[0]), let op = ComparisonOperator(rawValue: name),
            op.isStringOperator
        else {
            throw PredicateEvaluationError(message: "\(stringOperatorFunctionName): unknown operator \(arguments[0])")
        }
        guard case .string(let subject) = arguments[2].storage, case .string(let pattern) = arguments[3].storage else {
            return 0
        }
        let options = ComparisonOptions(rawValue: Int(Int64.fromDatabaseValue(arguments[1]) ?? 0))
        do {
            return try PredicateSemantics.stringOperation(op, options, subject, pattern) ? 1 : 0
        } catch let error as ObjectGraphError {
            // Past the deadline: stop the statement as the progress handler would.
            guard case .timeLimitExceeded = error else { throw error }
            throw DatabaseError(resultCode: .SQLITE_INTERRUPT, message: error.description)
        }
    }
}
