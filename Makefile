# libprofsql — a SQLite loadable extension that turns profiler captures into SQL.
#
#   make            build ./libprofsql.so
#   make test       C unit tests, SQL transcripts, Python API test, corpus tests, sanitizer runs
#   make demo       load the example capture and run a few telling queries
#   make valgrind   the C tests and SQL transcripts under Valgrind's memcheck
#   make bench      generate 1M/5M-event traces and time libprofsql against json_each
#   make static     libprofsql.a (init: sqlite3_profsql_init(db, 0, 0) in a program linking SQLite)
#   make install    PREFIX=/usr/local DESTDIR= : the library, sql/ helpers and docs (make uninstall)
#   make clean

VERSION   := $(shell cat VERSION)
BUILD     := build
CC        ?= cc
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra
DEFS      := -DPROFSQL_VERSION='"$(VERSION)"'
LDLIBS    := -lminizip -lz -lpthread -lm
SQLITE3   ?= sqlite3
PYTHON    ?= /usr/bin/python3

EXT_SRC   := ext/ps_util.c ext/source.c ext/mapguard.c ext/json.c ext/capture.c ext/chrome.c ext/timings.c ext/lms.c ext/xspace.c ext/jobs.c ext/writer.c ext/zipsrc.c ext/flame.c ext/formats.c
VTAB_SRC  := vtab/loader.c vtab/profile_events.c vtab/profile_records.c vtab/profile_xplanes.c \
             vtab/profile_metadata.c vtab/profile_jobs.c vtab/report.c \
             vtab/profile_open.c vtab/profile_import.c vtab/flamegraph.c vtab/profsql.c
SQL_SRC   := sql/event_tree.sql sql/record_tree.sql
EXT_HDR   := $(wildcard ext/*.h)
VTAB_HDR  := $(wildcard vtab/*.h) $(BUILD)/sql_text.h


.PHONY: all test demo bench clean fuzz valgrind install uninstall static

all: libprofsql.so

libprofsql.so: $(EXT_SRC) $(VTAB_SRC) $(EXT_HDR) $(VTAB_HDR) VERSION
	$(CC) $(CFLAGS) $(WARN) $(DEFS) -I$(BUILD) -fPIC -shared -o $@ $(EXT_SRC) $(VTAB_SRC) $(LDLIBS)

# the sql/ helpers compiled in as C strings (profile_open runs exactly these files)
$(BUILD)/sql_text.h: $(SQL_SRC) sql/embed.sh
	@mkdir -p $(BUILD)
	sh sql/embed.sh $(SQL_SRC) > $@

# ---- C tests: the parsers alone (no SQLite), and the extension driven through the SQLite C API
$(BUILD)/test_parser: tests/c/test_parser.c tests/c/testlib.h $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) -Iext -o $@ tests/c/test_parser.c $(EXT_SRC) $(LDLIBS)

$(BUILD)/test_sql: tests/c/test_sql.c tests/c/testlib.h $(EXT_SRC) $(VTAB_SRC) $(EXT_HDR) $(VTAB_HDR)
	@mkdir -p $(BUILD)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) -DSQLITE_CORE -Iext -Ivtab -I$(BUILD) -o $@ tests/c/test_sql.c \
	  $(EXT_SRC) $(VTAB_SRC) -lsqlite3 $(LDLIBS)

# The same tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang).
SAN := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
$(BUILD)/test_fault: tests/c/test_fault.c tests/c/testlib.h $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(BUILD)
	clang $(SAN) $(WARN) $(DEFS) -DPS_FAULT_INJECT -Iext -o $@ tests/c/test_fault.c $(EXT_SRC) $(LDLIBS)
$(BUILD)/test_sql_fault: tests/c/test_sql_fault.c tests/c/testlib.h $(EXT_SRC) $(VTAB_SRC) $(EXT_HDR) $(VTAB_HDR)
	@mkdir -p $(BUILD)
	clang $(SAN) $(WARN) $(DEFS) -DPS_FAULT_INJECT -DSQLITE_CORE -Iext -Ivtab -I$(BUILD) -o $@ tests/c/test_sql_fault.c \
	  $(EXT_SRC) $(VTAB_SRC) -lsqlite3 $(LDLIBS)
$(BUILD)/test_threads: tests/c/test_threads.c tests/c/testlib.h $(EXT_SRC) $(VTAB_SRC) $(EXT_HDR) $(VTAB_HDR)
	@mkdir -p $(BUILD)
	clang -O1 -g -fsanitize=thread $(WARN) $(DEFS) -DSQLITE_CORE -Iext -Ivtab -I$(BUILD) -o $@ tests/c/test_threads.c \
	  $(EXT_SRC) $(VTAB_SRC) -lsqlite3 $(LDLIBS)
$(BUILD)/test_parser.asan: tests/c/test_parser.c tests/c/testlib.h $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(BUILD)
	clang $(SAN) $(WARN) $(DEFS) -Iext -o $@ tests/c/test_parser.c $(EXT_SRC) $(LDLIBS)

$(BUILD)/test_sql.asan: tests/c/test_sql.c tests/c/testlib.h $(EXT_SRC) $(VTAB_SRC) $(EXT_HDR) $(VTAB_HDR)
	@mkdir -p $(BUILD)
	clang $(SAN) $(WARN) $(DEFS) -DSQLITE_CORE -Iext -Ivtab -I$(BUILD) -o $@ tests/c/test_sql.c \
	  $(EXT_SRC) $(VTAB_SRC) -lsqlite3 $(LDLIBS)

$(BUILD)/gen_trace: tests/bench/gen_trace.c
	@mkdir -p $(BUILD)
	$(CC) -O2 $(WARN) -o $@ $<

$(BUILD)/gen_text: tests/bench/gen_text.c
	@mkdir -p $(BUILD)
	$(CC) -O2 $(WARN) -o $@ $<

$(BUILD)/gen_xspace: tests/bench/gen_xspace.c
	@mkdir -p $(BUILD)
	$(CC) -O2 $(WARN) -o $@ $<

$(BUILD)/load_time: tests/bench/load_time.c $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(BUILD)
	$(CC) -O2 $(WARN) $(DEFS) -Iext -o $@ tests/bench/load_time.c $(EXT_SRC) $(LDLIBS)

# ---- libFuzzer targets (tests/fuzz/): one per parser and input path, and three through SQL
FUZZ      := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_TIME ?= 60
$(BUILD)/fuzz_%: tests/fuzz/fuzz_format.c tests/fuzz/fuzz_common.h $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(BUILD)
	clang $(FUZZ) $(DEFS) -DFUZZ_FORMAT=ps_format_$* -o $@ tests/fuzz/fuzz_format.c $(EXT_SRC) $(LDLIBS)
$(BUILD)/fuzz_gzip: tests/fuzz/fuzz_gzip.c tests/fuzz/fuzz_common.h $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(BUILD)
	clang $(FUZZ) $(DEFS) -o $@ tests/fuzz/fuzz_gzip.c $(EXT_SRC) $(LDLIBS)
$(BUILD)/fuzz_zip: tests/fuzz/fuzz_zip.c $(EXT_SRC) $(EXT_HDR)
	@mkdir -p $(BUILD)
	clang $(FUZZ) $(DEFS) -o $@ tests/fuzz/fuzz_zip.c $(EXT_SRC) $(LDLIBS)
$(BUILD)/fuzz_sql $(BUILD)/fuzz_report $(BUILD)/fuzz_tree: $(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(EXT_SRC) $(VTAB_SRC) $(EXT_HDR) $(VTAB_HDR)
	@mkdir -p $(BUILD)
	clang $(FUZZ) $(DEFS) -DSQLITE_CORE -I$(BUILD) -o $@ $< $(EXT_SRC) $(VTAB_SRC) -lsqlite3 $(LDLIBS)
FUZZERS := $(BUILD)/fuzz_chrome $(BUILD)/fuzz_timings $(BUILD)/fuzz_lms $(BUILD)/fuzz_xspace \
           $(BUILD)/fuzz_newengine $(BUILD)/fuzz_gzip $(BUILD)/fuzz_zip $(BUILD)/fuzz_sql \
           $(BUILD)/fuzz_report $(BUILD)/fuzz_tree

# make fuzz: every target for FUZZ_TIME seconds, seeded from the test inputs, then the truncation
# run (tests/fuzz/truncate.py: prefixes of every seed capture through its format's target); fails
# on any crash, leak or timeout (libFuzzer exits non-zero and leaves crash-* files in build/fuzz/).
fuzz: $(FUZZERS)
	@PYTHON=$(PYTHON) sh tests/fuzz/run.sh $(FUZZ_TIME)

test: libprofsql.so $(FUZZERS) $(BUILD)/test_parser $(BUILD)/test_sql $(BUILD)/test_parser.asan $(BUILD)/test_sql.asan $(BUILD)/test_fault \
      $(BUILD)/test_sql_fault $(BUILD)/test_threads
	@SQLITE3=$(SQLITE3) PYTHON=$(PYTHON) sh tests/run.sh

# make valgrind: C tests and SQL transcripts under memcheck (needs valgrind installed)
valgrind: libprofsql.so $(BUILD)/test_parser $(BUILD)/test_sql
	@sh tests/valgrind.sh

demo: libprofsql.so
	@sh examples/demo.sh

bench: libprofsql.so $(BUILD)/gen_trace $(BUILD)/gen_text $(BUILD)/gen_xspace $(BUILD)/load_time
	@SQLITE3=$(SQLITE3) PYTHON=$(PYTHON) sh tests/bench/bench.sh

# make install / uninstall: the library, the sql/ helpers and the docs under $(DESTDIR)$(PREFIX)
PREFIX    ?= /usr/local
LIBDIR    ?= $(PREFIX)/lib
DATADIR   ?= $(PREFIX)/share/libprofsql
DOCDIR    ?= $(PREFIX)/share/doc/libprofsql
install: libprofsql.so libprofsql.a
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(DATADIR)/sql $(DESTDIR)$(DOCDIR)
	install -m 0755 libprofsql.so $(DESTDIR)$(LIBDIR)/libprofsql.so
	install -m 0644 libprofsql.a $(DESTDIR)$(LIBDIR)/libprofsql.a
	install -m 0644 $(SQL_SRC) sql/README.md $(DESTDIR)$(DATADIR)/sql/
	install -m 0644 docs/*.md README.md LICENSE $(DESTDIR)$(DOCDIR)/
uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libprofsql.so $(DESTDIR)$(LIBDIR)/libprofsql.a
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)

# make static: libprofsql.a for programs that link SQLite themselves; they call
# sqlite3_profsql_init(db, 0, 0) (built with -DSQLITE_CORE: no extension API indirection)
STATIC_OBJ := $(patsubst %.c,$(BUILD)/static/%.o,$(EXT_SRC) $(VTAB_SRC))
$(BUILD)/static/%.o: %.c $(EXT_HDR) $(VTAB_HDR)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) -DSQLITE_CORE -I$(BUILD) -c -o $@ $<
libprofsql.a: $(STATIC_OBJ)
	rm -f $@
	ar rcs $@ $(STATIC_OBJ)
static: libprofsql.a

clean:
	rm -rf $(BUILD) libprofsql.so libprofsql.a
