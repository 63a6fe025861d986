-- report_xspace.sql — the report model of an XSpace (TensorFlow/JAX profiler): consumers are ops
-- (their name and type) as xprof reads them (sql/xprof_stats.sql), on device planes
-- ('/device:...') and host planes apart, ranked by self time (an op's time minus the ops nested
-- in it on its line); device time and host time are separate figures, each share of its own
-- side's total; kernels (with launch parameters) by total time.
-- Run by profile_report after sql/report_model.sql (its header says how, and what the sections
-- are); ?1 is the source.

CREATE TEMP TABLE profsql_rp_events AS SELECT * FROM profile_events(?1);
.read sql/xprof_stats.sql
-- the op events, which both statistics views read, computed once: the view becomes one over
-- their table (a 3M-event capture: 40 s each time otherwise)
CREATE TEMP TABLE profsql_rp_opev AS SELECT * FROM temp.profsql_rp_xprof_op_events;
CREATE TEMP VIEW profsql_rp_xprof_op_events AS SELECT * FROM temp.profsql_rp_opev;
-- each statistics view is read several times below: computed once into a table
CREATE TEMP TABLE profsql_rp_ops AS SELECT * FROM temp.profsql_rp_xprof_op_stats;
CREATE TEMP TABLE profsql_rp_kernels AS SELECT * FROM temp.profsql_rp_xprof_kernel_stats;

-- per op (name and type), device and host apart: key, op_name, op_type, n occurrences, planes,
-- v self ms, tot total ms
CREATE TEMP TABLE profsql_rp_op AS
SELECT device, op_name || CASE WHEN op_type IS NULL OR op_type=op_name THEN '' ELSE ' (' || op_type || ')' END AS key,
       op_name, ifnull(op_type,'') AS op_type, sum(occurrences) AS n, count(DISTINCT pid) AS planes,
       sum(self_ns) / 1e6 AS v, sum(total_ns) / 1e6 AS tot
  FROM temp.profsql_rp_ops GROUP BY device, op_name, op_type;

CREATE TEMP TABLE profsql_rp_xspace_facts AS
SELECT (SELECT sum(self_ns) / 1e6 FROM temp.profsql_rp_ops WHERE device) AS dev_ms,
       (SELECT count(DISTINCT pid) FROM temp.profsql_rp_ops WHERE device) AS dev_planes,
       (SELECT sum(self_ns) / 1e6 FROM temp.profsql_rp_ops WHERE NOT device) AS host_ms,
       (SELECT count(*) FROM temp.profsql_rp_ops WHERE NOT device) AS host_ops,
       (SELECT count(*) FROM temp.profsql_rp_kernels) AS kernels;

CREATE TEMP VIEW profsql_rp_quick AS
WITH d1 AS (SELECT * FROM temp.profsql_rp_op WHERE device ORDER BY v DESC, key LIMIT 1),
h1 AS (SELECT * FROM temp.profsql_rp_op WHERE NOT device ORDER BY v DESC, key LIMIT 1)
SELECT CASE WHEN d1.key IS NULL THEN 'No device plane has ops (a host-only capture).' ELSE
  printf('**Device:** `%s` — %.3f ms of the %.3f ms of op self time on %d device plane%s (%.1f %%), %d launches.',
  replace(d1.key,'`',''''), d1.v, x.dev_ms, x.dev_planes, CASE WHEN x.dev_planes=1 THEN '' ELSE 's' END,
  CASE WHEN x.dev_ms<>0 THEN d1.v*100.0/x.dev_ms ELSE 0 END, d1.n) END || ' ' ||
  CASE WHEN h1.key IS NULL THEN 'No host events.' ELSE printf('**Host:** `%s` — %.3f ms of %.3f ms of host self time (%.1f %%).',
  replace(h1.key,'`',''''), h1.v, x.host_ms, CASE WHEN x.host_ms<>0 THEN h1.v*100.0/x.host_ms ELSE 0 END) END
  FROM temp.profsql_rp_xspace_facts x LEFT JOIN d1 LEFT JOIN h1;

-- device planes, device ops and host ops by self time (ranked: top 15, then the rest in one
-- row; each share of its own side's total)
CREATE TEMP VIEW profsql_rp_planes AS
SELECT plane AS key, sum(self_ns) / 1e6 AS v FROM temp.profsql_rp_ops WHERE device GROUP BY file, pid;
.rank profsql_rp_planes
CREATE TEMP VIEW profsql_rp_dev AS SELECT * FROM temp.profsql_rp_op WHERE device;
.rank profsql_rp_dev
CREATE TEMP VIEW profsql_rp_host AS SELECT * FROM temp.profsql_rp_op WHERE NOT device;
.rank profsql_rp_host

CREATE TEMP VIEW profsql_rp_dev_table AS
SELECT rn AS Rank, op_name AS Op, op_type AS Type, n AS Occurrences, planes AS Planes, profile_fixed(v,3) AS "Self ms",
       profile_fixed(share,3) AS "Self %", profile_fixed(tot,3) AS "Total ms"
  FROM temp.profsql_rp_dev_r WHERE rn <= 15
UNION ALL SELECT '', '(' || n || ' more)', '', '', '', profile_fixed(v,3), profile_fixed(share,3), ''
  FROM temp.profsql_rp_dev_rest ORDER BY 1;

CREATE TEMP VIEW profsql_rp_kernels_table AS
SELECT rank AS Rank, kernel_name AS Kernel, ifnull(op_name,'') AS Op, occurrences AS Launches,
       profile_fixed(total_ns / 1e6, 3) AS "Total ms", profile_fixed(avg_ns / 1e3, 3) AS "Avg us",
       ifnull(profile_fixed(occupancy_pct, 1),'') AS "Occupancy %"
  FROM temp.profsql_rp_kernels ORDER BY file, rank LIMIT 16;

CREATE TEMP VIEW profsql_rp_host_table AS
SELECT rn AS Rank, op_name AS Event, op_type AS Type, n AS Occurrences, profile_fixed(v,3) AS "Self ms",
       profile_fixed(share,3) AS "Self %", profile_fixed(tot,3) AS "Total ms"
  FROM temp.profsql_rp_host_r WHERE rn <= 15
UNION ALL SELECT '', '(' || n || ' more)', '', '', profile_fixed(v,3), profile_fixed(share,3), ''
  FROM temp.profsql_rp_host_rest ORDER BY 1;

CREATE TEMP TABLE profsql_rp_sections AS
SELECT column1 AS kind, column2 AS title, column3 AS source, column4 AS unit, column5 AS text, column6 AS show
  FROM (VALUES
  ('head', NULL, 'profsql_rp_head', NULL, ' (format `xspace`)', 1),
  ('line', 'Quick answer — кто жрёт время', 'profsql_rp_quick', NULL, NULL, 1),
  ('chart', 'Device: self time by plane', 'profsql_rp_planes_chart', 'ms', NULL, 1),
  ('chart', 'Device: self time by op', 'profsql_rp_dev_chart', 'ms', NULL, 1),
  ('table', 'Device: top ops by self time', 'profsql_rp_dev_table', NULL, NULL, 1),
  ('table', 'Device: top kernels by total time', 'profsql_rp_kernels_table', NULL, NULL,
   (SELECT kernels > 0 FROM temp.profsql_rp_xspace_facts)),
  ('text', 'Device: top kernels by total time', NULL, NULL, 'No device event carries `kernel_details` (launch '
   || 'parameters), so there are no kernels to list.', (SELECT kernels = 0 FROM temp.profsql_rp_xspace_facts)),
  ('chart', 'Host: self time by event', 'profsql_rp_host_chart', 'ms', NULL, (SELECT host_ops > 0 FROM temp.profsql_rp_xspace_facts)),
  ('table', 'Host: top events by self time', 'profsql_rp_host_table', NULL, NULL, (SELECT host_ops > 0 FROM temp.profsql_rp_xspace_facts)),
  ('text', 'Host: top events by self time', NULL, NULL, 'The capture has no host plane with events.',
   (SELECT host_ops = 0 FROM temp.profsql_rp_xspace_facts)),
  ('line', 'Budget violations', 'profsql_rp_budget_line', NULL, NULL, 1),
  ('rows', NULL, 'profsql_rp_budget_rows', NULL, NULL, 1));
