-- report_timings.sql — the report model of a timings report (PocketMine-MP, Spigot/Bukkit): the
-- timings viewer's figures first (TPS, server load, ticks: sql/timings.sql, the viewer's rules),
-- then the consumers: timers (a group's records of one name merged, as the viewer's list merges
-- them) and groups, ranked by self time where the report has a record tree. The budget is the
-- server's 50 ms tick; a timer's Violations count its runs over it.
-- Run by profile_report after sql/report_model.sql (its header says how, and what the sections
-- are); ?1 is the source.

CREATE TEMP TABLE profsql_rp_records AS SELECT * FROM profile_records(?1);
CREATE TEMP TABLE profsql_rp_metadata AS SELECT * FROM profile_metadata(?1);
.read sql/timings.sql

-- the viewer's figures of the capture, one row: of a single report its own; of several (a
-- directory) the ticks, sample time and Full Server Tick time summed, TPS and load from the sums
CREATE TEMP TABLE profsql_rp_fig AS
SELECT ticks, sample_ns, fst_ns,
       CASE WHEN sample_ns > 0 THEN ticks / (sample_ns / 1e9) END AS tps,
       CASE WHEN sample_ns > 0 THEN fst_ns * 100.0 / sample_ns END AS load
  FROM (SELECT sum(ticks) AS ticks,
               CASE WHEN count(sample_time_ns) = count(*) THEN sum(sample_time_ns) END AS sample_ns,
               sum(full_server_tick_ns) AS fst_ns
          FROM temp.profsql_rp_timings_summary);

-- per timer: the records of one name in one group merged (counts, times, violations and self
-- times summed, the highest peak; self NULL without a tree), with ms per server tick and the %
-- of the 50 ms tick
CREATE TEMP TABLE profsql_rp_timers AS
SELECT r.*, ifnull(r.group_name,'') || ': ' || ifnull(r.name,'') AS key, r.time_ns / 1e6 AS ms, r.self_ns / 1e6 AS self_ms,
       CASE WHEN f.ticks > 0 THEN r.time_ns / 1e6 / f.ticks END AS per_tick,
       CASE WHEN f.ticks > 0 THEN r.time_ns / 1e6 / f.ticks / 50.0 * 100.0 END AS pct_tick
  FROM (SELECT group_name, name, min(line) AS line, count(*) AS records, sum(count) AS count, sum(time_ns) AS time_ns,
               sum(violations) AS violations, CASE WHEN count(self_ns) THEN sum(self_ns) END AS self_ns, max(peak_ns) AS peak_ns
          FROM temp.profsql_rp_records GROUP BY group_name, name) r, temp.profsql_rp_fig f;

CREATE TEMP TABLE profsql_rp_timings_facts AS
SELECT (SELECT count(self_ns) > 0 FROM temp.profsql_rp_records) AS has_tree,
       (SELECT sum(self_ns) FROM temp.profsql_rp_records) AS self_total,
       (SELECT count(*) FROM temp.profsql_rp_timers WHERE violations > 0) AS n_violating;

-- x as Markdown running text: \ [ ] * _ ` backslash-escaped, < > & as entities
CREATE TEMP VIEW profsql_rp_quick AS
WITH top AS (SELECT * FROM temp.profsql_rp_timers ORDER BY coalesce(self_ns, time_ns) DESC, line LIMIT 1),
esc(g) AS (SELECT replace(replace(replace(replace(replace(replace(replace(replace(replace(ifnull(group_name,''),
  '\','\\'), '&','&amp;'), '<','&lt;'), '>','&gt;'), '[','\['), ']','\]'), '*','\*'), '_','\_'), '`','\`') FROM top)
SELECT CASE WHEN f.ticks IS NULL THEN 'The report has no `Full Server Tick` (or `Server Tick Update Cycle`) record: '
    || 'ticks, TPS and server load cannot be computed (the timings viewer rejects such a report).'
  WHEN f.sample_ns IS NULL THEN printf('The report has no `Sample time` line: TPS and server load cannot be computed '
    || '(%d ticks recorded).', f.ticks)
  ELSE printf('**Server:** %.2f TPS, server load %.2f %% — %d ticks in %.3f s of sample time; `Full Server Tick` took '
    || '%.3f ms (%.3f ms per tick, %.2f %% of a 50 ms tick).', f.tps, f.load, f.ticks, f.sample_ns / 1e9,
    f.fst_ns / 1e6, f.fst_ns / 1e6 / f.ticks, f.fst_ns / 1e6 / f.ticks / 50.0 * 100.0) END
  || ifnull(' ' || (SELECT CASE WHEN top.self_ns IS NOT NULL THEN printf('**Most self time:** `%s` (%s) — %.3f ms, '
    || '%.1f %% of all self time%s.', replace(top.name,'`',''''), esc.g, top.self_ms,
    CASE WHEN x.self_total<>0 THEN top.self_ns * 100.0 / x.self_total ELSE 0 END,
    CASE WHEN top.per_tick IS NOT NULL THEN printf(', %.3f ms per tick (%.2f %% of the 50 ms tick)', top.per_tick, top.pct_tick) ELSE '' END)
    ELSE printf('**Longest timer:** `%s` (%s) — %.3f ms%s (no record tree: its time includes the timers it calls).',
    replace(top.name,'`',''''), esc.g, top.ms,
    CASE WHEN top.per_tick IS NOT NULL THEN printf(', %.3f ms per tick (%.2f %% of the 50 ms tick)', top.per_tick, top.pct_tick) ELSE '' END) END
    FROM top, esc, temp.profsql_rp_timings_facts x), '')
  FROM temp.profsql_rp_fig f;

CREATE TEMP VIEW profsql_rp_figures AS
SELECT CASE WHEN tps IS NULL THEN '' ELSE printf('%.2f', tps) END AS TPS,
       CASE WHEN load IS NULL THEN '' ELSE printf('%.2f', load) END AS "Server load %", ifnull(ticks,'') AS Ticks,
       CASE WHEN sample_ns IS NULL THEN '' ELSE printf('%.9f', sample_ns / 1e9) END AS "Sample time s",
       CASE WHEN fst_ns IS NULL THEN '' ELSE profile_fixed(fst_ns / 1e6, 3) END AS "Full Server Tick ms",
       CASE WHEN fst_ns IS NULL OR NOT ticks > 0 THEN '' ELSE profile_fixed(fst_ns / 1e6 / ticks, 3) END AS "ms per tick"
  FROM temp.profsql_rp_fig;

-- groups and timers by self time (ranked: top 15, then the rest in one row)
CREATE TEMP VIEW profsql_rp_groups AS
SELECT ifnull(group_name,'') AS key, count(DISTINCT name) AS timers, sum(self_ns) / 1e6 AS v
  FROM temp.profsql_rp_records GROUP BY group_name;
.rank profsql_rp_groups
CREATE TEMP VIEW profsql_rp_timer_self AS
SELECT key, self_ms AS v FROM temp.profsql_rp_timers WHERE self_ns IS NOT NULL;
.rank profsql_rp_timer_self

CREATE TEMP VIEW profsql_rp_groups_table AS
SELECT rn AS Rank, key AS "Group", timers AS Timers, profile_fixed(v,3) AS "Self ms", profile_fixed(share,3) AS "Share %"
  FROM temp.profsql_rp_groups_r WHERE rn <= 15
UNION ALL SELECT '', '(' || n || ' more)', '', profile_fixed(v,3), profile_fixed(share,3) FROM temp.profsql_rp_groups_rest ORDER BY 1;

CREATE TEMP VIEW profsql_rp_timers_table AS
SELECT row_number() OVER (ORDER BY time_ns DESC, line) AS Rank, name AS Timer, ifnull(group_name,'') AS "Group",
       ifnull(count,'') AS Count, profile_fixed(ms,3) AS "Time ms", ifnull(profile_fixed(per_tick,3),'') AS "ms per tick",
       ifnull(profile_fixed(pct_tick,2),'') AS "% of tick", ifnull(profile_fixed(self_ms,3),'') AS "Self ms",
       ifnull(profile_fixed(CASE WHEN x.self_total<>0 THEN self_ns * 100.0 / x.self_total END,3),'') AS "Self %",
       ifnull(violations,'') AS Violations
  FROM temp.profsql_rp_timers, temp.profsql_rp_timings_facts x ORDER BY time_ns DESC, line LIMIT 16;

CREATE TEMP VIEW profsql_rp_violations_line AS
SELECT CASE WHEN count(*) = 0 THEN 'No timer counted a violation: no run of any timer went over the 50 ms tick.'
  ELSE printf('%d timers counted %d violations (runs over the 50 ms tick); the budget signal of a timings report:',
  count(*), sum(violations)) END FROM temp.profsql_rp_timers WHERE violations > 0;

CREATE TEMP VIEW profsql_rp_violations AS
SELECT row_number() OVER (ORDER BY violations DESC, time_ns DESC, line) AS Rank, name AS Timer,
       ifnull(group_name,'') AS "Group", violations AS Violations, ifnull(count,'') AS Count,
       profile_fixed(time_ns / 1e6, 3) AS "Time ms", ifnull(profile_fixed(peak_ns / 1e6, 3),'') AS "Peak ms"
  FROM temp.profsql_rp_timers WHERE violations > 0 ORDER BY violations DESC, time_ns DESC, line LIMIT 16;

CREATE TEMP TABLE profsql_rp_sections AS
SELECT column1 AS kind, column2 AS title, column3 AS source, column4 AS unit, column5 AS text, column6 AS show
  FROM (VALUES
  ('head', NULL, 'profsql_rp_head', NULL, ' (format `timings`)', 1),
  ('line', 'Quick answer — кто жрёт время', 'profsql_rp_quick', NULL, NULL, 1),
  ('table', 'The timings viewer''s figures', 'profsql_rp_figures', NULL, NULL, 1),
  ('text', NULL, NULL, NULL, 'TPS = ticks / sample seconds; server load = `Full Server Tick` time / sample time × 100; ticks = the '
   || '`Count` of `Server Tick Update Cycle`, else of `Full Server Tick` (the timings viewer''s formulas).', 1),
  ('chart', 'Self time by group', 'profsql_rp_groups_chart', 'ms', NULL, (SELECT has_tree FROM temp.profsql_rp_timings_facts)),
  ('table', 'Groups by self time', 'profsql_rp_groups_table', NULL, NULL, (SELECT has_tree FROM temp.profsql_rp_timings_facts)),
  ('chart', 'Self time by timer', 'profsql_rp_timer_self_chart', 'ms', NULL, (SELECT has_tree FROM temp.profsql_rp_timings_facts)),
  ('text', 'Self time by group', NULL, NULL, 'Not applicable to this report: it has no record tree (a legacy v1 report), so '
   || 'a timer''s time includes the timers it calls and no share of it adds up; the records below are ranked '
   || 'by time per tick instead.', (SELECT NOT has_tree FROM temp.profsql_rp_timings_facts)),
  ('table', 'Timers by time per tick', 'profsql_rp_timers_table', NULL, NULL, 1),
  ('line', 'Violations — runs over the 50 ms tick', 'profsql_rp_violations_line', NULL, NULL, 1),
  ('rows', NULL, 'profsql_rp_violations', NULL, NULL, 1),
  ('text', 'Budget violations', NULL, NULL, 'Not applicable to timings beyond the Violations above: a timer record sums '
   || 'many runs, so its time is not compared with a frame budget.', 1));
