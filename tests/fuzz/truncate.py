"""tests/fuzz/truncate.py — the truncation run of `make fuzz` (tests/fuzz/run.sh calls it, from the
project root, after building the targets): prefixes of every seed capture under 300 KB
(tests/data, examples, and ../shared/corpus when it is present), each fed to the sanitizer-built
libFuzzer target of its format (build/fuzz_chrome, _timings, _lms, _xspace, _newengine, the sampled
formats' _cpuprofile, _speedscope, _pprof, _perf_script, _folded, and _ftrace; gzip to
fuzz_gzip, which detects and parses what it inflates; ZIP to fuzz_zip). The prefixes are written
to a temporary directory in batches and the target runs them with -runs=0, which executes only
those inputs. Exits 1 on any crash, leak, UB or timeout, printing the sanitizer's words; the
input is kept in build/fuzz/ (trunc_<target>_crash-*), to become a regression input.

Which prefixes: a capture of at most FULL bytes gets every prefix (1 .. n-1 bytes). A bigger one
gets every prefix of its first EDGE bytes, every prefix of its last min(EDGE, TAIL_WORK / work
per byte / n) bytes, and SPREAD lengths evenly spread between them, so that no capture costs
much more than ~TAIL_WORK + SPREAD * n / 2 bytes of parsing. The format of a capture is told by
its first bytes, the way the probes of ext/ tell it (a capture no probe would claim is skipped).

    python3 tests/fuzz/truncate.py [-j JOBS]
"""
import concurrent.futures
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

MAX_SIZE = 300_000          # captures this big or bigger are left out (as run.sh's seeds)
FULL = 16384                # every prefix of a capture up to this size
EDGE = 4096                 # every prefix within this many bytes of either end of a bigger one
TAIL_WORK = 64 << 20        # bytes of parsing the last-bytes prefixes of one capture may cost
SPREAD = 1024               # evenly spread lengths between the two ends
GZIP_SPEEDUP = 4            # a cut gzip stream is only inflated (an error), not parsed
BATCH_BYTES = 48 << 20      # prefix bytes per target run (libFuzzer holds a batch in memory)
BATCH_FILES = 4000          # prefixes per target run
CORPUS_DIRS = ("chrome", "pmmp", "aikar", "xplane", "newengine", "xprof", "stacks", "ftrace")
ARGS = ["-runs=0", "-timeout=10", "-rss_limit_mb=4096", f"-max_len={MAX_SIZE}"]


def is_xspace(b):
    """xspace.c's probe: field 1 (an XPlane), a non-zero length, then an XPlane field's tag."""
    if len(b) < 4 or b[0] != 0x0a:
        return False
    i, n, shift = 1, 0, 0
    while i < len(b) and i <= 10:
        n |= (b[i] & 0x7f) << shift
        shift += 7
        i += 1
        if b[i - 1] < 0x80:
            break
    else:
        return False
    if n == 0:
        return False
    if n > len(b) - i:
        return b"/host:" in b[i:256] or b"/device:" in b[i:256]
    return b[i] in (0x08, 0x12, 0x1a, 0x22, 0x2a, 0x32)


def sniff(b):
    """The target a capture goes to (its format's), or None: the first bytes, as ext/'s probes
    (and formats.c's looser guess for damaged bytes) read them."""
    if b[:2] == b"\x1f\x8b":
        return "gzip"
    if b[:4] == b"PK\x03\x04":
        return "zip"
    if is_xspace(b):
        return "xspace"
    s = b[3:] if b[:3] == b"\xef\xbb\xbf" else b
    if s.startswith(b"id,status,category,source,"):
        return "newengine"
    t = s.lstrip(b" \t\r\n")
    if t[:1] == b"{" and (re.match(rb'\{\s*"(active_jobs|analysis|completed_jobs)"', t)
                          or b'"newengine.profiler.report.v' in t[:1 << 20]):
        return "newengine"
    if re.match(rb'(\[\s*\{\s*"(cols|rows|p)"|\{\s*"cols")\s*:', t):
        return "xprof_datatable"
    if t[:1] in (b"{", b"["):
        return "chrome"
    if t.startswith(b"# tracer:"):
        return "ftrace"
    if re.search(rb"\n[ \t][^\n]* Time: \d+ Count: ", b[:65536]):
        return "timings"
    if re.match(rb"[012],\d+,", s):
        return "lms"
    return None


def stack_target(p, b):
    """The sampled formats (tests/data/stacks, the corpus' stacks/, examples): their target by
    the file's name, which the test harness may use (the product never does); gzip as gzip."""
    if b[:2] == b"\x1f\x8b":
        return "gzip"
    n = os.path.basename(p)
    if n.endswith(".proto"):
        return None
    for key, t in (("cpuprofile", "cpuprofile"), ("pprof", "pprof"), (".prof", "pprof"),
                   ("perf", "perf_script"), ("collapsed", "folded"), ("folded", "folded"),
                   ("speedscope", "speedscope"), ("chrome", "chrome")):
        if key in n:
            return t
    return None


def work_per_byte(target, b):
    """Bytes of parsing a target costs per input byte: a cut gzip stream is inflated up to
    where it stops, then refused; a cut ZIP has lost its central directory and is refused at once."""
    if target == "gzip":
        try:
            return max(1.0, len(gzip.decompress(b)) / len(b) / GZIP_SPEEDUP)
        except (OSError, EOFError, zlib.error):
            pass
    return 1.0


def lengths(n, w):
    """The prefix lengths fed for a capture of n bytes, w bytes of work per byte."""
    if n <= FULL:
        return list(range(1, n))
    tail = max(1, min(EDGE, int(TAIL_WORK / w / n)))
    ends = set(range(1, EDGE + 1)) | set(range(n - tail, n))
    lo, hi = EDGE + 1, n - tail - 1
    mid = {lo + (hi - lo) * k // (SPREAD - 1) for k in range(SPREAD)} if hi > lo else set()
    return sorted(ends | mid)


def captures():
    """(path, bytes, target) of every capture to cut, and the lines saying what was left out."""
    paths, notes = [], []
    for d, exts in (("tests/data", (".json", ".gz", ".txt", ".csv", ".zip")),
                    ("tests/data/xprof", (".pb", ".json")),
                    ("tests/data/stacks", ("",)),
                    ("tests/data/ftrace", ("",)),
                    ("examples", (".json", ".txt", ".csv", ".pb", ".cpuprofile"))):
        if not os.path.isdir(d):
            continue
        paths += sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(exts))
    if os.path.isdir("../shared/corpus"):
        for d in CORPUS_DIRS:
            p = os.path.join("../shared/corpus", d)
            if os.path.isdir(p):
                paths += sorted(os.path.join(p, f) for f in os.listdir(p))
    else:
        notes.append("truncation: ../shared/corpus is absent: only tests/data and examples are cut")
    out, skipped, big = [], [], 0
    for p in paths:
        if not os.path.isfile(p):
            continue
        if os.path.getsize(p) >= MAX_SIZE:
            big += 1
            continue
        b = open(p, "rb").read()
        if os.path.basename(os.path.dirname(p)) == "xprof":
            t = "xprof" if p.endswith(".pb") else sniff(b)   # the result protobufs: fuzz_xprof, detecting
        elif os.path.basename(os.path.dirname(p)) == "ftrace":
            # systrace HTML too: unwrapped below the parser; a Chrome trace with ftrace text (a
            # systemTraceEvents string, a document with a JSON block) goes through chrome's target
            t = None if len(b) <= 1 else "chrome" if p.endswith(("system_trace_events.json", "systrace_mixed.html")) else "ftrace"
        elif os.path.basename(os.path.dirname(p)) == "stacks" or p.endswith((".cpuprofile", ".perf.txt")):
            t = stack_target(p, b) if len(b) > 1 else None
        else:
            t = sniff(b) if len(b) > 1 else None
        if t is None:
            skipped.append(os.path.basename(p))
        else:
            out.append((p, b, t))
    if big:
        notes.append(f"truncation: {big} captures of {MAX_SIZE} bytes or more left out")
    if skipped:
        notes.append(f"truncation: {len(skipped)} files no format claims left out: {', '.join(skipped)}")
    return out, notes


def batches(caps):
    """(target, path, [length, ...], work) runs: each capture's prefixes cut into batches; work is
    the bytes the target handles for the batch, to start the big ones first (even lanes)."""
    out = []
    for p, b, t in caps:
        w = work_per_byte(t, b)
        cur, nb = [], 0
        for k in lengths(len(b), w):
            if cur and (nb + k > BATCH_BYTES or len(cur) >= BATCH_FILES):
                out.append((t, p, cur, nb * w))
                cur, nb = [], 0
            cur.append(k)
            nb += k
        if cur:
            out.append((t, p, cur, nb * w))
    out.sort(key=lambda r: -r[3])
    return out


def run_batch(job, tmp_root, data):
    """Writes one batch's prefixes and runs its target on them: (ok, runs, report)."""
    t, p, ks, _ = job
    d = tempfile.mkdtemp(prefix="trunc-", dir=tmp_root)
    try:
        b = data[p]
        for k in ks:
            with open(os.path.join(d, "%07d" % k), "wb") as f:
                if t == "xprof":
                    f.write(b"\x06")     # fuzz_xprof's first byte: 6 = detect the format by content
                f.write(b[:k])
        try:
            r = subprocess.run([f"./build/fuzz_{t}", *ARGS, f"-artifact_prefix=build/fuzz/trunc_{t}_", d],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except OSError as e:
            return False, 0, f"FAIL truncation: cannot run build/fuzz_{t}: {e}"
        log = r.stdout.decode("utf-8", "replace")
        m = re.findall(r"^#(\d+)\s+(?:INITED|DONE)", log, re.M)
        runs = int(m[-1]) - 1 if m else 0          # libFuzzer runs an empty input first
        if r.returncode != 0 or runs < len(ks):
            lines = [l for l in log.splitlines()
                     if re.search(r"runtime error|ERROR:|SUMMARY|Test unit written|^Base64|^\s+#\d+ ", l)]
            why = "exit status %d" % r.returncode if r.returncode else f"ran {runs} of {len(ks)} inputs"
            unit = re.findall(r"Test unit written to (\S+)", log)
            if unit and os.path.isfile(unit[-1]):
                why += f"; the input, kept as {unit[-1]}: its first {os.path.getsize(unit[-1])} bytes"
            return False, runs, (f"FAIL truncation: fuzz_{t} on prefixes of {p} ({why}):\n"
                                 + "\n".join(l[:400] for l in lines[:40]))
        return True, runs, ""
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main():
    jobs = int(sys.argv[sys.argv.index("-j") + 1]) if "-j" in sys.argv else min(2, os.cpu_count() or 1)
    t0 = time.time()
    caps, notes = captures()
    for n in notes:
        print(n)
    data = {p: b for p, b, _ in caps}
    todo = batches(caps)
    tmp_root = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
    per = {}
    for t, p, ks, _ in todo:
        c = per.setdefault(t, [set(), 0])
        c[0].add(p)
        c[1] += len(ks)
    for t in sorted(per):
        print(f"truncation: fuzz_{t}: {per[t][1]:,} prefixes of {len(per[t][0])} captures")
    ok, fails = True, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
        for good, _, report in ex.map(lambda j: run_batch(j, tmp_root, data), todo):
            if not good:
                ok = False
                fails.append(report)
    for f in fails:
        print(f)
    total = sum(len(j[2]) for j in todo)
    print(f"truncation run: {total:,} prefixes of {len(caps)} captures in {len(todo)} target runs, "
          f"{time.time() - t0:.0f} s: {'no findings' if ok else f'{len(fails)} failing runs'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
