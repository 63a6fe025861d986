# libprofsql — a SQLite loadable extension that turns profiler captures into SQL.
#
#   make            build ./libprofsql.so (-> libprofsql.so.MAJOR -> libprofsql.so.VERSION)
#   make test       C unit tests, SQL transcripts, Python/Node client tests, corpus tests,
#                   sanitizer runs, fuzz seed replay ("N passed, N failed, N skipped")
#   make demo       load the example capture and run a few telling queries
#   make valgrind   the C tests and SQL transcripts under Valgrind's memcheck
#   make bench      generate 1M/5M-event traces and time libprofsql against json_each
#   make fuzz       every libFuzzer target for FUZZ_TIME seconds, then the truncation run
#   make layers     fails when a file of ext/ or vtab/ reaches a higher layer (docs/architecture.md)
#   make static     libprofsql.a (vtab/profsql.h declares sqlite3_profsql_init for it)
#   make install    PREFIX=/usr/local DESTDIR= LIBDIR=$(PREFIX)/lib/<multiarch>: the library,
#                   profsql.h, libprofsql.pc, the sql/ helpers and docs (make uninstall)
#   make deb        build/libprofsql_<version>_<arch>.deb and build/libprofsql-dev_<version>_<arch>.deb
#   make clean
#
# make, make demo and make test first run `sh .ci/deps.sh ensure build|test`: missing Debian
# packages are installed (as root, or with sudo -n), or the one apt-get line is printed.
# Builds run on every core (-j$(NPROC)) without being asked; each source is compiled once per
# flavour (plain, ASan+UBSan, fault injection, TSan, libFuzzer) into build/<flavour>/.

VERSION   := $(shell cat VERSION)
MAJOR     := $(firstword $(subst ., ,$(VERSION)))
SONAME    := libprofsql.so.$(MAJOR)
BUILD     := build
CC        ?= cc
CFLAGS    ?= -O2 -g
WARN      := -Wall -Wextra
DEFS      := -DPROFSQL_VERSION='"$(VERSION)"'
LDLIBS    := -lminizip -ldeflate -lz -lpthread -lm
SQLITE3   ?= sqlite3
PYTHON    ?= /usr/bin/python3
NPROC     := $(shell nproc 2>/dev/null || echo 2)
SUBMAKE   := $(MAKE) --no-print-directory -j$(NPROC)

EXT_SRC   := ext/util/ps_util.c \
             ext/wire/json.c ext/wire/pb.c \
             ext/source/mapguard.c ext/source/spill.c ext/source/htmlsrc.c ext/source/zipsrc.c ext/source/source.c \
             ext/model/capture.c ext/model/stacks.c ext/model/tracks.c ext/model/forest.c ext/model/training.c \
             ext/formats/chrome.c ext/formats/timings.c ext/formats/lms.c ext/formats/xspace.c \
             ext/formats/schemas.c ext/formats/xprof.c ext/formats/datatable.c ext/formats/jobs.c \
             ext/formats/cpuprofile.c ext/formats/speedscope.c ext/formats/pprof.c ext/formats/perfscript.c \
             ext/formats/folded.c ext/formats/ftrace.c ext/formats/json_model.c ext/formats/formats.c \
             ext/writers/writer.c ext/writers/flame.c
VTAB_SRC  := vtab/loader.c vtab/profile_tracks.c vtab/profile_diff.c vtab/profile_sandwich.c vtab/profile_training_rows.c vtab/span_union.c vtab/perfetto.c vtab/profile_events.c vtab/profile_records.c vtab/profile_xplanes.c \
             vtab/profile_metadata.c vtab/profile_jobs.c vtab/report/report.c vtab/report/report_groups.c \
             vtab/profile_open.c vtab/profile_import.c vtab/flamegraph.c vtab/profsql.c
SQL_SRC   := sql/event_tree.sql sql/record_tree.sql sql/xprof_stats.sql sql/stacks.sql sql/timings.sql sql/perfetto.sql \
             sql/training.sql
# the report's models (profile_report runs them; sql/report_model.sql says how)
REPORT_SQL := sql/report_model.sql sql/report_jobs.sql sql/report_slices.sql sql/report_timings.sql \
              sql/report_stacks.sql sql/report_xspace.sql sql/report_records.sql sql/report_training.sql sql/report_diff.sql
EXT_HDR   := $(wildcard ext/*/*.h)
VTAB_HDR  := $(wildcard vtab/*.h vtab/*/*.h) $(BUILD)/sql_text.h

.PHONY: all lib test test-build demo bench clean fuzz fuzz-build valgrind install uninstall static deb layers \
        deps-build deps-test deps-bench

# ---- the library: one recursive make so that the objects build on every core
all: deps-build
	@$(SUBMAKE) lib
lib: libprofsql.so

deps-build:
	@sh .ci/deps.sh ensure build
deps-test:
	@sh .ci/deps.sh ensure test
deps-bench:
	@sh .ci/deps.sh ensure bench

# the sql/ helpers compiled in as C strings (profile_open runs exactly these files)
$(BUILD)/sql_text.h: $(SQL_SRC) $(REPORT_SQL) sql/embed.sh
	@mkdir -p $(BUILD)
	sh sql/embed.sh $(SQL_SRC) $(REPORT_SQL) > $@

# ---- objects, one directory per flavour. ext/ is compiled with -DPS_EXT_ALLOC: its malloc & co.
# are ps_malloc & co. (ext/util/ps_util.h: the host's allocator and the load's memory budget).
# ext/ never includes SQLite, so its objects serve the
# loadable library and the programs alike (PIC); vtab/ is compiled twice: as the loadable
# extension (sqlite3ext.h indirection) and with -DSQLITE_CORE for programs that link SQLite.
SAN       := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
TSAN      := -O1 -g -fsanitize=thread
FUZZ_CC   := -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ      := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
# flavour -> compiler and flags
CC_pic    := $(CC)
FL_pic    := $(CFLAGS) -fPIC
CC_core   := $(CC)
FL_core   := $(CFLAGS) -fPIC -DSQLITE_CORE
CC_san    := clang
FL_san    := $(SAN) -DSQLITE_CORE
CC_fault  := clang
FL_fault  := $(SAN) -DSQLITE_CORE -DPS_FAULT_INJECT
CC_tsan   := clang
FL_tsan   := $(TSAN) -DSQLITE_CORE
CC_fuzz   := clang
FL_fuzz   := $(FUZZ_CC) -DSQLITE_CORE
objs       = $(patsubst %.c,$(BUILD)/$(1)/%.o,$(2))
EXT_O      = $(call objs,$(1),$(EXT_SRC))
VTAB_O     = $(call objs,$(1),$(VTAB_SRC))

define FLAVOUR
$(BUILD)/$(1)/ext/%.o: ext/%.c $(EXT_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC_$(1)) $$(FL_$(1)) $(WARN) $(DEFS) -DPS_EXT_ALLOC -c -o $$@ $$<
$(BUILD)/$(1)/vtab/%.o: vtab/%.c $(EXT_HDR) $(VTAB_HDR)
	@mkdir -p $$(dir $$@)
	$$(CC_$(1)) $$(FL_$(1)) $(WARN) $(DEFS) -I$(BUILD) -c -o $$@ $$<
endef
$(foreach f,pic core san fault tsan fuzz,$(eval $(call FLAVOUR,$(f))))

# ---- the loadable library, versioned: libprofsql.so (what `.load ./libprofsql` opens) ->
# libprofsql.so.MAJOR (the soname) -> libprofsql.so.VERSION
libprofsql.so.$(VERSION): $(call EXT_O,pic) $(call VTAB_O,pic)
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) -o $@ $^ $(LDLIBS)
$(SONAME): libprofsql.so.$(VERSION)
	ln -sf $< $@
libprofsql.so: $(SONAME)
	ln -sf $< $@

libprofsql.a: $(call EXT_O,pic) $(call VTAB_O,core)
	rm -f $@
	ar rcs $@ $^
static: deps-build
	@$(SUBMAKE) libprofsql.a

# ---- C tests: the parsers alone (no SQLite), and the extension driven through the SQLite C API
TEST_BINS := $(BUILD)/test_parser $(BUILD)/test_sql $(BUILD)/test_parser.asan $(BUILD)/test_sql.asan \
             $(BUILD)/test_fault $(BUILD)/test_sql_fault $(BUILD)/test_threads
$(BUILD)/test_parser: tests/c/test_parser.c tests/c/testlib.h tests/c/flood.h $(call EXT_O,pic)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) -o $@ $< $(call EXT_O,pic) $(LDLIBS)
$(BUILD)/test_sql: tests/c/test_sql.c tests/c/testlib.h $(call EXT_O,pic) $(call VTAB_O,core)
	$(CC) $(CFLAGS) $(WARN) $(DEFS) -DSQLITE_CORE -Ivtab -I$(BUILD) -o $@ $< $(call EXT_O,pic) $(call VTAB_O,core) -lsqlite3 $(LDLIBS)
# the same tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang), fault injection
# (every allocation made to fail in turn) and ThreadSanitizer
$(BUILD)/test_parser.asan: tests/c/test_parser.c tests/c/testlib.h tests/c/flood.h $(call EXT_O,san)
	clang $(SAN) $(WARN) $(DEFS) -o $@ $< $(call EXT_O,san) $(LDLIBS)
$(BUILD)/test_sql.asan: tests/c/test_sql.c tests/c/testlib.h $(call EXT_O,san) $(call VTAB_O,san)
	clang $(SAN) $(WARN) $(DEFS) -DSQLITE_CORE -Ivtab -I$(BUILD) -o $@ $< $(call EXT_O,san) $(call VTAB_O,san) -lsqlite3 $(LDLIBS)
$(BUILD)/test_fault: tests/c/test_fault.c tests/c/testlib.h $(call EXT_O,fault)
	clang $(SAN) $(WARN) $(DEFS) -DPS_FAULT_INJECT -o $@ $< $(call EXT_O,fault) $(LDLIBS)
$(BUILD)/test_sql_fault: tests/c/test_sql_fault.c tests/c/testlib.h $(call EXT_O,fault) $(call VTAB_O,fault)
	clang $(SAN) $(WARN) $(DEFS) -DPS_FAULT_INJECT -DSQLITE_CORE -Ivtab -I$(BUILD) -o $@ $< $(call EXT_O,fault) $(call VTAB_O,fault) -lsqlite3 $(LDLIBS)
$(BUILD)/test_threads: tests/c/test_threads.c tests/c/testlib.h $(call EXT_O,tsan) $(call VTAB_O,tsan)
	clang $(TSAN) $(WARN) $(DEFS) -DSQLITE_CORE -Ivtab -I$(BUILD) -o $@ $< $(call EXT_O,tsan) $(call VTAB_O,tsan) -lsqlite3 $(LDLIBS)

$(BUILD)/gen_trace $(BUILD)/gen_text $(BUILD)/gen_xspace $(BUILD)/gen_stacks $(BUILD)/gen_ftrace: $(BUILD)/%: tests/bench/%.c
	@mkdir -p $(BUILD)
	$(CC) -O2 $(WARN) -o $@ $<
$(BUILD)/gen_flood: tests/bench/gen_flood.c tests/c/flood.h
	@mkdir -p $(BUILD)
	$(CC) -O2 $(WARN) -o $@ $<
$(BUILD)/load_time: tests/bench/load_time.c $(call EXT_O,pic)
	$(CC) -O2 $(WARN) $(DEFS) -o $@ $< $(call EXT_O,pic) $(LDLIBS)
$(BUILD)/stmt_time: tests/bench/stmt_time.c
	@mkdir -p $(BUILD)
	$(CC) -O2 $(WARN) -o $@ $< -lsqlite3
# the simdjson On-Demand baseline of make bench (C++, libsimdjson-dev; not part of the extension)
$(BUILD)/simdjson_agg: tests/bench/simdjson_agg.cpp
	@mkdir -p $(BUILD)
	$(CXX) -O2 -std=c++17 -Wall -Wextra -o $@ $< -lsimdjson

# ---- libFuzzer targets (tests/fuzz/): one per parser and input path, and three through SQL
FUZZ_TIME ?= 60
FUZZ_FORMATS := chrome timings lms xspace newengine xprof_datatable cpuprofile speedscope pprof perf_script folded ftrace
$(addprefix $(BUILD)/fuzz_,$(FUZZ_FORMATS)): $(BUILD)/fuzz_%: tests/fuzz/fuzz_format.c tests/fuzz/fuzz_common.h $(call EXT_O,fuzz)
	clang $(FUZZ) $(DEFS) -DFUZZ_FORMAT=ps_format_$* -o $@ $< $(call EXT_O,fuzz) $(LDLIBS)
$(BUILD)/fuzz_gzip: tests/fuzz/fuzz_gzip.c tests/fuzz/fuzz_common.h $(call EXT_O,fuzz)
	clang $(FUZZ) $(DEFS) -o $@ $< $(call EXT_O,fuzz) $(LDLIBS)
$(BUILD)/fuzz_xprof: tests/fuzz/fuzz_xprof.c tests/fuzz/fuzz_common.h $(call EXT_O,fuzz)
	clang $(FUZZ) $(DEFS) -o $@ $< $(call EXT_O,fuzz) $(LDLIBS)
$(BUILD)/fuzz_zip: tests/fuzz/fuzz_zip.c $(call EXT_O,fuzz)
	clang $(FUZZ) $(DEFS) -o $@ $< $(call EXT_O,fuzz) $(LDLIBS)
$(BUILD)/fuzz_sql $(BUILD)/fuzz_report $(BUILD)/fuzz_tree: $(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c $(call EXT_O,fuzz) $(call VTAB_O,fuzz)
	clang $(FUZZ) $(DEFS) -DSQLITE_CORE -I$(BUILD) -o $@ $< $(call EXT_O,fuzz) $(call VTAB_O,fuzz) -lsqlite3 $(LDLIBS)
FUZZERS := $(addprefix $(BUILD)/fuzz_,$(FUZZ_FORMATS)) $(BUILD)/fuzz_xprof $(BUILD)/fuzz_gzip $(BUILD)/fuzz_zip $(BUILD)/fuzz_sql \
           $(BUILD)/fuzz_report $(BUILD)/fuzz_tree

# make fuzz: every target for FUZZ_TIME seconds, seeded from the test inputs, then the truncation
# run (tests/fuzz/truncate.py: prefixes of every seed capture through its format's target); fails
# on any crash, leak or timeout (libFuzzer exits non-zero and leaves crash-* files in build/fuzz/).
fuzz: deps-test
	@$(SUBMAKE) fuzz-build
	@PYTHON=$(PYTHON) sh tests/fuzz/run.sh $(FUZZ_TIME)
fuzz-build: $(FUZZERS)

test: deps-test
	@$(SUBMAKE) test-build
	@SQLITE3=$(SQLITE3) PYTHON=$(PYTHON) sh tests/run.sh
test-build: libprofsql.so libprofsql.a $(FUZZERS) $(TEST_BINS)

# make layers: every dependency of ext/ and vtab/ points down (util < wire < source < model <
# formats < writers < vtab): the #include lines and the built objects' symbols (also run by make test)
layers: deps-build
	@$(SUBMAKE) lib
	@$(PYTHON) tests/py/test_layers.py

# make valgrind: C tests and SQL transcripts under memcheck (needs valgrind installed)
valgrind: deps-build
	@$(SUBMAKE) libprofsql.so $(BUILD)/test_parser $(BUILD)/test_sql
	@sh tests/valgrind.sh

demo: deps-build
	@$(SUBMAKE) lib
	@sh examples/demo.sh

bench: deps-bench
	@$(SUBMAKE) libprofsql.so $(BUILD)/gen_trace $(BUILD)/gen_text $(BUILD)/gen_xspace $(BUILD)/gen_stacks $(BUILD)/gen_ftrace $(BUILD)/gen_flood $(BUILD)/load_time $(BUILD)/stmt_time $(BUILD)/simdjson_agg
	@SQLITE3=$(SQLITE3) PYTHON=$(PYTHON) sh tests/bench/bench.sh

# ---- make install / uninstall under $(DESTDIR)$(PREFIX); LIBDIR is Debian's multiarch directory
# where the compiler knows one (/usr/lib/x86_64-linux-gnu), else $(PREFIX)/lib
PREFIX     ?= /usr/local
MULTIARCH  := $(shell $(CC) -print-multiarch 2>/dev/null)
LIBDIR     ?= $(PREFIX)/lib$(if $(MULTIARCH),/$(MULTIARCH))
INCLUDEDIR ?= $(PREFIX)/include
PCDIR      ?= $(LIBDIR)/pkgconfig
DATADIR    ?= $(PREFIX)/share/libprofsql
DOCDIR     ?= $(PREFIX)/share/doc/libprofsql

# libprofsql.pc for this PREFIX/LIBDIR (pkg-config --cflags --libs libprofsql). Programs link the
# archive (-l:libprofsql.a): the shared library is the loadable extension, which reaches SQLite
# through the pointer SQLite passes when it loads it. An archive brings none of its own
# dependencies, so they are all in Requires and Libs, not the .private fields (which only
# --static reads): plain --libs links, with --static or without.
PC_LINES = 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' 'Name: libprofsql' \
  'Description: SQLite extension that turns profiler captures into SQL tables' 'Version: $(VERSION)' \
  'Requires: sqlite3 zlib minizip libdeflate' 'Libs: -L$${libdir} -l:libprofsql.a -lpthread -ldl -lm' \
  'Cflags: -I$${includedir}'

install: all
	@$(SUBMAKE) libprofsql.a
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PCDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(DATADIR)/sql $(DESTDIR)$(DOCDIR)
	install -m 0755 libprofsql.so.$(VERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libprofsql.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libprofsql.so
	install -m 0644 libprofsql.a $(DESTDIR)$(LIBDIR)/libprofsql.a
	install -m 0644 vtab/profsql.h $(DESTDIR)$(INCLUDEDIR)/profsql.h
	printf '%s\n' $(PC_LINES) > $(DESTDIR)$(PCDIR)/libprofsql.pc
	install -m 0644 $(SQL_SRC) $(REPORT_SQL) sql/README.md $(DESTDIR)$(DATADIR)/sql/
	install -m 0644 docs/*.md README.md LICENSE $(DESTDIR)$(DOCDIR)/
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" -eq 0 ] && command -v ldconfig >/dev/null; then ldconfig; fi
uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libprofsql.so $(DESTDIR)$(LIBDIR)/$(SONAME) $(DESTDIR)$(LIBDIR)/libprofsql.so.$(VERSION) \
	      $(DESTDIR)$(LIBDIR)/libprofsql.a $(DESTDIR)$(INCLUDEDIR)/profsql.h $(DESTDIR)$(PCDIR)/libprofsql.pc
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR)

# make deb: Debian packages of the install above (PREFIX=/usr, LIBDIR=/usr/lib/<multiarch>), by
# dpkg-deb: libprofsql (the stripped loadable library, the sql/ helpers, the docs; Depends: the
# packages of the libraries libprofsql.so links, dpkg -S) and libprofsql-dev (profsql.h,
# libprofsql.a, libprofsql.pc). .ci/deb.sh prints the two paths.
deb: all
	@$(SUBMAKE) libprofsql.a
	@sh .ci/deb.sh "$(VERSION)" "$(BUILD)"

clean:
	rm -rf $(BUILD) libprofsql.so libprofsql.so.* libprofsql.a
