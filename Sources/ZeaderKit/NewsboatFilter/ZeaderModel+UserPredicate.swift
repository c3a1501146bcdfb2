import Foundation
import ObjectGraph

// The two languages of a user's predicate over items, read in one place.
extension ZeaderModel {
    /// ``itemPredicate(format:)`` with a newsboat filter's `age` counted from `now`.
    ///
    /// ```swift
    /// let lastWeek = try ZeaderModel.itemPredicate(format: "age < 7", now: Date())
    /// ```
    public static func itemPredicate(format: String, now: Date) throws(ObjectGraphError) -> ObjectPredicate {
        let parsed: Result<ObjectPredicate, ObjectGraphError>
        do { parsed = .success(itemPredicate(try ObjectPredicate(format: format))) } catch { parsed = .failure(error) }
        if case .success(let predicate) = parsed, isValidItemPredicate(predicate) { return predicate }
        // Both languages read `title = "x"` alike; only what ObjectGraph refuses is tried as newsboat's.
        switch Result(catching: { () throws(NewsboatFilterError) in try NewsboatFilter(format) }) {
        case .success(let filter):
            do throws(NewsboatFilterError) { return try filter.predicate(now: now) } catch {
                throw .invalidPredicate(entity: "FeedItem", message: error.description)
            }
        case .failure(let error) where NewsboatFilter.looksLikeNewsboat(format):
            throw .invalidPredicate(entity: "FeedItem", message: error.description)
        case .failure:
            return try parsed.get()
        }
    }

    /// Whether `format` is a valid ObjectGraph predicate over FeedItem as written.
    static func isValidItemPredicate(_ format: String) -> Bool {
        guard let predicate = try? ObjectPredicate(format: format) else { return false }
        return isValidItemPredicate(itemPredicate(predicate))
    }

    static func isValidItemPredicate(_ predicate: ObjectPredicate) -> Bool {
        guard let item = try? current.entity(named: "FeedItem") else { return false }
        return (try? predicate.validate(for: item, in: current)) != nil
    }

    /// A predicate over Server the user wrote for the feed list: ObjectGraph's language, or
    /// where that does not read it, newsboat's (``NewsboatFilter/serverPredicate(now:)``).
    ///
    /// ```swift
    /// let busy = try ZeaderModel.serverPredicate(format: "unread_count > 10")   // unreadCount > 10
    /// ```
    public static func serverPredicate(format: String, now: Date = NewsboatFilter.currentHour()) throws(ZeaderError)
        -> ObjectPredicate
    {
        let parsed: Result<ObjectPredicate, ObjectGraphError>
        do { parsed = .success(try ObjectPredicate(format: format)) } catch { parsed = .failure(error) }
        if case .success(let predicate) = parsed, let server = try? current.entity(named: "Server"),
            (try? predicate.validate(for: server, in: current)) != nil
        {
            return predicate
        }
        switch Result(catching: { () throws(NewsboatFilterError) in try NewsboatFilter(format) }) {
        case .success(let filter):
            do throws(NewsboatFilterError) { return try filter.serverPredicate(now: now) } catch {
                throw .invalidPredicate(error.description)
            }
        case .failure(let error) where NewsboatFilter.looksLikeNewsboat(format):
            throw .invalidPredicate(error.description)
        case .failure:
            break
        }
        switch parsed {
        case .success(let predicate): return predicate
        case .failure(let error): throw .invalidPredicate(error.description)
        }
    }
}
