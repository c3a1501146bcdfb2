import ZeaderConfig

extension ListPosition {
    /// Moves the cursor by `delta` as ``move(by:count:height:)`` does, then as `scrolling`
    /// asks: a single step past an end wraps round (`wrap-scroll`), and the window keeps
    /// `scrolloff` rows beyond the cursor where the list has them.
    ///
    /// ```swift
    /// position.move(by: 1, count: 100, height: 20, scrolling: ListScrolling(scrolloff: 3))
    /// ```
    public mutating func move(by delta: Int, count: Int, height: Int, scrolling: ListScrolling) {
        var target = cursor + delta
        if scrolling.wraps, abs(delta) == 1, count > 0 {
            if target < 0 { target = count - 1 } else if target >= count { target = 0 }
        }
        set(target, count: count, height: height)
        keepInView(rows: scrolling.scrolloff, count: count, height: height)
    }

    /// Scrolls so that `rows` rows show above and below the cursor (fewer at the list's ends;
    /// at most half the window, so that a large number keeps the cursor in the middle).
    mutating func keepInView(rows: Int, count: Int, height: Int) {
        let height = max(1, height)
        let margin = min(rows, (height - 1) / 2)
        guard margin > 0 else { return }
        if cursor - top < margin { top = cursor - margin }
        if top + height - 1 - cursor < margin { top = cursor + margin - height + 1 }
        top = max(0, min(top, max(0, count - height)))
    }
}
