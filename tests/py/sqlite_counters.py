"""SQLite's own counters for the tests that measure a query's work by count, never by time
(tests/py/test_tree_scale.py, test_folded_scale.py): the bytes SQLite allocates, counted by an
allocator installed with sqlite3_config(SQLITE_CONFIG_MALLOC) around the system one, and the C API
(VM steps, the heap's high-water mark) through ctypes, on the libsqlite3 that Python's sqlite3
module uses. Import it before anything imports sqlite3 (testlib does): the allocator must be in
place before SQLite initializes; config_rc is 0 when it is."""
import ctypes
import ctypes.util
import os

LIB = ctypes.CDLL(ctypes.util.find_library("sqlite3"))
SQLITE_CONFIG_MALLOC, SQLITE_CONFIG_GETMALLOC, SQLITE_STMTSTATUS_VM_STEP = 4, 5, 4
SQLITE_STATUS_MEMORY_USED = 0
XMALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int)
XREALLOC = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


class MemMethods(ctypes.Structure):   # struct sqlite3_mem_methods
    _fields_ = [(f, ctypes.c_void_p) for f in
                ("xMalloc", "xFree", "xRealloc", "xSize", "xRoundup", "xInit", "xShutdown", "pAppData")]


allocated = [0]                       # bytes asked of xMalloc / xRealloc since the start
system = MemMethods()
config_rc = LIB.sqlite3_config(SQLITE_CONFIG_GETMALLOC, ctypes.byref(system))
sys_malloc, sys_realloc = XMALLOC(system.xMalloc or 0), XREALLOC(system.xRealloc or 0)


@XMALLOC
def count_malloc(n):
    allocated[0] += n
    return sys_malloc(n)


@XREALLOC
def count_realloc(p, n):
    allocated[0] += n
    return sys_realloc(p, n)


counting = MemMethods(ctypes.cast(count_malloc, ctypes.c_void_p).value, system.xFree,
                      ctypes.cast(count_realloc, ctypes.c_void_p).value, system.xSize,
                      system.xRoundup, system.xInit, system.xShutdown, system.pAppData)
if config_rc == 0:
    config_rc = LIB.sqlite3_config(SQLITE_CONFIG_MALLOC, ctypes.byref(counting))

LIB.sqlite3_errmsg.restype = ctypes.c_char_p
LIB.sqlite3_column_text.restype = ctypes.c_char_p
LIB.sqlite3_column_int64.restype = ctypes.c_int64
LIB.sqlite3_column_double.restype = ctypes.c_double


class Db:
    """A connection through the C API, with ./libprofsql loaded (run from the repository root)."""

    def __init__(self):
        self.p = ctypes.c_void_p()
        assert LIB.sqlite3_open(b":memory:", ctypes.byref(self.p)) == 0
        LIB.sqlite3_enable_load_extension(self.p, 1)
        err = ctypes.c_char_p()
        if LIB.sqlite3_load_extension(self.p, os.path.abspath("libprofsql").encode(), None, ctypes.byref(err)):
            raise RuntimeError(err.value)

    def exec(self, sql):
        err = ctypes.c_char_p()
        if LIB.sqlite3_exec(self.p, sql.encode(), None, None, ctypes.byref(err)):
            raise RuntimeError(err.value.decode())

    def run(self, sql, *args):
        """Runs one statement (TEXT arguments); returns (rows, VM steps, bytes allocated, heap
        high-water mark above the start, error message or None)."""
        st = ctypes.c_void_p()
        if LIB.sqlite3_prepare_v2(self.p, sql.encode(), -1, ctypes.byref(st), None):
            raise RuntimeError(LIB.sqlite3_errmsg(self.p).decode())
        for i, a in enumerate(args):
            LIB.sqlite3_bind_text(st, i + 1, a.encode(), -1, ctypes.c_void_p(-1))   # SQLITE_TRANSIENT
        cur, hi = ctypes.c_int64(), ctypes.c_int64()
        LIB.sqlite3_status64(SQLITE_STATUS_MEMORY_USED, ctypes.byref(cur), ctypes.byref(hi), 1)
        rows, before, base = [], allocated[0], cur.value
        while (rc := LIB.sqlite3_step(st)) == 100:
            row = []
            for i in range(LIB.sqlite3_column_count(st)):
                t = LIB.sqlite3_column_type(st, i)
                row.append(LIB.sqlite3_column_int64(st, i) if t == 1 else LIB.sqlite3_column_double(st, i)
                           if t == 2 else None if t == 5 else LIB.sqlite3_column_text(st, i).decode())
            rows.append(tuple(row))
        used = allocated[0] - before
        LIB.sqlite3_status64(SQLITE_STATUS_MEMORY_USED, ctypes.byref(cur), ctypes.byref(hi), 0)
        steps = LIB.sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0)
        err = None if rc == 101 else LIB.sqlite3_errmsg(self.p).decode()
        LIB.sqlite3_finalize(st)
        return rows, steps, used, hi.value - base, err
