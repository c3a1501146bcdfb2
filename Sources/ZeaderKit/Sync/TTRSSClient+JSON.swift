import Feeds
import Foundation

// The parts of TT-RSS's answers the client reads. A server gives data only: every field is
// optional and read leniently (a number as a JSON number or a string of digits, as PHP's
// database drivers give either); a field of another type reads as missing, and a row without
// an id is left out. Only an answer whose shape is wrong as a whole is refused.
extension TTRSSClient {
    /// `{"seq": …, "status": 0 or 1, "content": …}`, decoded once: `content` as `Content` when
    /// the status is 0, else as the error it names (a page of items is decoded once, not once
    /// for the status and again for the items).
    enum Envelope<Content: Decodable>: Decodable {
        /// Status 0: the call's content (nil when the answer has none).
        case content(Content?)
        /// Another status, and the error `content` names, if any.
        case failed(status: UInt64, error: String?)

        /// Thrown when the answer is JSON but not TT-RSS's (no status).
        struct NoStatus: Error {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard let status = (try? container.decodeIfPresent(FeverNumber.self, forKey: .status))?.value else {
                throw NoStatus()
            }
            if status == 0 {
                self = .content(try container.decodeIfPresent(Content.self, forKey: .content))
            } else {
                let error = try? container.decodeIfPresent(ErrorContent.self, forKey: .content)
                self = .failed(status: status, error: error?.error)
            }
        }

        enum CodingKeys: String, CodingKey { case status, content }
    }

    /// `content` of a failed call: `{"error": "NOT_LOGGED_IN"}`; anything else reads as no error.
    struct ErrorContent: Decodable {
        var error: String?

        init(from decoder: any Decoder) throws {
            error = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .error)
        }

        enum CodingKeys: String, CodingKey { case error }
    }

    /// `content` of `login`.
    struct LoginContent: Decodable {
        var sessionID: String?

        init(from decoder: any Decoder) throws {
            sessionID = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .sessionID)
        }

        enum CodingKeys: String, CodingKey { case sessionID = "session_id" }
    }

    /// `content.status` of `subscribeToFeed`: `code` 0 (already subscribed) or 1 (subscribed)
    /// with `feed_id`; 2 a bad URL, 3 no feed in the page, 4 several feeds in it, 5 the feed
    /// could not be fetched (`message`).
    struct SubscribeContent: Decodable {
        var status: Status?

        struct Status: Decodable {
            var code: FeverNumber?
            var feedID: FeverNumber?
            var message: String?

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                code = try? container.decodeIfPresent(FeverNumber.self, forKey: .code)
                feedID = try? container.decodeIfPresent(FeverNumber.self, forKey: .feedID)
                message = try? container.decodeIfPresent(String.self, forKey: .message)
            }

            enum CodingKeys: String, CodingKey {
                case code, message
                case feedID = "feed_id"
            }
        }
    }

    /// A row of `getFeeds`.
    struct Feed: Decodable {
        var id: UInt64?
        var title: String?
        var url: String?
        /// The feed's category; 0 (or none) when it is in none.
        var categoryID: UInt64?

        init(from decoder: any Decoder) throws {
            let container = try? decoder.container(keyedBy: CodingKeys.self)
            id = (try? container?.decodeIfPresent(FeverNumber.self, forKey: .id))??.value
            title = try? container?.decodeIfPresent(String.self, forKey: .title)
            url = try? container?.decodeIfPresent(String.self, forKey: .url)
            categoryID = (try? container?.decodeIfPresent(FeverNumber.self, forKey: .categoryID))??.value
        }

        enum CodingKeys: String, CodingKey {
            case id, title
            case url = "feed_url"
            case categoryID = "cat_id"
        }
    }

    /// A row of `getCategories`.
    struct Category: Decodable {
        var id: UInt64?
        var title: String?

        init(from decoder: any Decoder) throws {
            let container = try? decoder.container(keyedBy: CodingKeys.self)
            id = (try? container?.decodeIfPresent(FeverNumber.self, forKey: .id))??.value
            title = try? container?.decodeIfPresent(String.self, forKey: .title)
        }

        enum CodingKeys: String, CodingKey { case id, title }
    }

    /// A row of `getHeadlines` or `getArticle`.
    struct Headline: Decodable {
        var id: UInt64?
        var feedID: UInt64?
        var title: String?
        var link: String?
        var author: String?
        var content: String?
        /// Seconds since 1970.
        var updated: UInt64?
        var unread: Bool?
        var marked: Bool?

        init(from decoder: any Decoder) throws {
            let container = try? decoder.container(keyedBy: CodingKeys.self)
            func number(_ key: CodingKeys) -> UInt64? { (try? container?.decodeIfPresent(FeverNumber.self, forKey: key))??.value }
            func text(_ key: CodingKeys) -> String? { try? container?.decodeIfPresent(String.self, forKey: key) }
            func flag(_ key: CodingKeys) -> Bool? { (try? container?.decodeIfPresent(TTRSSFlag.self, forKey: key))??.value }
            id = number(.id)
            feedID = number(.feedID)
            title = text(.title)
            link = text(.link)
            author = text(.author)
            content = text(.content)
            updated = number(.updated)
            unread = flag(.unread)
            marked = flag(.marked)
        }

        enum CodingKeys: String, CodingKey {
            case id, title, link, author, content, updated, unread, marked
            case feedID = "feed_id"
        }
    }

    /// `headline` as the engine stores it; nil without an id in range or a feed. TT-RSS's
    /// `guid` is its own hash of the entry's, not the feed's: it is not passed on.
    static func syncItem(_ headline: Headline, now: Date) -> SyncItem? {
        guard let id = headline.id, GReaderClient.isPlausibleItemID(id, now: now), let feed = headline.feedID, feed > 0
        else { return nil }
        return SyncItem(
            id: id, feedID: "feed/\(feed)", title: headline.title, link: headline.link,
            author: headline.author.flatMap { $0.isEmpty ? nil : $0 }, html: headline.content,
            published: headline.updated.flatMap { $0 > 0 ? DateBounds.date(secondsSince1970: TimeInterval($0)) : nil },
            isRead: headline.unread.map { !$0 } ?? false, isStarred: headline.marked ?? false)
    }
}

/// A yes or no TT-RSS sends as a JSON boolean, a number (1, 0) or a string (`t`, `f`, `true`…).
struct TTRSSFlag: Decodable, Sendable {
    var value: Bool?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            value = flag
        } else if let number = try? container.decode(Int.self) {
            value = number == 1 ? true : number == 0 ? false : nil
        } else if let text = try? container.decode(String.self) {
            switch text.lowercased() {
            case "t", "true", "1": value = true
            case "f", "false", "0", "": value = false
            default: value = nil
            }
        } else {
            value = nil
        }
    }
}
