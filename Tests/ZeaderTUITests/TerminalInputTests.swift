import Foundation
import Testing

@testable import ZeaderTUI

/// The reader's input wait on real descriptors: keys, signals, nothing, and the ends of
/// input (a pipe or a pseudo-terminal whose other end closes, a descriptor that is gone).
@Suite("TerminalInput: keys, signals and the end of input")
struct TerminalInputTests {
    func closeAll(_ descriptors: Int32...) {
        for descriptor in descriptors { close(descriptor) }
    }

    func makePipe() throws -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        return (fds[0], fds[1])
    }

    /// A pseudo-terminal: its controlling side and the terminal side a program reads.
    /// (`posix_openpt` and friends are not in Swift's Glibc module: /dev/ptmx and two ioctls.)
    func makePseudoTerminal() throws -> (controller: Int32, terminal: Int32) {
        let controller = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(controller >= 0)
        let unlock: UInt = 0x4004_5431  // TIOCSPTLCK
        let number: UInt = 0x8004_5430  // TIOCGPTN
        var locked: Int32 = 0
        var index: Int32 = -1
        try #require(ioctl(controller, unlock, &locked) == 0 && ioctl(controller, number, &index) == 0)
        let terminal = open("/dev/pts/\(index)", O_RDWR | O_NOCTTY)
        try #require(terminal >= 0)
        var modes = termios()
        tcgetattr(terminal, &modes)
        cfmakeraw(&modes)  // keys arrive one by one, as curses' cbreak gives them
        tcsetattr(terminal, TCSANOW, &modes)
        return (controller, terminal)
    }

    @Test func aPipeGivesKeysThenEndsWhenItsWriterCloses() throws {
        let keys = try makePipe()
        let signals = try makePipe()
        defer { closeAll(keys.read, signals.read, signals.write) }
        let input = TerminalInput(input: keys.read, signals: signals.read)
        #expect(input.next(timeout: 0) == .idle)
        _ = write(keys.write, "q", 1)
        #expect(input.next(timeout: 1000) == .keys)
        close(keys.write)
        #expect(input.next(timeout: 1000) == .ended(.hungUp))
        #expect(input.next(timeout: 1000) == .ended(.hungUp))  // and stays ended: no key, no spin
    }

    @Test func aPseudoTerminalWhoseOtherEndClosesEndsInput() throws {
        let pty = try makePseudoTerminal()
        let signals = try makePipe()
        defer { closeAll(pty.terminal, signals.read, signals.write) }
        let input = TerminalInput(input: pty.terminal, signals: signals.read)
        _ = write(pty.controller, "j", 1)
        #expect(input.next(timeout: 1000) == .keys)
        var byte: UInt8 = 0
        #expect(read(pty.terminal, &byte, 1) == 1 && byte == UInt8(ascii: "j"))
        close(pty.controller)
        #expect(input.next(timeout: 1000) == .ended(.hungUp))
    }

    @Test func aSignalIsReportedByNumber() throws {
        let keys = try makePipe()
        let signals = try makePipe()
        defer { closeAll(keys.read, keys.write, signals.read, signals.write) }
        var number = UInt8(SIGWINCH)
        _ = write(signals.write, &number, 1)
        #expect(TerminalInput(input: keys.read, signals: signals.read).next(timeout: 1000) == .signal(SIGWINCH))
    }

    @Test func aDescriptorThatIsGoneEndsInput() throws {
        let keys = try makePipe()
        let signals = try makePipe()
        defer { closeAll(signals.read, signals.write) }
        close(keys.read)
        close(keys.write)
        #expect(TerminalInput(input: keys.read, signals: signals.read).next(timeout: 1000) == .ended(.hungUp))
    }

    @Test func theEndsAreNamed() {
        #expect(TerminalInputEnd.hungUp.description == "the terminal hung up")
        #expect(TerminalInputEnd.readFailed(errno: EIO).description.contains("not in the terminal's foreground"))
        #expect(ReaderTerminalError.notInForeground.description.contains("timeout --foreground"))
    }
}
