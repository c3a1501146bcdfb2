import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The reader's input thread's wait: for keys on the terminal, for a signal through the
/// signal handler's pipe, or for the end of input. A terminal that hangs up, or that the
/// reader may no longer read (a background process group whose reads fail with EIO), ends
/// the wait with ``TerminalInputEnd`` instead of reporting "readable" forever.
///
/// ```swift
/// let input = TerminalInput(input: STDIN_FILENO, signals: signalPipe.read)
/// if case .ended(let why) = input.next(timeout: 1000) { print(why) }
/// ```
struct TerminalInput {
    /// What one wait gave.
    enum Event: Equatable {
        /// Keys are there to read.
        case keys
        /// A signal arrived (its number).
        case signal(Int32)
        /// Nothing before the timeout (or the wait was interrupted).
        case idle
        /// Input is over.
        case ended(TerminalInputEnd)
    }

    /// The terminal (standard input) and the read end of the signal pipe.
    let input: Int32
    let signals: Int32

    /// Waits up to `timeout` milliseconds. A readable terminal is checked with a zero-byte
    /// read, which fails (EIO) where a read of keys would, without taking any key.
    func next(timeout: Int32) -> Event {
        var fds = [
            pollfd(fd: input, events: Int16(POLLIN), revents: 0),
            pollfd(fd: signals, events: Int16(POLLIN), revents: 0),
        ]
        let ready = poll(&fds, 2, timeout)
        if ready < 0 { return errno == EINTR ? .idle : .ended(.readFailed(errno: errno)) }
        if fds[1].revents & Int16(POLLIN) != 0 {
            var byte: UInt8 = 0
            if read(signals, &byte, 1) == 1 { return .signal(Int32(byte)) }
        }
        if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return .ended(.hungUp) }
        guard fds[0].revents & Int16(POLLIN) != 0 else { return .idle }
        var byte: UInt8 = 0
        if read(input, &byte, 0) < 0, errno != EINTR, errno != EAGAIN { return .ended(.readFailed(errno: errno)) }
        return .keys
    }
}

/// Why the reader's terminal gives no more input, as the reader says it on exit.
///
/// ```swift
/// print(TerminalInputEnd.readFailed(errno: EIO))   // "cannot read the terminal: Input/output error …"
/// ```
public enum TerminalInputEnd: Error, Equatable, CustomStringConvertible {
    /// The terminal hung up (its other end closed).
    case hungUp
    /// Reading the terminal fails (`EIO`: the reader is in a background process group that
    /// may not read it).
    case readFailed(errno: Int32)

    public var description: String {
        switch self {
        case .hungUp: return "the terminal hung up"
        case .readFailed(let number):
            return "cannot read the terminal: \(String(cString: strerror(number)))"
                + (number == EIO ? " (the reader is not in the terminal's foreground)" : "")
        }
    }
}
