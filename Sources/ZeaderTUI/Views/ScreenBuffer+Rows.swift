extension ScreenBuffer {
    /// Rows `a` and `b` exchanged, cell for cell; rows outside the buffer change nothing.
    ///
    /// ```swift
    /// buffer.swapRows(0, buffer.height - 1)   // swap-title-and-hints
    /// ```
    public mutating func swapRows(_ a: Int, _ b: Int) {
        guard a != b, (0..<height).contains(a), (0..<height).contains(b) else { return }
        for x in 0..<width {
            let cell = self[x, a]
            self[x, a] = self[x, b]
            self[x, b] = cell
        }
    }
}
