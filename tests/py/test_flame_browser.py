"""profile_flamegraph's SVG in a real browser: Debian's chromium driven headless through
/usr/bin/chromedriver with the raw W3C WebDriver protocol (urllib + json, no selenium). The
graph is opened from file:// (offline, as a user opens it); the test clicks a frame, answers the
Search prompt, hovers, resets, and decodes screenshots (a PNG decoder below, zlib only) to
compare pixels:

  1. a click on a frame zooms: its rect then spans the graph's width (the SVG's width less its two
     10 px margins, the width the root frame has), its ancestors stay full width, a frame outside
     it hides, and a screenshot's pixel row through its bar is its fill colour across the width;
  2. "Search" with a regular expression fills the matching frames rgb(230,0,230) (pixels: the
     highlight at a matched frame, not at an unmatched one) and shows "Matched: X%", X computed
     here from profile_events rows (the union of the matching frames' inclusive time over the
     total, nested matches counted once, the same rule flamegraph.pl uses);
  3. hovering a frame writes its <title> on the details line;
  4. "Reset Zoom" puts every frame back where the file has it;
  5. labels fit their frames (no label's rendered length exceeds its rect) after zoom too; long
     ones are elided in the middle ("Rend…Main");
  6. a Node trace (tests/data/flame/node_trace.json, async tracks left out): the SVG is as wide
     as the window, the main thread's frame fills it, no label reads NULL, a resize refits, a
     click zooms;
  7. a differential graph (examples/diff, after against before): a new frame is full red, a click
     zooms, hovering shows both values and the change, a search highlights and its reset gives
     the differential colours back;
  8. a sandwich graph: a click on a caller (the upper, inverted half) zooms it upwards, the frames
     between it and the function stay full width, the callees' half is left as it is.
Skipped (skip_part) when chromium or chromedriver is missing."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import zlib
from collections import defaultdict

from testlib import check, connect, done, skip_part

HL = (230, 0, 230)
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"     # the W3C web element reference key


# ------------------------------------------------------------------ a tiny PNG decoder
def png_decode(data):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit RGB/RGBA PNG, non-interlaced."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    i, idat, w = 8, b"", None
    while i < len(data):
        n, typ = struct.unpack(">I4s", data[i:i + 8])
        body = data[i + 8:i + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth} colour type {ctype} interlace {interlace}")
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        elif typ == b"IEND":
            break
        i += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev, p = [], bytearray(stride), 0
    for _ in range(h):
        ft, line = raw[p], bytearray(raw[p + 1:p + 1 + stride])
        p += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1:
                line[x] = (line[x] + a) & 255
            elif ft == 2:
                line[x] = (line[x] + b) & 255
            elif ft == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
            elif ft != 0:
                raise ValueError(f"bad PNG filter {ft}")
        rows.append([tuple(line[x:x + 3]) for x in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def near(c1, c2, tol=4):
    return all(abs(a - b) <= tol for a, b in zip(c1, c2))


# the decoder against a PNG made here: 2x2 RGB, filters 0 (None) and 2 (Up)
_raw = b"\x00" + bytes([255, 0, 0, 0, 255, 0]) + b"\x02" + bytes([0, 0, 255, 0, 0, 0])
_png = (b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0)
        + b"\0\0\0\0" + struct.pack(">I", len(zlib.compress(_raw))) + b"IDAT" + zlib.compress(_raw) + b"\0\0\0\0"
        + b"\0\0\0\0IEND\0\0\0\0")
check(png_decode(_png)[2] == [[(255, 0, 0), (0, 255, 0)], [(255, 0, 255), (0, 255, 0)]], "PNG decoder: filters 0 and 2")

# ------------------------------------------------------------------ the graph and the reference numbers
db = connect()
tmp = tempfile.mkdtemp(prefix="profsql-flame-browser-")
trace = "examples/browser_trace.json"
svg = os.path.join(tmp, "graph.svg")
res = json.loads(db.execute("SELECT profile_flamegraph(?, ?, '{\"group\": \"none\", \"async\": true}')", (trace, svg)).fetchone()[0])
node_svg = os.path.join(tmp, "node.svg")
node_trace = "tests/data/flame/node_trace.json"
node_res = json.loads(db.execute("SELECT profile_flamegraph(?, ?)", (node_trace, node_svg)).fetchone()[0])
node_ev = json.load(open(node_trace))["traceEvents"]
# 7. a differential graph: the Node program of examples/diff after its change, against before
diff_svg = os.path.join(tmp, "diff.svg")
diff_res = json.loads(db.execute("SELECT profile_flamegraph(?, ?, ?)", ("examples/diff/after.cpuprofile", diff_svg,
                                 json.dumps({"baseline": "examples/diff/before.cpuprofile"}))).fetchone()[0])
# 8. a sandwich graph: the callers of evaluate drawn upwards, its callees below
sw_svg = os.path.join(tmp, "sandwich.svg")
db.execute("SELECT profile_flamegraph(?, ?, '{\"sandwich\": \"evaluate\"}')", ("examples/diff/before.cpuprofile", sw_svg)).fetchone()
node_main = next(e["args"]["name"] for e in node_ev if e["ph"] == "M" and e["name"] == "process_name") + " / " + \
    next(e["args"]["name"] for e in node_ev if e["ph"] == "M" and e["name"] == "thread_name" and e["tid"] == e["pid"])

# the reference: every complete slice's self time (dur minus its children's dur, never negative),
# stacks of names from the root; the matched share is the union over stacks having a match
rows = db.execute("SELECT id, parent_id, name, dur FROM profile_events(?) WHERE dur IS NOT NULL AND ph IN ('X','B','b')",
                  (trace,)).fetchall()
by = {r[0]: r for r in rows}
child = defaultdict(int)
for i, p, n, d in rows:
    if p in by:
        child[p] += d
selfns = {i: max(d - child[i], 0) for i, p, n, d in rows}
total = sum(selfns.values())


def stack(i):
    out = []
    while i is not None and i in by:
        out.append(by[i][2])
        i = by[i][1]
    return out[::-1]


def matched_share(pattern):
    """Percent of the total whose stack has a frame matching pattern (JavaScript and Python agree
    on the simple patterns used here); a stack counted once however many of its frames match."""
    rx = re.compile(pattern)
    return 100.0 * sum(s for i, s in selfns.items() if any(rx.search(n) for n in stack(i))) / total


chromium = shutil.which("chromium") or shutil.which("chromium-browser")
driver_bin = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
if not chromium or not driver_bin:
    skip_part("browser test: chromium or chromedriver is not installed (Debian packages chromium, chromium-driver)")
    done()


# ------------------------------------------------------------------ raw W3C WebDriver
def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


port = free_port()
base = f"http://127.0.0.1:{port}"


def wd(method, path, body=None):
    data = json.dumps(body).encode() if body is not None else (b"{}" if method == "POST" else None)
    req = urllib.request.Request(base + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read() or b"{}").get("value")
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{method} {path}: {e.code} {e.read()[:300]!r}")


proc = subprocess.Popen([driver_bin, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
sid = None
try:
    for _ in range(100):
        try:
            if wd("GET", "/status").get("ready"):
                break
        except Exception:
            pass
        time.sleep(0.1)
    sess = wd("POST", "/session", {"capabilities": {"alwaysMatch": {
        "browserName": "chrome", "unhandledPromptBehavior": "ignore",
        "goog:chromeOptions": {"binary": chromium, "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,900",
            "--force-device-scale-factor=1", "--hide-scrollbars"]}}}})
    sid = sess["sessionId"]
    S = f"/session/{sid}"

    def js(script, *args):
        return wd("POST", S + "/execute/sync", {"script": script, "args": list(args)})

    def find(css):
        return wd("POST", S + "/element", {"using": "css selector", "value": css})[ELEMENT]

    def click(el):
        wd("POST", S + f"/element/{el}/click")

    def shot():
        return png_decode(base64.b64decode(wd("GET", S + "/screenshot")))

    wd("POST", S + "/url", {"url": "file://" + os.path.abspath(svg)})
    geo = js("""const r = document.querySelector('g.f rect');
                return {svgw: document.documentElement.width.baseVal.value, rootx: +r.getAttribute('x'),
                        rootw: +r.getAttribute('width'), n: document.querySelectorAll('g.f').length,
                        hasScript: typeof window.flamegraph === 'object'}""")
    check(geo["hasScript"] and geo["n"] == res["frames"], "the script ran on file:// and sees every frame", geo)
    check(abs(geo["rootw"] - (geo["svgw"] - 2 * geo["rootx"])) <= 1, "the root spans the SVG's width less its margins", geo)

    # labels fit: no label is wider than its rect (measured by the browser)
    def overflowing():
        return js("""let bad = [];
            for (const g of document.querySelectorAll('g.f')) {
              if (g.classList.contains('hide')) continue;
              const t = g.querySelector('text'), w = +g.querySelector('rect').getAttribute('width');
              if (t.textContent && t.getComputedTextLength() > w - 5) bad.push(t.textContent);
            }
            return bad""")
    check(overflowing() == [], "every label fits its frame", overflowing())
    labels = js("return [...document.querySelectorAll('g.f text')].map(t => t.textContent)")
    check(any("\u2026" in l[1:-1] for l in labels) and any(l and "\u2026" not in l for l in labels),
          "some labels are whole, some elided in the middle with '\u2026'", [l for l in labels if "\u2026" in l][:3])

    # 1. click a frame at depth 2 (y = 34 + 2*17): the widest one with children
    target = js("""let best = null;
        document.querySelectorAll('g.f').forEach((g, i) => {
          const r = g.querySelector('rect');
          if (Math.abs(+r.getAttribute('y') - 68) < 0.5 && +r.getAttribute('width') < 600 &&
              (!best || +r.getAttribute('width') > best.w))
            best = {i, w: +r.getAttribute('width'), x: +r.getAttribute('x'), fill: r.getAttribute('fill'),
                    title: g.querySelector('title').textContent};
        });
        return best""")
    check(target is not None, "a frame at depth 2 to click")
    gs = wd("POST", S + "/elements", {"using": "css selector", "value": "g.f"})
    el = gs[target["i"]][ELEMENT]
    click(el)
    after = js("""const gs = document.querySelectorAll('g.f'), r = gs[arguments[0]].querySelector('rect');
        const anc = [...gs].filter(g => +g.querySelector('rect').getAttribute('y') < 68 && !g.classList.contains('hide'))
                           .map(g => [+g.querySelector('rect').getAttribute('width'), g.getAttribute('class')]);
        return {w: +r.getAttribute('width'), x: +r.getAttribute('x'), anc,
                hidden: [...gs].filter(g => g.classList.contains('hide')).length,
                box: r.getBoundingClientRect().toJSON()}""", target["i"])
    check(abs(after["w"] - geo["rootw"]) <= 1 and abs(after["x"] - geo["rootx"]) <= 1,
          "zoom: the clicked frame spans the width", (after["x"], after["w"], geo["rootw"]))
    check(len(after["anc"]) == 2 and all(abs(w - geo["rootw"]) <= 1 and "parent" in c for w, c in after["anc"]),
          "zoom: its two ancestors stay full width, faded", after["anc"])
    check(after["hidden"] > 0, "zoom: frames outside it hide", after["hidden"])
    check(overflowing() == [], "every label fits its frame after the zoom", overflowing())
    # pixels: a row 2 px into the bar (above the label's glyphs) is the frame's fill across
    fill = tuple(int(v) for v in re.findall(r"\d+", target["fill"]))
    w, h, px = shot()
    y = int(after["box"]["y"]) + 2
    x0, x1 = int(geo["rootx"]) + 2, int(geo["rootx"] + geo["rootw"]) - 2
    same = sum(near(px[y][x], fill) for x in range(x0, x1))
    check(same >= 0.97 * (x1 - x0), f"zoom pixels: row {y} is the frame's fill {fill} across the width",
          (same, x1 - x0, px[y][x0], px[y][(x0 + x1) // 2]))

    # 4. reset: every frame back where the file has it
    click(find("#unzoom"))
    back = js("""return [...document.querySelectorAll('g.f')].filter(g => g.classList.contains('hide') ||
                 g.classList.contains('parent')).length""")
    r2 = js("return +document.querySelectorAll('g.f')[arguments[0]].querySelector('rect').getAttribute('width')",
            target["i"])
    check(back == 0 and abs(r2 - target["w"]) < 0.02, "Reset Zoom restores every frame", (back, r2, target["w"]))

    # 2. search through the UI: click "Search", answer the prompt
    pattern = "^(Layout|Paint)"
    click(find("#search"))
    text = wd("GET", S + "/alert/text")
    check("regular expression" in text, "the Search control asks for a regular expression", text)
    wd("POST", S + "/alert/text", {"text": pattern})
    wd("POST", S + "/alert/accept")
    got = js("""return {m: document.getElementById('matched').textContent,
        hl: [...document.querySelectorAll('g.f')].map((g, i) => [i, g.querySelector('title').textContent,
              g.querySelector('rect').getAttribute('fill'), g.querySelector('rect').getBoundingClientRect().toJSON()])}""")
    want = matched_share(pattern)
    check(got["m"] == f"Matched: {want:.1f}%", "the matched share equals the one computed from the rows",
          (got["m"], want))
    rx = re.compile(pattern)
    hit = [g for g in got["hl"] if rx.search(g[1].rsplit(" \u2014 ", 1)[0])]
    miss = [g for g in got["hl"] if not rx.search(g[1].rsplit(" \u2014 ", 1)[0])]
    check(hit and all(g[2] == "rgb(230,0,230)" for g in hit) and all(g[2] != "rgb(230,0,230)" for g in miss),
          "every matching frame and no other is highlighted", len(hit))
    w, h, px = shot()
    hb = max(hit, key=lambda g: g[3]["width"])[3]
    mb = max((g for g in miss if g[3]["y"] > 40 and g[3]["y"] + 10 < h), key=lambda g: g[3]["width"])[3]
    check(near(px[int(hb["y"]) + 2][int(hb["x"] + 2)], HL), "search pixels: the highlight at a matched frame",
          px[int(hb["y"]) + 2][int(hb["x"] + 2)])
    check(not near(px[int(mb["y"]) + 2][int(mb["x"] + 2)], HL, 40), "search pixels: no highlight at an unmatched frame",
          px[int(mb["y"]) + 2][int(mb["x"] + 2)])
    click(find("#search"))     # "Reset Search"
    cleared = js("""return [document.getElementById('matched').textContent,
        [...document.querySelectorAll('g.f rect')].filter(r => r.getAttribute('fill') == 'rgb(230,0,230)').length]""")
    check(cleared == [" ", 0], "Reset Search clears the highlight", cleared)

    # 3. hover: the details line shows the frame's title
    wd("POST", S + "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                                              "actions": [{"type": "pointerMove", "duration": 0, "origin": {ELEMENT: el}, "x": 0, "y": 0}]}]})
    det = js("return document.getElementById('details').textContent")
    check(det == target["title"], "hover: the details line shows the frame's full name and time", (det, target["title"]))
    check(re.fullmatch(r".+ \u2014 \d+\.\d{3} ms \(\d+\.\d\d%\)", det or "") is not None, "the title's form is kept", det)

    # 6. the Node trace (async tracks left out): the graph fills the window's width, the main
    # thread's frame spans (nearly) all of it, no label reads NULL; a resize refits; a click zooms
    wd("POST", S + "/url", {"url": "file://" + os.path.abspath(node_svg)})

    def node_geo():
        return js("""const out = {vw: window.innerWidth, svgw: document.documentElement.getBoundingClientRect().width,
                                  frames: []};
            for (const g of document.querySelectorAll('g.f')) {
              const r = g.querySelector('rect');
              out.frames.push({title: g.querySelector('title').textContent.split(' \u2014 ')[0], label: g.querySelector('text').textContent,
                               x: +r.getAttribute('x'), y: +r.getAttribute('y'), w: +r.getAttribute('width'), cls: g.getAttribute('class')});
            }
            return out""")
    ng = node_geo()
    lvl1 = [f for f in ng["frames"] if abs(f["y"] - 51) < 0.5]
    check(abs(ng["svgw"] - ng["vw"]) <= 1, "node graph: the SVG is as wide as the window", (ng["svgw"], ng["vw"]))
    check(len(lvl1) == 1 and lvl1[0]["title"] == node_main and lvl1[0]["w"] >= 0.98 * (ng["vw"] - 20),
          "node graph: the main thread's frame fills the width", (lvl1, ng["vw"]))
    check(not any("NULL" in f["title"] or "NULL" in f["label"] for f in ng["frames"]), "node graph: no label reads NULL")
    check(len(ng["frames"]) == node_res["frames"], "node graph: every frame drawn", (len(ng["frames"]), node_res["frames"]))
    wd("POST", S + "/window/rect", {"width": 900, "height": 700})
    time.sleep(0.3)
    ng2 = node_geo()
    l2 = [f for f in ng2["frames"] if abs(f["y"] - 51) < 0.5]
    check(ng2["vw"] < ng["vw"] and l2 and abs(l2[0]["w"] - (ng2["vw"] - 20)) <= 2 and overflowing() == [],
          "node graph: a resize refits the frames and labels to the window", (ng2["vw"], l2[:1]))
    deep = [i for i, f in enumerate(ng2["frames"]) if abs(f["y"] - 68) < 0.5 and f["w"] < 0.9 * l2[0]["w"]]
    if deep:
        i = max(deep, key=lambda k: ng2["frames"][k]["w"])
        click(wd("POST", S + "/elements", {"using": "css selector", "value": "g.f"})[i][ELEMENT])
        z = node_geo()["frames"][i]
        check(abs(z["w"] - l2[0]["w"]) <= 1 and abs(z["x"] - 10) <= 1, "node graph: a click zooms the frame to the width",
              (z, l2[0]["w"]))
    else:
        check(False, "node graph: a frame to zoom into at depth 2", ng2["frames"][:3])

    # 7. the differential graph: a click zooms, a search highlights and its reset gives back the
    # red / blue fills of the file, and hovering shows both values and the change
    wd("POST", S + "/url", {"url": "file://" + os.path.abspath(diff_svg)})
    dg = js("""const out = [];
        for (const g of document.querySelectorAll('g.f')) { const r = g.querySelector('rect');
          out.push({t: g.querySelector('title').textContent, fill: r.getAttribute('fill'), x: +r.getAttribute('x'),
                    w: +r.getAttribute('width'), y: +r.getAttribute('y')}); }
        return {frames: out, root: out.length ? out[0].w : 0}""")
    byname = {f["t"].rsplit(" \u2014 ", 1)[0]: (i, f) for i, f in enumerate(dg["frames"])}
    check(len(dg["frames"]) == diff_res["frames"] and byname.get("validate", (0, {}))[1].get("fill") == "rgb(255,0,0)",
          "diff graph: every frame drawn, the new validate() full red", (len(dg["frames"]), byname.get("validate")))
    ri = max((i for i, f in enumerate(dg["frames"]) if f["t"].startswith("render \u2014")), key=lambda i: dg["frames"][i]["w"])
    rel = wd("POST", S + "/elements", {"using": "css selector", "value": "g.f"})[ri][ELEMENT]
    wd("POST", S + "/actions", {"actions": [{"type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
                                              "actions": [{"type": "pointerMove", "duration": 0, "origin": {ELEMENT: rel}, "x": 0, "y": 0}]}]})
    det = js("return document.getElementById('details').textContent")
    click(rel)
    z = js("const r = document.querySelectorAll('g.f rect')[arguments[0]]; return {x: +r.getAttribute('x'), w: +r.getAttribute('width')}", ri)
    check(abs(z["w"] - dg["root"]) <= 1, "diff graph: a click zooms render to the width", (z, dg["root"]))
    check(", baseline " in det and "change +" in det and det.startswith("render"),
          "diff graph: hovering shows the test's value, the baseline's and the change", det)
    click(find("#unzoom"))
    js("window.flamegraph.search('render|validate')")
    hl = js("return [...document.querySelectorAll('g.f')].filter(g => g.querySelector('rect').getAttribute('fill') == 'rgb(230,0,230)')"
            ".map(g => g.querySelector('title').textContent.split(' \u2014 ')[0])")
    check(hl and set(hl) <= {"render", "validate"} and "validate" in hl, "diff graph: search highlights the matching frames", hl)
    js("window.flamegraph.resetSearch()")
    back = js("return [...document.querySelectorAll('g.f rect')].map(r => r.getAttribute('fill'))")
    check(back == [f["fill"] for f in dg["frames"]], "diff graph: a reset search gives back the differential colours")

    # 8. the sandwich graph: a click on a caller (upper half) zooms it to the width, the frames
    # between it and the function (below it) stay full width, the callees' half is left as it is
    wd("POST", S + "/url", {"url": "file://" + os.path.abspath(sw_svg)})
    sg = js("""return [...document.querySelectorAll('g.f')].map(g => { const r = g.querySelector('rect');
        return {up: g.getAttribute('data-up') == '1', t: g.querySelector('title').textContent.split(' \u2014 ')[0],
                x: +r.getAttribute('x'), w: +r.getAttribute('width'), y: +r.getAttribute('y')}; })""")
    full = max(f["w"] for f in sg)
    part = [i for i, f in enumerate(sg) if f["up"] and f["w"] < 0.5 * full]
    if part:
        i = max(part, key=lambda k: sg[k]["w"])
        click(wd("POST", S + "/elements", {"using": "css selector", "value": "g.f"})[i][ELEMENT])
        z = js("""return [...document.querySelectorAll('g.f')].map(g => { const r = g.querySelector('rect');
            return {w: +r.getAttribute('width'), cls: g.getAttribute('class')}; })""")
        below = [k for k, f in enumerate(sg) if f["up"] and f["y"] > sg[i]["y"] and f["x"] <= sg[i]["x"] + 0.1
                 and f["x"] + f["w"] >= sg[i]["x"] + sg[i]["w"] - 0.1]
        downs = [k for k, f in enumerate(sg) if not f["up"]]
        check(abs(z[i]["w"] - full) <= 1 and below and all("parent" in (z[k]["cls"] or "") for k in below)
              and all(abs(z[k]["w"] - sg[k]["w"]) <= 0.5 for k in downs),
              "sandwich graph: a caller zooms to the width upwards, the callees' half unchanged", (sg[i], z[i]))
    else:
        check(False, "sandwich graph: a narrow caller to click", sg[:4])
except RuntimeError as e:
    check(False, "WebDriver", str(e))
finally:
    if sid:
        try:
            wd("DELETE", f"/session/{sid}")
        except Exception:
            pass
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
done()
