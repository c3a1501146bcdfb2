#!/usr/bin/env python3
"""Keeps the documentation examples of Zeader's libraries compiled by the test suite.

Writes every ```swift example found in the `///` doc comments under Sources/ObjectGraph (and
every ```swift block of its guide, docs/ObjectGraph.md) and under
Sources/Feeds (public declarations only), as functions into generated test sources of the
ObjectGraphDocTests and FeedsDocTests targets (see LIBRARIES):

    python3 scripts/extract-doc-examples.py           # regenerate (commit the result)
    python3 scripts/extract-doc-examples.py --check   # exit 1 if the committed files are stale

`swift test` runs the --check (ObjectGraphDocTests' DocExampleTests), so an example edited,
added or removed without regenerating fails the suite, and one that no longer compiles fails
the build.

Conventions (see each target's DocExampleGiven.swift):
- The visible example is what compiles: it becomes the body of a function, unchanged.
- Names an example uses without declaring them (`context`, `item`, `server`, `url`, ...) are
  "givens": the stored properties of `DocExampleGiven` between its `// MARK: - Givens` and
  `// MARK: - End of givens` lines. The generator passes each given the example mentions as a
  parameter of the same name and type, so an example may also shadow one with its own `let`.
- Model classes the examples share (`Note`, `Folder`, `Server`, `FeedItem`, ...) are declared in
  that file too; an example that declares its own class of the same name shadows it.
- Imports follow the example: ObjectGraph alone, plus Foundation when it names a Foundation type
  (where `ObjectPredicate` and `ObjectSortDescriptor` are ambiguous: write `ObjectPredicate`/`ObjectSortDescriptor`),
  plus GRDB when it names a GRDB type.
- A top-level expression followed by a comment showing its value (`DisplayWidth.of("日本語")  // 6`)
  is compiled as `_ = expression`, so that idiom costs no unused-value warning.
- Other fence languages (```text, ```sh) are not compiled. Code in doc comments must be fenced:
  an indented code block is refused, since it would silently escape compilation.
- Every example is run with fresh givens (for ObjectGraph, a store holding a little data, on the
  view context's queue), unless the target's `notRun` lists its id with the reason.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REGENERATE = "python3 scripts/extract-doc-examples.py"


class Library:
    """A library whose doc examples one test target compiles."""

    def __init__(self, module, target, guide=None, public_only=False):
        self.module = module
        self.sources = f"Sources/{module}"
        self.target = target
        self.givens_file = f"{target}/DocExampleGiven.swift"
        self.guide = guide
        # Examples on declarations that are not public (nor extensions) are skipped: the test
        # target sees the public API only.
        self.public_only = public_only


LIBRARIES = [
    Library("ObjectGraph", "Tests/ObjectGraphDocTests", guide="docs/ObjectGraph.md"),
    Library("Feeds", "Tests/FeedsDocTests", public_only=True),
]

FOUNDATION_NAMES = {
    "URL", "Date", "Data", "UUID", "JSONSerialization", "JSONEncoder", "JSONDecoder", "UserDefaults",
    "DispatchQueue", "TimeInterval", "DateFormatter", "ISO8601DateFormatter", "FileManager",
    "NSRegularExpression", "FileHandle", "Locale", "TimeZone", "Calendar", "ProcessInfo", "Thread",
}
GRDB_NAMES = {
    "Database", "DatabaseQueue", "DatabasePool", "DatabaseReader", "DatabaseWriter", "ValueObservation",
    "Configuration", "StatementArguments", "Row",
}
SWIFT_KEYWORDS = {
    "let", "var", "func", "in", "for", "if", "else", "guard", "return", "try", "await", "do", "catch",
    "case", "switch", "default", "while", "repeat", "break", "continue", "throw", "throws", "true", "false",
    "nil", "self", "Self", "class", "struct", "enum", "protocol", "extension", "final", "override", "where",
    "as", "is", "import", "init", "static", "private", "fileprivate", "internal", "public", "open", "some",
    "any", "inout", "defer", "async", "rethrows", "super", "subscript", "typealias", "associatedtype",
    "mutating", "nonmutating", "lazy", "weak", "unowned", "get", "set",
}


class Problem(Exception):
    pass


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


# MARK: - Givens


def load_givens(lib):
    """name -> Swift type, from DocExampleGiven's stored properties between the MARK lines."""
    givens, inside = {}, False
    for line in read(lib.givens_file).split("\n"):
        if "// MARK: - Givens" in line:
            inside = True
        elif "// MARK: - End of givens" in line:
            inside = False
        elif inside:
            m = re.match(r"\s*(?:let|var)\s+(\w+):\s*([^=]+?)\s*(?:=.*)?(?://.*)?$", line)
            if m:
                givens[m.group(1)] = m.group(2).strip()
    if not givens:
        raise Problem(f"{lib.givens_file}: no givens between '// MARK: - Givens' and '// MARK: - End of givens'")
    return givens


# MARK: - Finding examples


def doc_text(line):
    """The Markdown of a `///` line, or None for any other line."""
    stripped = line.strip()
    if not stripped.startswith("///"):
        return None
    text = stripped[3:]
    return text[1:] if text.startswith(" ") else text


DECL = re.compile(
    r"\b(func|init|var|let|case|class|struct|enum|protocol|typealias|extension|subscript|actor)\b\s*([`\w.]+)?")


def declared_symbol(lines, index):
    """The name of the declaration a doc comment ending before `index` documents, and whether
    it is public API (declared public or open, or an extension, which documents its members)."""
    while index < len(lines):
        s = lines[index].strip()
        if s and not s.startswith("//") and not re.fullmatch(r"@[\w()\":, .]+", s):
            public = re.search(r"\b(public|open)\b", s) is not None
            if not public and re.match(r"extension\b", s):
                # An extension's comment documents its members: public if its first one is.
                for following in lines[index + 1:]:
                    f = following.strip()
                    if f and not f.startswith("//") and not f.startswith("@") and DECL.search(f):
                        public = re.search(r"\b(public|open)\b", f) is not None
                        break
            m = DECL.search(s)
            if m:
                kind, name = m.group(1), (m.group(2) or "")
                if kind in ("init", "subscript"):
                    return kind, public
                return name.replace("`", "").split(".")[-1] or kind, public
            return "decl", public
        index += 1
    return "end", False


def examples_in_file(path):
    lines = read(path).split("\n")
    found, i = [], 0
    while i < len(lines):
        text = doc_text(lines[i])
        if text is None or not text.lstrip().startswith("```"):
            if text is not None and text.startswith("    ") and i > 0 and doc_text(lines[i - 1]) == "":
                raise Problem(
                    f"{path}:{i + 1}: an indented code block in a doc comment; fence it with ```swift "
                    "so the test suite compiles it")
            i += 1
            continue
        language = text.strip()[3:].strip()
        fence_indent = len(text) - len(text.lstrip())
        body, j = [], i + 1
        while True:
            if j >= len(lines) or doc_text(lines[j]) is None:
                raise Problem(f"{path}:{i + 1}: a code fence that is never closed")
            t = doc_text(lines[j])
            if t.strip().startswith("```"):
                break
            body.append(t[fence_indent:] if t[:fence_indent].strip() == "" else t.lstrip())
            j += 1
        k = j + 1
        while k < len(lines) and doc_text(lines[k]) is not None:
            k += 1
        if language in ("", "swift"):
            symbol, public = declared_symbol(lines, k)
            found.append((i + 1, symbol, public, body))
        i = j + 1
    return found


def source_examples(lib):
    """[(id, path, line, code lines)] for every example under the library's sources, in path order."""
    result, used = [], set()
    paths = []
    for directory, _, files in os.walk(os.path.join(ROOT, lib.sources)):
        paths += [os.path.relpath(os.path.join(directory, f), ROOT) for f in files if f.endswith(".swift")]
    for path in sorted(paths):
        stem = re.sub(r"\W", "", os.path.basename(path)[: -len(".swift")])
        for line, symbol, public, body in examples_in_file(path):
            if lib.public_only and not public:
                continue
            base = stem + "_" + re.sub(r"\W", "", symbol)
            name, n = base, 1
            while name in used:
                n += 1
                name = f"{base}_{n}"
            used.add(name)
            result.append((name, path, line, body))
    return result


def guide_examples(guide):
    """The guide's ```swift blocks, in order, as one example (they continue each other)."""
    lines, body, inside = read(guide).split("\n"), [], False
    for line in lines:
        if inside:
            if line.strip() == "```":
                inside = False
            else:
                body.append(line)
        elif line.strip() == "```swift":
            inside = True
    if not body:
        raise Problem(f"{guide}: no ```swift blocks")
    return body


# MARK: - Writing tests


def code_tokens(code):
    """Identifiers the code refers to by bare name (no strings, comments or member names)."""
    interpolated = " ".join(re.findall(r"\\\((.*?)\)(?=[^)]|$)", code))
    code = re.sub(r'#?"(?:\\.|[^"\\\n])*"#?', '""', code) + "\n" + interpolated
    code = re.sub(r"//[^\n]*", "", code)
    names = set()
    for m in re.finditer(r"(?<![.\w$])([A-Za-z_]\w*)\b(?!\s*:(?!:))", code):
        names.add(m.group(1))
    return names - SWIFT_KEYWORDS


def top_level_names(body):
    """Names the example declares with a top-level `let`/`var` (at its own indentation)."""
    names = []
    for line in body:
        m = re.match(r"(?:let|var)\s+(?:\((.*?)\)|(\w+))", line)
        if m:
            for name in (m.group(1).split(",") if m.group(1) else [m.group(2)]):
                name = name.strip()
                if re.fullmatch(r"\w+", name) and name != "_" and name not in names:
                    names.append(name)
    return names


def shown_result(line):
    """`_ = ` before a top-level expression whose value the example shows in a trailing comment
    (`DisplayWidth.of("日本語")   // 6`), so showing a result costs no unused-value warning."""
    # String literals blanked to the same length, so that quoted `//`, `=` or `;` do not count.
    blank = re.sub(r'#?"(?:\\.|[^"\\\n])*"#?', lambda m: '"' + "x" * (len(m.group(0)) - 2) + '"', line)
    # The comment must read as a value (`6`, `"…"`, `[…]`, `.case`, `true`, a URL), not as prose.
    m = re.match(r"([A-Za-z_][\w]*[.(][^;]*?)\s+//\s*([\"\[.\d-]|true|false|nil|https?:)", blank)
    if not m or re.match(r"(let|var|if|for|try|print|return|case|guard|switch)\b", line):
        return line
    code = m.group(1)
    if re.search(r"[^=!<>]=[^=]", code) or any(code.count(a) != code.count(b) for a, b in ("()", "[]", "{}")):
        return line
    return "_ = " + line


def imports_for(code, module):
    tokens = code_tokens(code)
    imports = [module]
    if tokens & FOUNDATION_NAMES:
        imports.append("Foundation")
    if tokens & GRDB_NAMES:
        imports.append("GRDB")
    return tuple(sorted(imports))


def swift_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def example_function(name, origin, body, givens):
    code = "\n".join(body)
    used = [g for g in givens if g in code_tokens(code)]
    is_async = re.search(r"\bawait\b", code) is not None
    # A function-typed given may be called from a closure the example writes.
    parameters = ", ".join(f"{g}: {'@escaping ' if '->' in givens[g] else ''}{givens[g]}" for g in used)
    effects = "async throws" if is_async else "throws"
    lines = [f"// {origin}", f"func docExample_{name}({parameters}) {effects} {{"]
    lines += [("    " + shown_result(l)).rstrip() for l in body]
    declared = top_level_names(body)
    if declared:
        # Not part of the example: uses its top-level values, so an example may show a value
        # without the build warning that it is never used.
        lines.append(f"    _ = ({', '.join(declared)})" if len(declared) > 1 else f"    _ = {declared[0]}")
    lines.append("}")
    arguments = ", ".join(f"{g}: given.{g}" for g in used)
    call = f"docExample_{name}({arguments})"
    entry = (f"DocExample(id: {swift_string(name)}, origin: {swift_string(origin)}, "
             + (f"runAsync: {{ given in try await {call} }})" if is_async else f"run: {{ given in try {call} }})"))
    return "\n".join(lines), entry


HEADER = """// Generated by {script} from {what}. Do not edit:
// change the example where it is written, then run `{regenerate}`.
// swift-format-ignore-file
"""


def generated_files(lib):
    givens = load_givens(lib)
    by_imports = {}
    for name, path, line, body in source_examples(lib):
        code = "\n".join(body)
        # The givens' types count too: a parameter of type URL needs Foundation.
        tokens = code_tokens(code)
        code += "\n" + "\n".join(givens[g] for g in givens if g in tokens)
        functions = by_imports.setdefault(imports_for(code, lib.module), [])
        # The file, not the line: an edit above an example must not make the generated files stale.
        functions.append(example_function(name, path, body, givens))
    files = {}
    for imports in sorted(by_imports):
        suffix = "".join(i for i in imports if i != lib.module) or "Plain"
        parts = [HEADER.format(script="scripts/extract-doc-examples.py",
                               what=f"the doc comments under {lib.sources}", regenerate=REGENERATE)]
        parts += [f"import {i}" for i in imports] + [""]
        for function, _ in by_imports[imports]:
            parts += [function, ""]
        parts.append(f"let docExamples{suffix}: [DocExample] = [")
        parts += [f"    {entry}," for _, entry in by_imports[imports]]
        parts += ["]", ""]
        files[f"{lib.target}/DocExamples{suffix}.generated.swift"] = "\n".join(parts)
    if lib.guide:
        files.update(guide_file(lib))
    groups = sorted("".join(i for i in imp if i != lib.module) or "Plain" for imp in by_imports)
    index = [HEADER.format(script="scripts/extract-doc-examples.py", what="the list of generated files",
                           regenerate=REGENERATE),
             "/// Every doc-comment example, in source order within each file of generated examples.",
             "let allDocExamples: [DocExample] = " + " + ".join(f"docExamples{g}" for g in groups), ""]
    files[f"{lib.target}/DocExampleIndex.generated.swift"] = "\n".join(index)
    return files


def guide_file(lib):
    guide = guide_examples(lib.guide)
    imports = [l.strip() for l in guide if l.strip().startswith("import ")]
    code = [l for l in guide if not l.strip().startswith("import ")]
    parts = [HEADER.format(script="scripts/extract-doc-examples.py",
                           what=f"the ```swift blocks of {lib.guide}", regenerate=REGENERATE)]
    parts += imports + ["", "/// The guide's examples as one program (GuideExampleTests runs it).",
                        "func objectGraphGuideExample() async throws {"]
    parts += [("    " + l).rstrip() for l in code] + ["}", ""]
    return {f"{lib.target}/GuideExample.generated.swift": "\n".join(parts)}


def main(argv):
    check = "--check" in argv[1:]
    files, existing = {}, set()
    try:
        for lib in LIBRARIES:
            files.update(generated_files(lib))
            existing |= {os.path.join(lib.target, f) for f in os.listdir(os.path.join(ROOT, lib.target))
                         if f.endswith(".generated.swift")}
    except Problem as problem:
        print(f"extract-doc-examples: {problem}", file=sys.stderr)
        return 1
    stale = sorted(p for p in existing if p not in files)
    differ = sorted(p for p, text in files.items() if not os.path.exists(os.path.join(ROOT, p)) or read(p) != text)
    if check:
        if stale or differ:
            print("The generated doc-example tests are out of date with the doc comments and the guide ("
                  + ", ".join(differ + [f"{p} (no longer generated)" for p in stale])
                  + f"). Run `{REGENERATE}` and commit the result.", file=sys.stderr)
            return 1
        return 0
    for path in stale:
        os.remove(os.path.join(ROOT, path))
    for path in differ:
        with open(os.path.join(ROOT, path), "w", encoding="utf-8") as f:
            f.write(files[path])
    counts = ", ".join(f"{lib.module} {len(source_examples(lib))}" for lib in LIBRARIES)
    print(f"extract-doc-examples: doc-comment examples: {counts}; {len(differ)} file(s) written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
