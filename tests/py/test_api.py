"""Loads libprofsql from Debian's python3 (sqlite3 module, enable_load_extension) and pins what it
registers: exactly these functions and modules, no more, no fewer. Run from the repository root.
Prints "RESULT <passed> <failed>" last (tests/run.sh reads it)."""
import os
import sqlite3

from testlib import check, done


EXPECTED_FUNCTIONS = [("profile_fixed", 2), ("profile_flamegraph", 2), ("profile_flamegraph", 3), ("profile_flamegraph_folded", 2), ("profile_flamegraph_folded", 3), ("profile_float", 1), ("profile_import", 1), ("profile_import", 2), ("profile_import", 3), ("profile_open", 1), ("profile_open", 2), ("profile_open", 3), ("profile_report", 2), ("profile_report", 3), ("profile_span_union", 2), ("profile_write_csv", 2), ("profile_write_csv", 3), ("profile_write_markdown", 2), ("profile_zip", -1), ("profsql_arg_key", 2), ("profsql_config", 1), ("profsql_config", 2), ("profsql_debug", 0), ("profsql_debug", 1), ("profsql_number", 1), ("profsql_rp_row", -1), ("profsql_version", 0)]
# (profsql_rp_row is internal: profile_report's scan calls it with a pointer SQL cannot make, and
# any other call fails; tests/py/test_report_groups.py checks that)
EXPECTED_MODULES = ["profile_diff", "profile_events", "profile_jobs", "profile_metadata", "profile_processes", "profile_records",
                    "profile_sandwich", "profile_threads", "profile_tracks", "profile_training_rows", "profile_xplanes"]

FUNCS_SQL = "SELECT name, narg FROM pragma_function_list ORDER BY name, narg"
MODS_SQL = "SELECT name FROM pragma_module_list ORDER BY name"
plain = sqlite3.connect(":memory:")
funcs_before = set(plain.execute(FUNCS_SQL).fetchall())
mods_before = {r[0] for r in plain.execute(MODS_SQL)}

db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.load_extension(os.path.abspath("libprofsql"))   # entry point derived from the file name
db.enable_load_extension(False)

# what loading added, compared with a connection without the extension
funcs = sorted(set(db.execute(FUNCS_SQL).fetchall()) - funcs_before)
check(funcs == EXPECTED_FUNCTIONS, f"functions {funcs} != {EXPECTED_FUNCTIONS}")
mods = sorted({r[0] for r in db.execute(MODS_SQL)} - mods_before)
check(mods == EXPECTED_MODULES, f"modules {mods} != {EXPECTED_MODULES}")
version = open("VERSION").read().strip()
check(db.execute("SELECT profsql_version()").fetchone()[0] == version, "profsql_version() matches VERSION")

# a client query as a user runs it, with a parameter and a BLOB
rows = db.execute("SELECT name, dur FROM profile_events(?) WHERE ph = 'X' ORDER BY id",
                  ("tests/data/basic.json",)).fetchall()
check(rows == [("RunTask", 50500), ("Layout", 20000), ("Handle", 5000)], f"X rows {rows}")
blob = open("tests/data/basic.json.gz", "rb").read()
n = db.execute("SELECT count(*) FROM profile_events(?)", (blob,)).fetchone()[0]
check(n == 14, f"gzip BLOB rows {n}")
try:
    db.execute("SELECT * FROM profile_events('tests/data/truncated.json')").fetchall()
    check(False, "truncated file raised no error")
except sqlite3.OperationalError as e:
    check(str(e) == "profile_events: tests/data/truncated.json: the input ends inside an event at byte 88 (line 2, column 34; cut short?): byte 85 (line 2, column 31): unterminated string", f"message {e}")
done()
