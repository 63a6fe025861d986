-- report_stacks.sql — the report model of sampled stacks (V8 .cpuprofile, pprof, perf script,
-- folded, speedscope): consumers are functions (with their module or file), ranked by self
-- time (the samples they were running in: sql/stacks.sql's stack_functions); a function's total
-- counts each sample once however often it recurses on that sample's stack. Shares say their
-- base: a self share is of the sampled time, a stack share of the sample count. Samples that
-- carry no time are ranked by count. No budget: a sample is a point in time, not a call.
-- Run by profile_report after sql/report_model.sql (its header says how, and what the sections
-- are); ?1 is the source.

CREATE TEMP TABLE profsql_rp_records AS SELECT * FROM profile_records(?1);
.read sql/stacks.sql
CREATE TEMP TABLE profsql_rp_fns AS SELECT * FROM temp.profsql_rp_stack_functions;

-- has_time: the samples carry time (else they are counted); samples: every sample (the sum of
-- self samples); sampled_ms: the sampled time
CREATE TEMP TABLE profsql_rp_stacks_facts AS
SELECT (SELECT count(self_ns) > 0 FROM temp.profsql_rp_records) AS has_time,
       (SELECT sum(self_samples) FROM temp.profsql_rp_fns) AS samples,
       (SELECT sum(self_ns) / 1e6 FROM temp.profsql_rp_fns) AS sampled_ms;

-- per function (name and module): key, name, module, ss self samples, ts total samples, sms self
-- ms, tms total ms, v the ranked value (self ms, else self samples)
CREATE TEMP TABLE profsql_rp_fn AS
SELECT fn || CASE WHEN category IS NULL THEN '' ELSE ' (' || category || ')' END AS key, fn AS name,
       ifnull(category,'') AS module, sum(self_samples) AS ss, sum(total_samples) AS ts, sum(self_ns) / 1e6 AS sms,
       sum(total_ns) / 1e6 AS tms,
       CASE WHEN (SELECT has_time FROM temp.profsql_rp_stacks_facts) THEN sum(self_ns) / 1e6 ELSE sum(self_samples) END AS v
  FROM (SELECT *, CASE WHEN ifnull(name,'')='' THEN '(anonymous)' ELSE name END AS fn FROM temp.profsql_rp_fns)
 GROUP BY name, category;

CREATE TEMP VIEW profsql_rp_quick AS
WITH t(tot) AS (SELECT sum(v) FROM temp.profsql_rp_fn),
top AS (SELECT * FROM temp.profsql_rp_fn ORDER BY v DESC, key LIMIT 1)
SELECT CASE WHEN top.key IS NULL THEN 'No samples were captured.'
  WHEN x.has_time THEN printf('**Most self time:** `%s`%s — %.3f ms of %.3f ms '
    || 'sampled (%.1f %% of the sampled time), %d samples; it is on the stack of %.1f %% of the samples (a share of the sample count, not of time).',
    replace(top.name,'`',''''), CASE WHEN top.module<>'' THEN ' in `' || replace(top.module,'`','''') || '`' ELSE '' END, top.v, t.tot,
    CASE WHEN t.tot<>0 THEN top.v*100.0/t.tot ELSE 0 END, top.ss, CASE WHEN x.samples>0 THEN top.ts*100.0/x.samples ELSE 0 END)
  ELSE printf('**Most self samples:** `%s` — %d of %d '
    || 'samples (%.1f %% of the samples); it is on the stack of %.1f %% of the samples. The samples carry no time.', replace(top.name,'`',''''),
    top.ss, t.tot, CASE WHEN t.tot<>0 THEN top.v*100.0/t.tot ELSE 0 END, CASE WHEN t.tot>0 THEN top.ts*100.0/t.tot ELSE 0 END) END
  FROM t, temp.profsql_rp_stacks_facts x LEFT JOIN top;

-- functions by the ranked value (top 15, then the rest in one row)
.rank profsql_rp_fn

CREATE TEMP VIEW profsql_rp_fn_time AS
SELECT rn AS Rank, name AS Function, module AS Module, ss AS "Self samples", profile_fixed(sms,3) AS "Self ms",
       profile_fixed(share,3) AS "Self % of sampled time", ts AS "Total samples", profile_fixed(tms,3) AS "Total ms",
       profile_fixed(CASE WHEN x.sampled_ms>0 THEN tms*100.0/x.sampled_ms END,3) AS "Total % of sampled time"
  FROM temp.profsql_rp_fn_r, temp.profsql_rp_stacks_facts x WHERE rn <= 15
UNION ALL SELECT '', '(' || n || ' more)', '', '', profile_fixed(v,3), profile_fixed(share,3), '', '', ''
  FROM temp.profsql_rp_fn_rest ORDER BY 1;

CREATE TEMP VIEW profsql_rp_fn_samples AS
SELECT rn AS Rank, name AS Function, module AS Module, ss AS "Self samples", profile_fixed(share,3) AS "Self % of samples",
       ts AS "Total samples", profile_fixed(CASE WHEN x.samples>0 THEN ts*100.0/x.samples END,3) AS "Total % of samples"
  FROM temp.profsql_rp_fn_r, temp.profsql_rp_stacks_facts x WHERE rn <= 15
UNION ALL SELECT '', '(' || n || ' more)', '', v, profile_fixed(share,3), '', '' FROM temp.profsql_rp_fn_rest ORDER BY 1;

CREATE TEMP TABLE profsql_rp_sections AS
SELECT column1 AS kind, column2 AS title, column3 AS source, column4 AS unit, column5 AS text, column6 AS show
  FROM (VALUES
  ('head', NULL, 'profsql_rp_head', NULL, ' (format `' || (SELECT format FROM temp.profsql_rp_model) || '`)', 1),
  ('line', 'Quick answer — кто жрёт время', 'profsql_rp_quick', NULL, NULL, 1),
  ('chart', 'Self time by function', 'profsql_rp_fn_chart', 'ms', NULL, (SELECT has_time FROM temp.profsql_rp_stacks_facts)),
  ('table', 'Functions by self time', 'profsql_rp_fn_time', NULL, NULL, (SELECT has_time FROM temp.profsql_rp_stacks_facts)),
  ('chart', 'Self samples by function', 'profsql_rp_fn_chart', 'samples', NULL, (SELECT NOT has_time FROM temp.profsql_rp_stacks_facts)),
  ('table', 'Functions by self samples', 'profsql_rp_fn_samples', NULL, NULL, (SELECT NOT has_time FROM temp.profsql_rp_stacks_facts)),
  ('text', 'Budget violations', NULL, NULL, 'Not applicable to ' || (SELECT format FROM temp.profsql_rp_model)
   || ': a sample is a point in time, not a call with a duration, so no call can be over a budget.', 1));
