import Foundation
import ZeaderConfig
import ZeaderKit

/// newsboat's select-filter (`f`): the filters the config defines with `define-filter`, then
/// Zeader's named predicates, its smart feeds (stored, and `smart-feed` lines of the config);
/// ENTER narrows the open item list by the one picked, as `F` does with a typed predicate
/// (`^F` clears it).
extension ReaderApp {
    func showFilterList() {
        var filters = model.configSmartFeeds.map { ($0.title, $0.predicateFormat) }
        do {
            filters =
                config.definedFilters.map { ($0.title, $0.predicateFormat) }
                + (try SmartFeeds.stored(in: model.context).map { ($0.title, $0.predicateFormat) }) + filters
        } catch {
            state.say(.failed("\(error)"))
            return
        }
        guard !filters.isEmpty else {
            state.say(.reader(.noSmartFeeds))
            return
        }
        var picker = PickerState(
            kind: .filters, title: "Filters (smart feeds)", entries: filters.map { "\($0.0)  (\($0.1))" },
            values: filters.map(\.1))
        if let current = state.items?.filter, let index = picker.values.firstIndex(of: current) {
            picker.position.set(index, count: filters.count, height: state.listHeight)
        }
        state.stack.append(.picker(picker))
    }

    /// ENTER filters the item list under the picker by the predicate picked.
    func applyPickedFilter() {
        guard let format = state.picker?.selectedValue else { return notHere(.open) }
        back()
        applyFilter(format)
        if case .filter(_, let error?)? = state.prompt {
            state.prompt = nil
            state.say(.reader(.cannotFilter(by: format, error)))
        }
    }
}
