import Foundation
import ObjectGraph
import ZeaderConfig
import ZeaderKit

/// newsboat's `highlight-article FILTER FG BG [ATTR…]`: an item row the filter matches is
/// painted in the line's colours (``ReaderConfig/paintedHighlights`` gives them their places).
extension ReaderModel {
    /// The config's highlight-article lines, each with the 1-based highlight it paints with
    /// (lines whose filter does not compile are left out; the config check warned of them).
    ///
    /// ```swift
    /// model.itemHighlights = ReaderModel.articleHighlightPredicates(config)
    /// ```
    static func articleHighlightPredicates(_ config: ReaderConfig) -> [(highlight: Int, predicate: ObjectPredicate)] {
        config.articleHighlights.enumerated().compactMap { n, rule in
            guard let predicate = try? ZeaderModel.itemPredicate(format: rule.predicateFormat) else { return nil }
            return (config.highlightRules.count + n + 1, predicate)
        }
    }

    /// The highlight the first matching line gives `item`, 0 for none.
    func articleHighlight(of item: FeedItem) -> Int {
        itemHighlights.first { (try? $0.predicate.evaluate(with: item)) == true }?.highlight ?? 0
    }
}
