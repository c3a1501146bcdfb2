#!/usr/bin/env python3
"""tui_input_end.py - the real reader on a terminal it cannot read, or that goes away: it
must exit promptly with one line on stderr, never spin until something kills it.

  A. `timeout 25 zeader --demo` typed at a shell: timeout puts itself in its own process
     group and ignores SIGTTIN, so the reader is in the background and reads fail (EIO).
  B. the reader in the foreground, then the shell takes the foreground back and a key is
     typed: POLLIN, then EIO on read.
  C. the terminal's other end closes while the reader ignores SIGHUP (as under nohup).
  D. `zeader --demo &` from a shell with job control: the reader says it needs the
     foreground and exits, instead of stopping silently (as newsboat does) or spinning.

Each runs on a pseudo-terminal made here, with a generous bound (the 25 s of timeout in A;
15 s elsewhere), never a tight timing. usage: Tests/e2e/tui_input_end.py
env: ZEADER=.build/debug/zeader
"""
import fcntl
import os
import select
import shutil
import signal
import sys
import tempfile
import termios
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ZEADER = os.path.realpath(os.environ.get("ZEADER", os.path.join(ROOT, ".build/debug/zeader")))
BOUND = 15.0


def environment(home):
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(HOME=home, XDG_CONFIG_HOME=home + "/.config", XDG_DATA_HOME=home + "/.local/share",
               TERM="xterm-256color", LC_ALL="C.UTF-8")
    env.pop("NO_COLOR", None)
    return env


def run_session(scenario, env):
    """Runs a small 'shell' as a session leader on a new pty; returns (status line, output)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, b"\x1e\x00\x64\x00\x00\x00\x00\x00")  # 30 rows, 100 columns
    report_r, report_w = os.pipe()
    control_r, control_w = os.pipe()  # the parent tells the shell when the reader's screen is up
    shell = os.fork()
    if shell == 0:
        try:
            os.close(master)
            os.close(report_r)
            os.close(control_w)
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # the shell may hand the foreground around
            start = time.monotonic()
            reader = os.fork()
            if reader:
                signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the shell outlives a hang-up, to report
            if reader == 0:
                os.setpgid(0, 0)
                for fd in (0, 1, 2):
                    os.dup2(slave, fd)
                if scenario == "B":
                    os.tcsetpgrp(0, os.getpgrp())
                    signal.signal(signal.SIGTTIN, signal.SIG_IGN)
                if scenario == "C":
                    os.tcsetpgrp(0, os.getpgrp())
                    signal.signal(signal.SIGHUP, signal.SIG_IGN)
                if scenario == "D":
                    signal.signal(signal.SIGTTOU, signal.SIG_DFL)  # as a job-control shell leaves it
                if scenario == "A":
                    os.execvpe("timeout", ["timeout", "25", ZEADER, "--demo"], env)
                os.execve(ZEADER, [ZEADER, "--demo"], env)
            os.setpgid(reader, reader) if scenario == "A" else None
            if scenario == "B":
                select.select([control_r], [], [], BOUND)  # the reader has drawn its screen, in the foreground
                os.tcsetpgrp(slave, os.getpgrp())
                os.write(report_w, b"F")  # foreground taken back: the key may be typed
            deadline = start + (30 if scenario == "A" else BOUND + 5)
            status = None
            while time.monotonic() < deadline:
                pid, status = os.waitpid(reader, os.WNOHANG)
                if pid:
                    break
                time.sleep(0.1)
            else:
                os.killpg(reader, signal.SIGKILL)
                os.waitpid(reader, 0)
                status = None
            elapsed = time.monotonic() - start
            code = "killed" if status is None else str(os.waitstatus_to_exitcode(status))
            os.write(report_w, f"exit={code} after={elapsed:.1f}\n".encode())
        finally:
            os._exit(0)
    os.close(slave)
    os.close(report_w)
    os.close(control_r)
    screen_up = False
    output = b""
    report = b""
    master_open = True
    typed = False
    while True:
        fds = [report_r] + ([master] if master_open else [])
        ready, _, _ = select.select(fds, [], [], 0.2)
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if data:
                output += data
                if not screen_up and b"q:quit" in output:
                    screen_up = True
                    os.write(control_w, b"1")
            else:
                master_open = False
        if report_r in ready:
            chunk = os.read(report_r, 1024)
            if not chunk:
                break
            report += chunk
        if report.startswith(b"F") and not typed:
            time.sleep(0.5)
            os.write(master, b"q")  # the reader may no longer read it
            typed = True
        if scenario == "C" and master_open and screen_up:
            os.close(master)  # the terminal goes away
            master_open = False
    if master_open:
        os.close(master)
    os.close(control_w)
    os.waitpid(shell, 0)
    return report.decode(errors="replace").lstrip("F").strip(), output.decode(errors="replace")


def main():
    checks = failures = 0
    home = tempfile.mkdtemp(prefix="zinput.")
    try:
        env = environment(home)
        expectations = {
            "A": ("1", "not in the terminal's foreground process group"),
            "B": ("1", "cannot read the terminal"),
            "C": ("1", None),  # a crash (a signal) is no exit by itself
            "D": ("1", "not in the terminal's foreground process group"),
        }
        for scenario, (code, message) in expectations.items():
            checks += 1
            status, output = run_session(scenario, env)
            fields = dict(part.split("=", 1) for part in status.split())
            problems = []
            if fields.get("exit") in (None, "killed", "124"):
                problems.append(f"did not exit by itself ({status})")
            elif code is not None and fields.get("exit") != code:
                problems.append(f"exit status {fields.get('exit')}, expected {code}")
            if message is not None and message not in output:
                problems.append(f"no '{message}' on the terminal")
            if problems:
                failures += 1
                print(f"FAIL {scenario}: " + "; ".join(problems), file=sys.stderr)
                print("    | " + output[-800:].replace("\n", "\n    | "), file=sys.stderr)
            else:
                print(f"ok {scenario}: {status}")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    print(f"input-end: {checks} checks, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
