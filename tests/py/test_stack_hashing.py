"""The stack formats' hash tables under chosen keys (issue 32): the call-stack trie (ext/model/stacks.c),
the record-id map behind the parent resolution (stacks.c), the V8 node-id map (cpuprofile.c), the
pprof id maps and stack cache (pprof.c) and speedscope's stack memo are keyed (ps_hash_u64,
ps_hash_pair, ps_hash), so inputs built to collide under the fixed hashes they had load with the
work of random keys; every long loop polls for interrupt by work done (ps_work).

Each attack input is rebuilt here from the OLD formulas (git show cd35efc:ext/model/stacks.c, ...):
  1. folded: trie_hash(parent, key) = h ^ (h >> 29), h = parent * G ^ key * G2, which is linear over
     XOR: slot(parent, key) = s(parent * G) ^ s(key * G2); frames (parent row, name id) are paired
     so that their slots fall in a window of 4 at the final table size (one long probe run);
  2. .cpuprofile: 80,000 nodes whose ids x satisfy x * G = c + j * 2^47, so that (h ^ h >> 29) has the
     same low 18 bits (the size of both the V8 node map and the record-id map at 80k nodes);
  3. pprof: 160,000 locations whose ids x satisfy x * G = c + j * 2^36, one slot of (x * G >> 17) &
     (2^19 - 1);
each against an input of the same size and shape with random ids / pairs: the hash_probes delta of
the load (profsql_debug('hash_probes'), the slots this thread's lookups examined) is at most 3x the
random one's, the tables count their probes (the random load examines at least one slot per table
operation made), and the rows are checked against a computation of the same stacks in Python.
  4. the same loads under two PROFSQL_HASH_SEED values (child processes) give the same rows;
  5. an interrupt (a progress handler that says stop) ends the load of a folded file of a few very
     long lines, of a .cpuprofile and of a pprof, as "interrupted", where the old per-65,536-items
     poll never ran.

Also a generator for the pprof speed case of issue 32 (run by hand, not by the test):
  python3 tests/py/test_stack_hashing.py --gen-pprof-bench OUT.pb.gz
writes a gzip pprof CPU profile of ~425,000 call-tree nodes (the issue's 1.2 MB / 425,051 nodes).
"""
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

G = 0x9E3779B97F4A7C15            # the old multiplicative constants
G2 = 0xC2B2AE3D27D4EB4F
M64 = (1 << 64) - 1
GINV = pow(G, -1, 1 << 64)


def s64(x):
    """x (mod 2^64) as a signed int64."""
    x &= M64
    return x - (1 << 64) if x >> 63 else x


# ---------------------------------------------------------------------------------------------
# protobuf by hand (pprof)

from testlib import pb_varint as varint  # noqa: E402  (pure Python: the generator needs no library)


def fv(num, v):
    """A varint field."""
    return varint(num << 3) + varint(v)


def fb(num, b):
    """A length-delimited field."""
    return varint(num << 3 | 2) + varint(len(b)) + b


def packed(num, vals):
    return fb(num, b"".join(varint(x) for x in vals))


def pprof_bytes(strings, funcs, locs, samples, time_nanos=1_000_000_000):
    """A Profile: sample_type samples/count and cpu/nanoseconds; funcs [(id, name index, file index)];
    locs [(id, function id)]; samples [(location ids leaf first, count, ns)]."""
    sidx = {s: k for k, s in enumerate(strings)}
    out = [fb(1, fv(1, sidx["samples"]) + fv(2, sidx["count"])),
           fb(1, fv(1, sidx["cpu"]) + fv(2, sidx["nanoseconds"]))]
    for ids, cnt, ns in samples:
        out.append(fb(2, packed(1, ids) + packed(2, [cnt, ns])))
    for lid, fid in locs:
        out.append(fb(4, fv(1, lid) + fb(4, fv(1, fid))))
    for fid, name, fil in funcs:
        out.append(fb(5, fv(1, fid) + fv(2, name) + fv(4, fil)))
    for s in strings:
        out.append(fb(6, s.encode()))
    out.append(fv(9, time_nanos))
    out.append(fb(11, fv(1, sidx["cpu"]) + fv(2, sidx["nanoseconds"])))
    out.append(fv(12, 10_000_000))
    return b"".join(out)


def gen_pprof_bench(path, seed=7, nSample=85000):
    """A Go-like CPU profile of deep stacks (a recursive program): 2,000 functions (one location
    each); each sample's stack is a cut of one of 64 spines 150 frames deep (100 to 150 of them,
    root first) and a fresh tail of 3 to 6 frames, so the call tree has ~425,000 nodes while every
    sample walks ~130 of them: 85,000 samples, ~1.2 MB of gzip."""
    rnd = random.Random(seed)
    nf = 2000
    strings = ["", "samples", "count", "cpu", "nanoseconds", "main.go"]
    funcs, locs = [], []
    for f in range(1, nf + 1):
        strings.append(f"pkg{f % 37}.(*T{f % 101}).method{f}")
        funcs.append((f, len(strings) - 1, 5))
        locs.append((f, f))
    spines = [[rnd.randrange(1, nf + 1) for _ in range(150)] for _ in range(64)]
    samples = []
    for k in range(nSample):
        sp = spines[rnd.randrange(len(spines))]
        cut = rnd.randrange(100, 151)
        tail = [rnd.randrange(1, nf + 1) for _ in range(rnd.randrange(3, 7))]
        samples.append((list(reversed(sp[:cut] + tail)), 1, 10_000_000))
    raw = pprof_bytes(strings, funcs, locs, samples)
    with open(path, "wb") as f:
        f.write(gzip.compress(raw, 6))


if __name__ == "__main__" and len(sys.argv) == 3 and sys.argv[1] == "--gen-pprof-bench":
    gen_pprof_bench(sys.argv[2])
    sys.exit(0)


import testlib  # noqa: E402  (the generator above runs without the library)
from testlib import check, connect, done  # noqa: E402

D = tempfile.mkdtemp(prefix="profsql_stackhash_")


def probes(db):
    return db.execute("SELECT profsql_debug('hash_probes')").fetchone()[0]


def records(db, path, fmt):
    """{record_id: (parent_record_id, name, count, depth)} and the hash_probes delta of the load
    (every path is read once: the capture cache never answers these)."""
    p0 = probes(db)
    rows = db.execute("SELECT record_id, parent_record_id, name, count, depth FROM profile_records(?, ?)",
                      (path, fmt)).fetchall()
    return {r[0]: r[1:] for r in rows}, probes(db) - p0


def paths_of(recs):
    """{root-first tuple of names: count} of the records (each record's path by its parents)."""
    memo = {}

    def path(rid):
        if rid not in memo:
            par, name = recs[rid][0], recs[rid][1]
            memo[rid] = (path(par) if par is not None else ()) + (name,)
        return memo[rid]
    out = {}
    for rid in sorted(recs, key=lambda r: recs[r][3]):   # parents first: no deep recursion
        out[path(rid)] = recs[rid][2]
    return out


def write(name, data):
    p = os.path.join(D, name)
    with open(p, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return p


# ---------------------------------------------------------------------------------------------
# 1. folded: the trie

def old_trie_final_bits(n):
    """log2 of the old trie's table size after n inserts (1024 first, doubled while (n+1)*2 > size)."""
    size = 0
    for k in range(n):
        while (k + 1) * 2 > size:
            size = size * 2 if size else 1024
    return size.bit_length() - 1


def fold(x, mask):
    return (x ^ (x >> 29)) & mask


# The pool id of the first frame name of a folded file: three strings are interned before it (the
# old build, instrumented, showed the first root lookup with key 4); the next names follow in order.
NAME_BASE = 4


def folded_inputs(nDict=1 << 16, nPair=50000, seed=1):
    """The dictionary lines "nXXXXXX w" (root row i, name pool id NAME_BASE + i) and nPair lines
    "nP;nK w": adversarial pairs (slots in one window of 4 under the old trie_hash) and random
    pairs."""
    rnd = random.Random(seed)
    names = [f"n{i:06d}" for i in range(nDict)]
    b = old_trie_final_bits(nDict + nPair)
    mask = (1 << b) - 1
    sB = {}
    for k in range(nDict):
        sB.setdefault(fold(((k + NAME_BASE) * G2) & M64, mask), []).append(k)
    s0 = rnd.randrange(1 << b) & ~3
    adv, seen = [], set()
    for p in range(nDict):
        sa = fold((p * G) & M64, mask)
        for t in range(4):
            for k in sB.get(sa ^ (s0 + t), ()):
                if (p, k) not in seen:
                    seen.add((p, k))
                    adv.append((p, k))
    rnd.shuffle(adv)
    adv = adv[:nPair]
    ran, seen = [], set()
    while len(ran) < len(adv):
        pk = (rnd.randrange(nDict), rnd.randrange(nDict))
        if pk not in seen:
            seen.add(pk)
            ran.append(pk)
    # the share of the adversarial pairs in the window under the old hash (the input's premise)
    inwin = sum(1 for p, k in adv if (fold((p * G) & M64, mask) ^ fold(((k + NAME_BASE) * G2) & M64, mask)) >> 2 == s0 >> 2)

    def text(pairs):
        lines = [f"{n} {1 + i % 3}" for i, n in enumerate(names)]
        lines += [f"{names[p]};{names[k]} {1 + (p + k) % 5}" for p, k in pairs]
        return "\n".join(lines) + "\n"
    return text(adv), text(ran), inwin, len(adv)


def folded_expected(txt):
    out = {}
    for line in txt.splitlines():
        st, w = line.rsplit(" ", 1)
        key = tuple(st.split(";"))
        for d in range(1, len(key)):
            out.setdefault(key[:d], 0)
        out[key] = out.get(key, 0) + int(w)
    return out


db = connect()
adv_txt, ran_txt, inwin, nAdv = folded_inputs()
check(nAdv >= 45000 and inwin == nAdv, "folded: the attack pairs all fall in one window of the old trie hash",
      (nAdv, inwin))
pa, pr = write("adv.folded", adv_txt), write("ran.folded", ran_txt)
ra, da = records(db, pa, "folded")
rr, dr = records(db, pr, "folded")
nOps = len(ran_txt.splitlines()) + nAdv          # trie lookups: a root per line, a child per pair
check(dr >= nOps, "folded: the trie counts its probes (at least one per lookup)", (dr, nOps))
print(f"folded: hash_probes colliding {da}, random {dr} (ratio {da / max(dr, 1):.2f})")
check(da <= 3 * dr, "folded: colliding frames cost at most 3x the probes of random ones", (da, dr))
check(paths_of(ra) == folded_expected(adv_txt), "folded (colliding): every path and its count as Python sums them")
check(paths_of(rr) == folded_expected(ran_txt), "folded (random): every path and its count")
ev = db.execute("SELECT count(*), sum(args ->> '$.count') FROM profile_events(?, 'folded')", (pa,)).fetchone()
check(ev == (len(adv_txt.splitlines()), sum(int(l.rsplit(" ", 1)[1]) for l in adv_txt.splitlines())),
      "folded (colliding): one event per line, the weights summed", ev)


# ---------------------------------------------------------------------------------------------
# 2. .cpuprofile: node ids

def cpuprofile_input(ids, seed=2):
    """80k nodes in an 8-ary tree (node j's parent is node (j-1)//8, by "children" lists), and a
    sample naming each node once in a shuffled order, then the first 1000 again; with
    timeDeltas of 100 us. Returns (json text, {id: (parent id, count, depth)})."""
    rnd = random.Random(seed)
    n = len(ids)
    kids = [[] for _ in range(n)]
    for j in range(1, n):
        kids[(j - 1) // 8].append(j)
    nodes = []
    for j in range(n):
        nodes.append('{"id":%d,"callFrame":{"functionName":"fn%d","scriptId":"1","url":"app.js",'
                     '"lineNumber":%d,"columnNumber":0},"hitCount":0,"children":[%s]}'
                     % (ids[j], j, j % 500, ",".join(str(ids[c]) for c in kids[j])))
    order = list(range(n))
    rnd.shuffle(order)
    order += order[:1000]
    txt = ('{"nodes":[' + ",".join(nodes) + '],"startTime":1000,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}'
           % (1000 + 100 * (len(order) + 1), ",".join(str(ids[j]) for j in order), ",".join("100" for _ in order)))
    cnt = [0] * n
    for j in order:
        cnt[j] += 1
    depth = [0] * n
    for j in range(1, n):
        depth[j] = depth[(j - 1) // 8] + 1
    exp = {ids[j]: (ids[(j - 1) // 8] if j else None, f"fn{j}", cnt[j], depth[j]) for j in range(n)}
    return txt, exp


N_V8 = 80000
c = random.Random(3).getrandbits(47)
v8_adv = [s64((c + (j << 47)) * GINV) for j in range(N_V8)]
check(len({(((x & M64) * G & M64) ^ (((x & M64) * G & M64) >> 29)) & 0x3FFFF for x in v8_adv}) == 1,
      "cpuprofile: the attack ids share one slot of the old v8_hash_slot / idmap_slot (2^18 slots)")
rnd = random.Random(4)
v8_ran = []
seen = set()
while len(v8_ran) < N_V8:
    x = s64(rnd.getrandbits(64))
    if x not in seen and x != -(1 << 63):
        seen.add(x)
        v8_ran.append(x)
ta, ea = cpuprofile_input(v8_adv)
tr, er = cpuprofile_input(v8_ran)
pa, pr = write("adv.cpuprofile", ta), write("ran.cpuprofile", tr)
ra, da = records(db, pa, "cpuprofile")
rr, dr = records(db, pr, "cpuprofile")
nOps = 5 * N_V8            # node map: a put per node, a lookup per child link and per sample;
                           # record-id map: an insert per record, a parent lookup per record
check(dr >= nOps, "cpuprofile: the id maps count their probes", (dr, nOps))
print(f"cpuprofile: hash_probes colliding {da}, random {dr} (ratio {da / max(dr, 1):.2f})")
check(da <= 3 * dr, "cpuprofile: colliding node ids cost at most 3x the probes of random ones", (da, dr))
check(ra == ea, "cpuprofile (colliding ids): every node's parent, name, count and depth as Python has them")
check(rr == er, "cpuprofile (random ids): every node's parent, name, count and depth")
del ta, tr, ea, er


# ---------------------------------------------------------------------------------------------
# 3. pprof: location ids

def pprof_input(locids, nf=1000):
    """len(locids) locations (location j -> function j % nf + 2, location 1 -> function 1 'root'),
    one sample per location: [location j, location 1] (leaf first), count 1 + j % 4."""
    strings = ["", "samples", "count", "cpu", "nanoseconds", "app.go", "root"] + [f"f{k}" for k in range(nf)]
    funcs = [(1, 6, 5)] + [(k + 2, 7 + k, 5) for k in range(nf)]
    locs = [(1, 1)] + [(lid, j % nf + 2) for j, lid in enumerate(locids)]
    samples = [([lid, 1], 1 + j % 4, 10_000_000) for j, lid in enumerate(locids)]
    exp = {("root",): 0}
    for j in range(len(locids)):
        k = ("root", f"f{j % nf}")
        exp[k] = exp.get(k, 0) + 1 + j % 4
    return pprof_bytes(strings, funcs, locs, samples), exp


N_PP = 160000
c = random.Random(5).getrandbits(36)
pp_adv = [((c + (j << 36)) * GINV) & M64 for j in range(N_PP)]
check(len({(((x * G) & M64) >> 17) & 0x7FFFF for x in pp_adv}) == 1 and min(pp_adv) > 4 * N_PP + 64,
      "pprof: the attack location ids share one slot of the old id map (2^19 slots), none dense")
rnd = random.Random(6)
pp_ran = list({rnd.getrandbits(64) | (1 << 40) for _ in range(N_PP + 100)})[:N_PP]
ba, ea = pprof_input(pp_adv)
br, er = pprof_input(pp_ran)
pa, pr = write("adv.pb.gz", gzip.compress(ba, 1)), write("ran.pb.gz", gzip.compress(br, 1))
ra, da = records(db, pa, "pprof")
rr, dr = records(db, pr, "pprof")
nOps = 2 * N_PP            # location map: an insert per location, a lookup per sample's leaf
check(dr >= nOps, "pprof: the id map counts its probes", (dr, nOps))
print(f"pprof: hash_probes colliding {da}, random {dr} (ratio {da / max(dr, 1):.2f})")
check(da <= 3 * dr, "pprof: colliding location ids cost at most 3x the probes of random ones", (da, dr))
check(paths_of(ra) == ea, "pprof (colliding ids): every call-tree path and its count as Python sums them")
check(paths_of(rr) == er, "pprof (random ids): every call-tree path and its count")
ev = db.execute("SELECT count(*), sum(args ->> '$.\"samples/count\"'), sum(dur) FROM profile_events(?, 'pprof')", (pa,)).fetchone()
check(ev == (N_PP, sum(1 + j % 4 for j in range(N_PP)), N_PP * 10_000_000),
      "pprof (colliding ids): one event per sample, weights and durations summed", ev)


# ---------------------------------------------------------------------------------------------
# 4. no result depends on the key: two seeds, the same rows

SEED_SQL = ("SELECT record_id, parent_record_id, name, count, depth, self_ns, time_ns, attrs FROM profile_records(?1) "
            "ORDER BY record_id; SELECT ts, dur, name, stack_id, args, byte_offset FROM profile_events(?1)")
child = r"""
import sqlite3, sys, os, hashlib
db = sqlite3.connect(":memory:"); db.enable_load_extension(True); db.load_extension(os.path.abspath("libprofsql"))
h = hashlib.sha256()
for path in sys.argv[1:]:
    for q in %r.split("; "):
        for r in db.execute(q, (path,)):
            h.update(repr(r).encode())
print(h.hexdigest())
""" % SEED_SQL
seed_files = [os.path.join(D, f) for f in ("adv.folded", "adv.cpuprofile", "adv.pb.gz")]
seed_files += [os.path.join("tests", "data", "stacks", f) for f in
               ("speedscope_multi.speedscope.json", "speedscope_edge.speedscope.json", "pprof_small.pb",
                "cpuprofile_basic.cpuprofile", "folded_edge.txt")]
outs = []
for seed in ("1", "0x9e3779b97f4a7c15"):
    env = dict(os.environ, PROFSQL_HASH_SEED=seed)
    r = subprocess.run([sys.executable, "-c", child] + seed_files, env=env, capture_output=True, text=True)
    outs.append(r.stdout.strip() if r.returncode == 0 else "error: " + r.stderr[-300:])
check(outs[0] == outs[1] and not outs[0].startswith("error"),
      "the rows of every stack format are the same under two PROFSQL_HASH_SEED values", outs)


# ---------------------------------------------------------------------------------------------
# 5. interrupts land in the parse, by work done: a progress handler that says stop

def interrupted(path, fmt):
    """The error of a load whose progress handler (every 1000 VM steps; a poll of the host runs
    ~5,000) says stop from its 21st call on, i.e. at about the 5th time the load asks the host, and
    how many times it was called (None, n when the load ran to its end). The old loops asked once
    per 65,536 items (4,096 pprof samples), never 5 times in these inputs of few items."""
    db2 = connect()
    calls = [0]

    def handler():
        calls[0] += 1
        return 1 if calls[0] > 20 else 0
    db2.set_progress_handler(handler, 1000)
    try:
        db2.execute("SELECT count(*) FROM profile_events(?, ?)", (path, fmt)).fetchall()
        e = None
    except Exception as x:
        e = str(x)
    db2.close()
    return e, calls[0]


# 40 lines of 25,000 distinct frames each (~13 MB): far fewer than the 65,536 lines between
# the old polls
rnd = random.Random(8)
long_lines = "".join(";".join(f"fr{rnd.getrandbits(40):x}" for _ in range(25000)) + " 1\n" for _ in range(40))
p = write("long.folded", long_lines)
e, n = interrupted(p, "folded")
check(e is not None and "interrupted" in e, "folded: a progress handler's stop ends a parse of a few long lines",
      (e, n))
# a .cpuprofile whose nodes are one node with 2,000,000 children ids (one item for the old poll)
kids = ",".join(str(i) for i in range(2, 2_000_002))
p = write("wide.cpuprofile", '{"nodes":[{"id":1,"callFrame":{"functionName":"r","url":""},"children":[%s]}],'
          '"startTime":0,"endTime":1,"samples":[],"timeDeltas":[]}' % kids)
e, n = interrupted(p, "cpuprofile")
check(e is not None and "interrupted" in e, "cpuprofile: a stop ends the read of one node's 2M children",
      (e, n))
# a pprof whose location 1 has 3000 inlined lines (3000 frames) and 300 samples, leaf first,
# [leaf k, 1 x 50] and [leaf k, 1 x 50, 2] in turn (so none shares a prefix with the sample
# before it): each walks 150,000 trie nodes that exist (16 KB of samples, 45M steps)
strings = ["", "samples", "count", "cpu", "nanoseconds", "a.go"] + [f"g{k}" for k in range(3000)]
funcs = [(k + 1, 6 + k, 5) for k in range(3000)]
locs = [(k + 2, 1) for k in range(301)]
loc1 = fb(4, fv(1, 1) + b"".join(fb(4, fv(1, k + 1)) for k in range(3000)))
raw = pprof_bytes(strings, funcs, locs, [([k + 3] + [1] * 50 + [2] * (k % 2), 1, 1) for k in range(300)]) + loc1
p = write("inl.pb", raw)
e, n = interrupted(p, "pprof")
check(e is not None and "interrupted" in e, "pprof: a stop ends a walk of many inlined frames", (e, n))

db.close()
shutil.rmtree(D, ignore_errors=True)
done()
