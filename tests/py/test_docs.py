"""The handbook's examples are real: every ```sql block of docs/*.md, README.md and
examples/questions/README.md that is
followed directly by an output block is run from the repository root in the sqlite3 shell
(`.headers on`, `.mode column --wrap 0`, the extension loaded) and its output must be the block's, line
for line (trailing blanks aside). A page states its output this way or not at all. Blocks whose
output depends on the machine (versions, timings, dates) say so on the line before the sql fence
with <!-- output varies --> and are only run (they must not fail).

`python3 tests/py/test_docs.py --write` rewrites the output blocks with what the examples print
(for writing a page: put an empty output block after a new example, run, read what came out)."""
import glob
import os
import re
import subprocess
import sys

from testlib import check, done

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SQLITE3 = os.environ.get("SQLITE3", "sqlite3")
BODY = r"((?:(?!```).)*)"          # a fenced block's text: anything up to its closing fence
PAIR = re.compile(r"(<!-- output varies -->\n)?```sql\n" + BODY + r"```\n```(?:text)?\n" + BODY + "```", re.S)


def run(sql):
    sql = "\n".join(l for l in sql.splitlines() if not l.startswith(".load"))
    p = subprocess.run([SQLITE3, "-batch", "-init", "/dev/null", "-cmd", ".load ./libprofsql",
                        "-cmd", ".headers on", "-cmd", ".mode column --wrap 0", ":memory:"],
                       input=sql, capture_output=True, text=True, cwd=ROOT, timeout=300)
    return p.stdout + p.stderr, p.returncode


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
    for m in PAIR.finditer(text):
        varies, sql, want = m.group(1), m.group(2), m.group(3)
        n_pairs += 1
        with_output.add(name)
        got, rc = run(sql)
        line = text[:m.start()].count("\n") + 1
        if WRITE and not varies:
            out.append(text[last:m.start(3)] + "\n".join(norm(got)) + "\n")
            last = m.end(3)
        if varies:
            check(rc == 0 and "Error" not in got, f"{name}:{line} runs (output varies): {got[:300]!r}")
        else:
            ok = norm(got) == norm(want)
            check(WRITE or ok, f"{name}:{line} output as written")
            if not ok and not WRITE:
                print("---- want\n" + want + "---- got\n" + got)
    if WRITE and out:
        open(page, "w", encoding="utf-8").write("".join(out) + text[last:])

print(f"{n_pairs} examples with output on {len(with_output)} pages")
done()
