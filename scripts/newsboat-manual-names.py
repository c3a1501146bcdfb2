#!/usr/bin/env python3
"""Lists every directive and action of newsboat's manual, and each directive's example line,
for the compatibility table's tests and the config forms' test.

Usage: scripts/newsboat-manual-names.py [/usr/share/doc/newsboat/newsboat.html]
Writes Tests/ZeaderKitTests/Fixtures/newsboat-manual/names.txt and examples.config.
"""
import html
import re
import sys

manual = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/doc/newsboat/newsboat.html"
text = open(manual, encoding="utf-8").read()
commands = text.find('id="_configuration_commands"')
operations = text.find('id="_available_operations"')
example = text.find('id="_example_configuration"')
podboat = text.find('id="_podboat_configuration_commands"')

directives = re.findall(r'<div id="([^"]+)" class="sidebarblock">', text[commands:operations])
directives += [d.replace("podboat-", "") for d in re.findall(r'<div id="([^"]+)" class="sidebarblock">', text[podboat:])]
plain = re.sub(r"\s+", " ", re.sub("<[^>]+>", " ", text[operations:example]))
actions = re.findall(r"Operation: (\S+)", plain)
for action in re.findall(r"pb-[a-z-]+", text):
    if action not in actions:
        actions.append(action)

with open("Tests/ZeaderKitTests/Fixtures/newsboat-manual/names.txt", "w", encoding="utf-8") as out:
    out.write("# Every directive and action in newsboat 2.21's manual (/usr/share/doc/newsboat/newsboat.html):\n")
    out.write('# "Configuration Commands" and "Podboat Configuration Commands" (directive), "Available\n')
    out.write("# Operations\" and podboat's pb- keys (action). Made by scripts/newsboat-manual-names.py.\n")
    for name in directives:
        out.write(f"directive {name}\n")
    for name in actions:
        out.write(f"action {name}\n")

# Each directive's "Example:" line, as the manual prints it; the manual's own slip
# (`dirbrowser-file-format` under dirbrowser-title-format) is written under the right name.
examples = []
for name, body in re.findall(r'<div id="([^"]+)" class="sidebarblock">(.*?)</div>\s*</div>\s*</div>', text, re.S):
    match = re.search(r"<strong>Example:</strong>(.*?)<br>", body, re.S)
    if not match or name.startswith("cmd-"):
        continue
    line = html.unescape(re.sub("<[^>]+>", "", match.group(1))).strip()
    name = name.replace("podboat-", "")
    if not line.startswith(name + " "):
        line = name + " " + line.split(" ", 1)[1]
    examples.append(line)

with open("Tests/ZeaderKitTests/Fixtures/newsboat-manual/examples.config", "w", encoding="utf-8") as out:
    out.write("# Each directive's example line in newsboat 2.21's manual (/usr/share/doc/newsboat/newsboat.html),\n")
    out.write("# in the manual's order. Made by scripts/newsboat-manual-names.py.\n")
    for line in examples:
        out.write(line + "\n")
