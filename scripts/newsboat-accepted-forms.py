#!/usr/bin/env python3
"""Writes the config lines newsboat itself loads, for the test that none of them stops Zeader.

Each candidate is a line of the forms people write: every directive's example from the
manual (examples.config) with its value unquoted, every action bound and in a macro, every
view word, every key name, colour lines and the idioms of real configs. newsboat (2.21, from
the distribution) reads a config holding only that line; the lines it loads are written to
Tests/ZeaderKitTests/Fixtures/newsboat-manual/accepted-by-newsboat.config.

Usage: scripts/newsboat-accepted-forms.py   (needs /usr/bin/newsboat; makes no network request
that leaves the machine: the one feed is https://127.0.0.1:9/feed, and nothing is reloaded)
"""
import os
import subprocess
import tempfile

folder = "Tests/ZeaderKitTests/Fixtures/newsboat-manual/"
examples = [l.rstrip("\n") for l in open(folder + "examples.config") if l.strip() and not l.startswith("#")]
names = [l.split() for l in open(folder + "names.txt") if l.strip() and not l.startswith("#")]
actions = [name for kind, name in names if kind == "action"]

candidates = []


def add(line):
    if line not in candidates:
        candidates.append(line)


for example in examples:
    add(example)
    directive, _, rest = example.partition(" ")
    # The value unquoted, as people write formats and commands.
    if rest.startswith('"') and rest.endswith('"') and rest.count('"') == 2:
        add(directive + " " + rest[1:-1])
views = ["all", "feedlist", "filebrowser", "help", "articlelist", "article", "tagselection", "filterselection",
         "urlview", "podboat", "dirbrowser", "searchresultslist", "dialogs"]
for action in actions:
    add(f"bind-key x {action}")
    add(f"macro x {action}")
for view in views:
    add(f"bind-key x open {view}")
    add(f"unbind-key x {view}")
keys = ["ENTER", "BACKSPACE", "LEFT", "RIGHT", "UP", "DOWN", "PPAGE", "NPAGE", "HOME", "END", "ESC", "TAB", "SPACE",
        "DEL", "INS", "PAGEUP", "PAGEDOWN", "PGUP", "PGDN"]
keys += [f"F{n}" for n in range(1, 13)] + ["^" + chr(c) for c in range(ord("A"), ord("Z") + 1)] + ["^[", "^]", "^_"]
for key in keys:
    add(f"bind-key {key} open")
    add(f"macro {key} open")
    add(f"unbind-key {key}")
for line in open(folder + "idioms.config"):
    if line.strip() and not line.startswith("#"):
        add(line.rstrip("\n"))

accepted = []
for line in candidates:
    with tempfile.TemporaryDirectory() as home:
        with open(os.path.join(home, "config"), "w") as f:
            f.write(line + "\n")
        with open(os.path.join(home, "urls"), "w") as f:
            f.write("https://127.0.0.1:9/feed\n")
        run = subprocess.run(
            ["newsboat", "-C", "config", "-u", "urls", "-c", "cache.db", "-x", "print-unread"],
            cwd=home, env={"HOME": home, "PATH": os.environ["PATH"]}, capture_output=True, text=True, timeout=30)
        if "unread articles" in run.stdout:
            accepted.append(line)

with open(folder + "accepted-by-newsboat.config", "w", encoding="utf-8") as out:
    out.write("# Config lines newsboat 2.21 loads, one per config: made by scripts/newsboat-accepted-forms.py.\n")
    for line in accepted:
        out.write(line + "\n")
print(f"{len(accepted)} of {len(candidates)} lines loaded by newsboat")
