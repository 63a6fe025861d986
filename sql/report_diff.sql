-- report_diff.sql — "What changed": the section every report model ends with when profile_report
-- is given a baseline ({"baseline": source}): the names whose self time changed most, and the
-- names added and removed, from profile_diff's rows of the baseline against the capture
-- (temp.profsql_rp_diff, made by report.c; docs/profile_diff.md says what each column counts).
-- Run by profile_report after the model's file (sql/report_model.sql says how); without a
-- baseline it adds no section.

CREATE TEMP TABLE profsql_rp_diff_facts AS
SELECT EXISTS (SELECT 1 FROM temp.sqlite_master WHERE name = 'profsql_rp_diff') AS has_diff,
       json_extract(?2, '$.baseline') AS baseline;

CREATE TEMP VIEW profsql_rp_diff_line AS
SELECT printf('Against the baseline `%s`, by name (`profiler_diff_latest.csv` has every row): %d names in both, '
              || '%d added, %d removed; self time %.3f ms → %.3f ms (%+.3f ms). HTA''s categories by count: '
              || '%d increased, %d decreased, %d unchanged.',
              replace((SELECT baseline FROM temp.profsql_rp_diff_facts), '`', ''''),
              count(*) FILTER (WHERE change NOT IN ('added', 'deleted')), count(*) FILTER (WHERE change = 'added'),
              count(*) FILTER (WHERE change = 'deleted'), ifnull(sum(base_self_ns), 0) / 1e6, ifnull(sum(test_self_ns), 0) / 1e6,
              (ifnull(sum(test_self_ns), 0) - ifnull(sum(base_self_ns), 0)) / 1e6,
              count(*) FILTER (WHERE change = 'increased'), count(*) FILTER (WHERE change = 'decreased'),
              count(*) FILTER (WHERE change = 'unchanged'))
  FROM temp.profsql_rp_diff;

CREATE TEMP VIEW profsql_rp_diff_top AS
SELECT row_number() OVER (ORDER BY abs(test_self_ns - base_self_ns) DESC, key) AS Rank, key AS Name,
       base_count AS "Base count", test_count AS "Count", profile_fixed(base_self_ns / 1e6, 3) AS "Base self ms",
       profile_fixed(test_self_ns / 1e6, 3) AS "Self ms", printf('%+.3f', (test_self_ns - base_self_ns) / 1e6) AS "Δ self ms",
       change AS "Change (by count)"
  FROM temp.profsql_rp_diff WHERE test_self_ns <> base_self_ns
 ORDER BY abs(test_self_ns - base_self_ns) DESC, key LIMIT 16;

CREATE TEMP VIEW profsql_rp_diff_added AS
SELECT key AS Name, test_count AS "Count", profile_fixed(test_ns / 1e6, 3) AS "Total ms", profile_fixed(test_self_ns / 1e6, 3) AS "Self ms"
  FROM temp.profsql_rp_diff WHERE change = 'added' ORDER BY test_ns DESC, key LIMIT 16;

CREATE TEMP VIEW profsql_rp_diff_removed AS
SELECT key AS Name, base_count AS "Base count", profile_fixed(base_ns / 1e6, 3) AS "Base total ms",
       profile_fixed(base_self_ns / 1e6, 3) AS "Base self ms"
  FROM temp.profsql_rp_diff WHERE change = 'deleted' ORDER BY base_ns DESC, key LIMIT 16;

INSERT INTO temp.profsql_rp_sections(kind, title, source, unit, text, show)
SELECT column1, column2, column3, NULL, column4, (SELECT has_diff FROM temp.profsql_rp_diff_facts)
  FROM (VALUES
  ('line', 'What changed — against the baseline', 'profsql_rp_diff_line', NULL),
  ('table', 'What changed — largest changes of self time', 'profsql_rp_diff_top', 'None: no name''s self time changed.'),
  ('table', 'What changed — names added', 'profsql_rp_diff_added', 'None: every name of the capture is in the baseline.'),
  ('table', 'What changed — names removed', 'profsql_rp_diff_removed', 'None: every name of the baseline is in the capture.'));
