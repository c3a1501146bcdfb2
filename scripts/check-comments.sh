#!/bin/sh
# Comments explain why; branch and session labels, history and figures belong elsewhere
# (commits, CHANGELOG.md, docs/PERFORMANCE.md). This counts what slips into code comments.
#
#   scripts/check-comments.sh                 # fails on any branch or session label
#   scripts/check-comments.sh --measurements  # also lists comments in Sources quoting a figure
#   scripts/check-comments.sh --max 5         # ... and fails when more than 5 do
#
# Run from the repository's root (Tests/ZeaderKitTests/CommentHygieneTests.swift runs it).
set -u
cd "$(dirname "$0")/.." || exit 2

list_measurements=no
max=""
while [ $# -gt 0 ]; do
    case "$1" in
    --measurements) list_measurements=yes ;;
    --max) shift; max="${1:?--max needs a number}"; list_measurements=yes ;;
    *) echo "check-comments.sh: unknown argument '$1' (--measurements, --max N)" >&2; exit 2 ;;
    esac
    shift
done

# A comment line (//, ///, # in scripts) naming a branch or session: "branch" before a name
# in parentheses or a label of h and digits, such a label alone in parentheses, or "session"
# before a number. The Sync folder's "each branch of the OR" is a predicate's branch, not a
# label: only "branch" followed by a name counts.
label='(//|#).*(\(branch\b|\bbranch (h[0-9]|`|[a-z]+\))|\((h-?[0-9][0-9a-z-]*|h-[a-z][a-z0-9-]*)\)|\bsession (h?[0-9]+|[a-z]+[0-9]+)\b)'
labels=$(grep -rnIE "$label" Sources Tests scripts --include='*.swift' --include='*.sh' --include='*.py' --exclude=check-comments.sh \
    | grep -v '/Fixtures/')
status=0
if [ -n "$labels" ]; then
    echo "Branch or session labels in comments (say why instead):"
    echo "$labels"
    status=1
fi

if [ "$list_measurements" = yes ]; then
    # A figure with a unit of time, memory or speed-up, or a before → after.
    figure='^[[:space:]]*//.*([0-9][0-9.,]* ?(ns|µs|ms|s|MB|MiB|KB|kB|KiB|GB|GiB)\b.*(CPU|wall|peak|took|faster|slower|saved|measured)|(CPU|wall|peak|took|faster|slower|saved|measured).*[0-9][0-9.,]* ?(ns|µs|ms|s|MB|MiB|KB|kB|KiB|GB|GiB)\b|[0-9][0-9.,]* ?→ ?[0-9]|[0-9][0-9.,]* ?[kMG]? instructions|~[0-9][0-9.,]* ?(KB|kB|MB|MiB|ms|s) per|[0-9][0-9.,]* ?(×|x) (faster|slower|less|more)|[0-9]+ ?% of)'
    # zeader-bench describes the workloads it measures: not counted.
    measurements=$(grep -rnIE "$figure" Sources --include='*.swift' --exclude-dir=zeader-bench)
    count=$(printf '%s' "$measurements" | grep -c .)
    echo "$count comment lines in Sources quote a measurement (figures: docs/PERFORMANCE.md)"
    [ -n "$measurements" ] && echo "$measurements"
    if [ -n "$max" ] && [ "$count" -gt "$max" ]; then status=1; fi
fi
exit $status
