"""The handbook's examples are real: every ```sql block of docs/*.md, README.md and
examples/questions/README.md that is
followed directly by an output block is run from the repository root in the sqlite3 shell
(`.headers on`, `.mode column --wrap 0`, the extension loaded) and its output must be the block's, line
for line (trailing blanks aside). A page states its output this way or not at all. Blocks whose
output depends on the machine (versions, timings, dates) say so on the line before the sql fence
with <!-- output varies --> and are only run (they must not fail).

Examples write files only under `$out`, a directory the reader makes with `mktemp -d` (docs/index.md
shows how): the shell parameter `$out` in SQL, the exported environment variable in `.system`
commands. Here the examples of a page run, in order, in a fresh temporary directory that holds
links to the repository's top-level entries (so `examples/...` resolves as from the root) and an
empty directory named `$out`, which is what `$out` holds: a path under it prints as the page shows
it. A file an example leaves beside the links was written where the checkout would be, not under
`$out`, and fails. The directory is removed after the page. No block of code on a page names a
fixed `/tmp` path (two runs on one machine would overwrite each other).

`python3 tests/py/test_docs.py --write` rewrites the output blocks with what the examples print
(for writing a page: put an empty output block after a new example, run, read what came out)."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

from testlib import check, done

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SQLITE3 = os.environ.get("SQLITE3", "sqlite3")
BODY = r"((?:(?!```).)*)"          # a fenced block's text: anything up to its closing fence
PAIR = re.compile(r"(<!-- output varies -->\n)?```sql\n" + BODY + r"```\n```(?:text)?\n" + BODY + "```", re.S)


def workdir():
    """A fresh temporary directory to run a page's examples in: links to the repository's top-level
    entries, and an empty directory named "$out" (so a path under $out prints as the page shows
    it, and column widths come out the same). Returns (path, names that were put there)."""
    cwd = tempfile.mkdtemp(prefix="profsql-docs-")
    names = set(os.listdir(ROOT))
    for n in names:
        os.symlink(os.path.join(ROOT, n), os.path.join(cwd, n))
    os.mkdir(os.path.join(cwd, "$out"))
    return cwd, names | {"$out"}


def run(sql, cwd):
    """Runs one example in cwd (see workdir): its output and exit code."""
    sql = "\n".join(l for l in sql.splitlines() if not l.startswith(".load"))
    p = subprocess.run([SQLITE3, "-batch", "-init", "/dev/null", "-cmd", ".load ./libprofsql",
                        "-cmd", ".headers on", "-cmd", ".mode column --wrap 0",
                        "-cmd", ".parameter set $out \"'$out'\"", ":memory:"],
                       input=sql, capture_output=True, text=True, cwd=cwd, timeout=300,
                       env=dict(os.environ, out="$out"))
    return p.stdout + p.stderr, p.returncode


# a fixed /tmp path (`/tmp/x`, `'/tmp/x'`) in code: a fenced block with a language (```sql, ```sh,
# ...) or a `$ ` command line of a plain one; prose and output may name /tmp as data (a DSO in
# perf script output, the directories SQLite tries)
FIXED_TMP = re.compile(r"(?<![\w.$])/tmp/[\w.-]")


def fixed_tmp(text):
    """(line, text) of each line of code (as above) that names a fixed /tmp path."""
    found, lang = [], None
    for i, l in enumerate(text.splitlines(), 1):
        if l.lstrip().startswith("```"):
            lang = None if lang is not None else (l.strip()[3:].strip() or "")
        elif lang is not None and (lang not in ("", "text") or l.startswith("$ ")) and FIXED_TMP.search(l):
            found.append((i, l.strip()))
    return found


def norm(text):
    return [l.rstrip() for l in text.strip("\n").splitlines()]


WRITE = "--write" in sys.argv
pages = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))) + [os.path.join(ROOT, "README.md"),
                                                              os.path.join(ROOT, "examples", "questions", "README.md")]
n_pairs = 0
with_output = set()
for page in pages:
    text = open(page, encoding="utf-8").read()
    name = os.path.relpath(page, ROOT)
    out, last = [], 0
    cwd, names = workdir()
    for m in PAIR.finditer(text):
        varies, sql, want = m.group(1), m.group(2), m.group(3)
        n_pairs += 1
        with_output.add(name)
        got, rc = run(sql, cwd)
        left = sorted(set(os.listdir(cwd)) - names)
        line = text[:m.start()].count("\n") + 1
        if WRITE and not varies:
            out.append(text[last:m.start(3)] + "\n".join(norm(got)) + "\n")
            last = m.end(3)
        check(not left, f"{name}:{line} writes only under $out, not beside the checkout: {left}")
        names.update(left)                               # named once, by the example that wrote it
        if varies:
            check(rc == 0 and "Error" not in got, f"{name}:{line} runs (output varies): {got[:300]!r}")
        else:
            ok = norm(got) == norm(want)
            check(WRITE or ok, f"{name}:{line} output as written")
            if not ok and not WRITE:
                print("---- want\n" + want + "---- got\n" + got)
    shutil.rmtree(cwd, ignore_errors=True)
    tmp = fixed_tmp(text)
    check(not tmp, f"{name}: no example names a fixed /tmp path (write under $out)", tmp)
    if WRITE and out:
        open(page, "w", encoding="utf-8").write("".join(out) + text[last:])

print(f"{n_pairs} examples with output on {len(with_output)} pages")
done()
