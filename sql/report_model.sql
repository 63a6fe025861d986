-- report_model.sql — the report model of profile_report (docs/profile_report.md): for the
-- capture given, which consumers the report ranks, what time counts, what the budget is and
-- what idle time is, and which model file (sql/report_<model>.sql) computes its sections. The
-- renderer (vtab/report/report.c) writes the Markdown from the model's rows alone: it has no
-- branch per format.
--
-- Run by profile_report, statement by statement, with ?1 the source and ?11 the capture's format
-- ('mixed' for several, NULL when it does not load). It makes:
--   profsql_rp_capture(format, has_records, derived, slow_default, has_kernels)  what the capture is
--   profsql_rp_models(...)                       every model, one row each (the table below)
--   profsql_rp_model(...)                        the chosen model: one row of profsql_rp_models
--                                                with the capture's format
-- and the views every model's sections may use (the header, the budget violations). Those read
-- profsql_rj (the jobs, one row per profile_jobs row, made by report.c after this file) and
-- profsql_rp_counts(n_done, n_active, n_budget) (the completed jobs, the active ones and the
-- completed ones with a budget, counted by report.c's scan of the jobs).
--
-- A model file is SQL statements and two directives, each on a line of its own:
--   .read sql/<helper>.sql   the helper's views (stacks, xprof_stats, timings) over the report's
--                            tables, every name of them prefixed profsql_rp_ (records,
--                            events, metadata: tables the model makes first)
--   .rank <table>            the grouping <table> (columns key, v, any others) ranked: views
--                            <table>_r (its rows with rn, the rank by v descending then key, and
--                            share, % of the sum of v), <table>_rest (n, v, share of the rows past
--                            the 15th; none when there are none) and <table>_chart (the first 15
--                            and then '(N more)': the rows of a chart), so that shares add to 100 %
-- A model file ends by making profsql_rp_sections(kind, title, source, unit, text, show), the
-- report's sections in order (rowid order), a section drawn only where show is true. Its kinds:
--   head   '# Profiler report', the capture line (its text after the capture's name), then a
--          bullet per row of the view `source`
--   line   '## title' and one paragraph: the single value of the view `source` (no heading when
--          the title is NULL; nothing when the view gives no row)
--   chart  '## title' and text bars of the view's rows (rank, label, value, share %), `unit' the
--          value's unit ('ms': 3 decimals; else a whole count and the unit)
--   table  '## title' and a Markdown table of the view's rows, `text` instead when it has none
--          ('_(none)_' when text is NULL)
--   rows   a Markdown table of the view's rows with no heading, nothing when it has none
--   bars   a ```text block of bars, a row each: (label, value, max, after): the label, the bar of
--          value/max, then the text `after`
--   text   '## title' (when not NULL) and the paragraph `text`

-- derived: the jobs are derived from the capture (profile_jobs' StarProfiler columns are NULL or
-- 0 in every row), not a StarProfiler report's own (one, or a directory that may hold one);
-- slow_default: the StarProfiler's slow threshold (slow_job_warn_ms, 16.67 ms) applies without
-- the option (a StarProfiler report)
CREATE TEMP TABLE profsql_rp_capture AS
SELECT coalesce(nullif(?11, ''), 'mixed') AS format,
       EXISTS (SELECT 1 FROM profile_records(?1)) AS has_records,
       coalesce(nullif(?11, ''), 'mixed') NOT IN ('newengine', 'mixed') AS derived,
       ?11 IS 'newengine' AS slow_default,
       -- (only a Chrome trace, or a directory of them, can hold Kineto's device rows: no scan of others)
       CASE WHEN coalesce(nullif(?11, ''), 'mixed') IN ('chrome', 'mixed')
            THEN EXISTS (SELECT 1 FROM profile_events(?1) WHERE cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events')) ELSE 0 END AS has_kernels;

-- model        the model file: sql/report_<model>.sql
-- formats      the formats it is for (space-separated; '*' any format, as the last resort)
-- needs_records 1: only a capture with records (profile_records) gets it
-- needs_kernels 1: only a capture with device kernels (a PyTorch profiler trace's kernel,
--              gpu_memcpy, gpu_memset rows) gets it
-- group_jobs   1: report.c's scan of the jobs also groups them by thread and by name
--              (profsql_rp_gth / _gnm / _gma: the slices' self time)
-- job          what a job (a row of profiler_jobs_latest.csv) is
-- consumer     what the report ranks as the consumer of time
-- measure      what time counts, and the base of every share
-- idle         what idle time is, where the format has it
-- what         the jobs' noun in the budget section
CREATE TEMP TABLE profsql_rp_models(model, formats, needs_records, needs_kernels, group_jobs,
                                    job, consumer, measure, idle, what);
INSERT INTO temp.profsql_rp_models VALUES
('jobs', 'newengine', 0, 0, 0,
 NULL,
 'the owner::method of a job (its offender key)',
 'the jobs'' elapsed time; shares are of the completed jobs'' total elapsed time',
 NULL, 'jobs'),
('timings', 'timings', 0, 0, 0,
 'one timer record (its `Time` over the whole sample, its `Count` runs); the report itself has no budget: the server''s is the 50 ms tick, and a timer''s `Violations` count its runs over it',
 'a timer (its records of one name in one group merged, as the timings viewer lists them), and its group',
 'a timer''s self time (its time less the timers it calls), where the report has a record tree; shares are of all self time. The server''s figures (TPS, load) are of the sample time',
 'not recorded: a timings report sums the time of timers, and the time no timer ran is not in it',
 'timer records'),
('stacks', 'cpuprofile pprof perf_script folded speedscope', 1, 0, 0,
 'one call-tree node (`elapsed_ms` its inclusive sampled time, `self_ms` the time of the samples whose leaf it is); below, functions are ranked by self time (the samples they were running in), and a function''s total counts each sample once however often it recurses on that sample''s stack',
 'a function (with its module or file)',
 'sampled time (each sample''s weight, else the samples counted); a self share is of the sampled time, a stack share of the sample count',
 'the samples of idle frames, where the profiler records them, are samples like any other',
 'nodes'),
('xspace', 'xspace', 0, 0, 0,
 'one XEvent (a complete slice of a line); ops are read as xprof reads them (`sql/xprof_stats.sql`), device planes (`/device:...`) and host planes apart, ranked by self time (an op''s time minus the ops nested in it on its line)',
 'an op (its name and type), on device planes and on host planes apart',
 'op self time on XLines; device and host time are separate figures, each share of its own side''s total',
 'a device''s time without ops is not counted as anyone''s',
 'ops'),
('training', 'chrome mixed', 0, 1, 1,
 'one complete slice on a thread''s own track, a GPU stream''s kernels included; the sections below analyse the device kernels first (`sql/training.sql`), then the CPU threads'' slices without them',
 'per rank: GPU time (idle, computation, communication and memory kernels), kernels by class, steps; then threads and slice names',
 'GPU time as HTA counts it: unions of kernel intervals over the first kernel''s start to the last one''s end; kernel shares of summed kernel durations; the CPU slices'' self time on thread tracks apart',
 'GPU idle: no kernel on any stream, split per stream into host wait (the next kernel not launched yet) and kernel wait',
 'slices'),
('records', '*', 1, 0, 0,
 'one record of the file (its time as `elapsed_ms`)',
 'a record of the file',
 'each record''s own time; the records are statistics that may overlap, so no share is given',
 NULL, 'records'),
('slices', '*', 0, 0, 1,
 'one complete slice on a thread''s own track; its self time is its duration minus the durations of the slices nested in it, so self times add up without counting any time twice and the shares below add up to 100 %',
 'a thread (its process and thread names; `pid N` / `tid N` where the capture names none), and a slice name',
 'slice self time on thread tracks; async spans (their own tracks) and CPU time from scheduling are separate figures, never added into it',
 'the idle task''s scheduling intervals (ftrace `<idle>` / `swapper`), reported per CPU, never as a consumer',
 'slices');

-- the chosen model: a StarProfiler report gets 'jobs'; else the first model whose formats name
-- the capture's (and whose records, when it needs them, the capture has); else 'records' for a
-- capture of records, 'slices' for the rest
CREATE TEMP TABLE profsql_rp_model AS
SELECT m.*, c.format, c.derived, c.slow_default FROM temp.profsql_rp_models m, temp.profsql_rp_capture c
 WHERE (instr(' ' || m.formats || ' ', ' ' || c.format || ' ') > 0 OR m.formats = '*')
   AND (NOT m.needs_records OR c.has_records) AND (NOT m.needs_kernels OR c.has_kernels)
 ORDER BY m.formats = '*', m.rowid LIMIT 1;

-- the header's bullets of every model but the StarProfiler's own
CREATE TEMP VIEW profsql_rp_head AS
SELECT 'written by libprofsql ' || profsql_version() || ' (`profile_report`): the StarProfiler''s file set, '
       || 'with conclusions drawn for this format' AS bullet
UNION ALL SELECT 'a job (a row of `profiler_jobs_latest.csv`) is ' || job FROM temp.profsql_rp_model
UNION ALL SELECT 'ranked: ' || consumer || '; time counted: ' || measure
       || ifnull('; idle: ' || idle, '') FROM temp.profsql_rp_model
UNION ALL SELECT CASE WHEN n_budget = 0 THEN
         'budget: none — this format has no budget, so nothing here is "over budget" (pass one: '
         || '`{"budget_ms": 16.67}`, or per category `{"budgets_ms": {"<category>": ms, "*": ms}}`)'
       ELSE printf('budget: %d of %d jobs have one (from `budget_ms` / `budgets_ms` or the capture); '
         || '`load = elapsed_ms / budget_ms`, over budget at `load >= 1`', n_budget, n_done) END
  FROM temp.profsql_rp_counts;

-- "Budget violations" of the slices, ops and records: the jobs over a budget, or why none is
CREATE TEMP VIEW profsql_rp_budget_line AS
SELECT CASE WHEN c.n_budget = 0 THEN
         printf('Not applicable to %s: no budget was given, and %s has none of its own.', m.format, m.format)
       ELSE printf('**%d of %d %s** with a budget are over it (`load >= 1`)%s', o.n, c.n_budget, m.what,
         CASE WHEN o.n > 16 THEN '; the 16 with the highest load:' WHEN o.n > 0 THEN ':' ELSE '.' END) END
  FROM temp.profsql_rp_counts c, temp.profsql_rp_model m,
       (SELECT count(*) AS n FROM profsql_rj WHERE done_ AND l_ >= 1.0) o;

CREATE TEMP VIEW profsql_rp_budget_rows AS
SELECT row_number() OVER (ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k) AS Rank, ifnull(id,'') AS Id,
       ifnull(name,'') AS Name, ifnull(source,'') AS Source, ifnull(lane,'') AS Lane,
       profile_fixed(e_,3) AS "Elapsed ms", profile_fixed(budget2_,3) AS "Budget ms",
       profile_fixed(l_,2) || 'x' AS Load
  FROM (SELECT k AS top_k FROM temp.profsql_jl WHERE l = 1 AND pos < 16) JOIN profsql_rj ON k = top_k
 WHERE l_ >= 1.0 AND (SELECT n_budget FROM temp.profsql_rp_counts) > 0
 ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k;
