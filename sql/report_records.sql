-- report_records.sql — the report model of a capture of records that are neither slices nor
-- samples (xprof tool result files: overview page, tf_stats, kernel_stats, input pipeline,
-- memory profile, ...): the records as they are, by time. They are statistics that may overlap,
-- not a partition of the time, so no share is given.
-- Run by profile_report after sql/report_model.sql (its header says how, and what the sections
-- are). It reads profsql_rj (the jobs: a row per record).

CREATE TEMP VIEW profsql_rp_records_table AS
SELECT row_number() OVER (ORDER BY e_ DESC, k) AS Rank, ifnull(name,'') AS Name, ifnull(source,'') AS Source,
       profile_fixed(e_,3) AS "Time ms", ifnull(profile_fixed(self_ms,3),'') AS "Self ms"
  FROM (SELECT k AS top_k FROM profsql_rj WHERE done_ ORDER BY e_ DESC, k LIMIT 16) JOIN profsql_rj ON k = top_k
 ORDER BY e_ DESC, k;

CREATE TEMP TABLE profsql_rp_sections AS
SELECT column1 AS kind, column2 AS title, column3 AS source, column4 AS unit, column5 AS text, column6 AS show
  FROM (VALUES
  ('head', NULL, 'profsql_rp_head', NULL, ' (format `' || (SELECT format FROM temp.profsql_rp_model) || '`)', 1),
  ('table', 'Records by time', 'profsql_rp_records_table', NULL, NULL, 1),
  ('text', NULL, NULL, NULL, 'Shares are not given: the records of a `' || (SELECT format FROM temp.profsql_rp_model)
   || '` file are statistics that may overlap, not a partition of the time.', 1),
  ('line', 'Budget violations', 'profsql_rp_budget_line', NULL, NULL, 1),
  ('rows', NULL, 'profsql_rp_budget_rows', NULL, NULL, 1));
