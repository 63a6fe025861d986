-- timings.sql — the figures the PocketMine-MP timings viewer (pmmp/timings) shows for a timings
-- report, as TEMP views: the headline (sample time, ticks, TPS, server load), per record the time
-- per tick and its share of a 50 ms tick, and the viewer's list view.
--
-- Input: a table or view `records` (profile_records of the report: file, record_id,
-- parent_record_id, timer_id, thread_id, name, group_name, time_ns, count, violations, ticks,
-- peak_ns, self_ns, depth, line) and a table or view `metadata` (profile_metadata of the same
-- source: scope, key, value, byte_offset, file) — e.g.
--   CREATE TEMP VIEW records AS SELECT * FROM profile_records('timings.txt');
--   CREATE TEMP VIEW metadata AS SELECT * FROM profile_metadata('timings.txt');
--   .read sql/timings.sql
-- (profile_open() creates both and these views for a timings report.) Only files whose
-- metadata says ('capture', 'format') = 'timings' are read, so a directory source that holds
-- other captures too gives rows for its timings reports alone. file is NULL for a BLOB.
--
-- The viewer's rules (pmmp/timings lib/Parser/Parser.php, lib/TimingsReport.php, the report page;
-- docs/timings.md has them with examples):
--   ticks    the Count of the 'Server Tick Update Cycle' entry of the list view, else of the
--            'Full Server Tick' entry (names looked up without the "** " prefix; when a name has
--            entries in several groups, the group whose first record comes LAST in the file wins,
--            as the viewer's loop assigns each match)
--   TPS      ticks / (sample seconds × 20) × 20 (= ticks per second)
--   load %   the 'Full Server Tick' entry's time / sample time × 100
--   per tick a record's time / ticks; "Pct Tick" = that / 50 ms × 100 (one tick at 20 TPS)
--   list     records with the same group and the same shown name (without "** "; "Plugin: <P>
--            Event: <E>" shown as "Event: <E>", "Task: <P> Runnable: <R>" as "Task: <R>"; HTML
--            entities decoded, blanks trimmed; in a FormatVersion 3 report also the same
--            ThreadId, for groups that come from the category line) summed: time, count,
--            violations; Ticks kept only for an entry of one record ("different records may
--            have been active on the same ticks"); Peak the largest
--   Peak     shown only from FormatVersion 2 on (version 1 counted it across all activations
--            of a tick); a report without '# FormatVersion' is read as version 0
--            (capture.format_version in the metadata)
-- In a well-formed report a timer's records share their TimerId, group and name, so the list
-- view is the records merged by timer_id across parents (the format document's "TimerId ... used
-- for list view to add together records from the same timer"); timer_id / timers say whether it
-- was so.
--
-- Views (times in integer ns unless the name says _ms or _seconds; *_percent and pct_* are
-- percentages; a figure whose input is missing or zero is NULL)
--   timings_summary(file, version, pocketmine_version, format_version, format_version_read,
--                   sample_time_ns, sample_seconds, tick_timer, ticks, tps, server_load_percent,
--                   full_server_tick_ns, entities, living_entities, record_count)
--       one row per report: version = '# Version' (the Minecraft version of a PocketMine-MP
--       report, the server version of a Spigot/Bukkit one), pocketmine_version =
--       '# PocketMine-MP', format_version = '# FormatVersion' as written (NULL when absent),
--       format_version_read = the version the report is read as (that, else 0), sample_time_ns =
--       'Sample time' (NULL when the line is missing: a diagnostic), tick_timer = which timer
--       gave ticks, entities / living_entities = '# Entities' / '# LivingEntities'.
--   timings_records(file, record_id, parent_record_id, timer_id, thread_id, depth, group_name,
--                   name, time_ns, count, violations, self_ns, ticks_active, peak_ns, avg_ns,
--                   count_per_tick, avg_per_tick_ms, pct_tick, self_per_tick_ms, self_pct_tick,
--                   pct_of_sample, line)
--       one row per record (name as written; ticks_active = its 'Ticks'): avg_ns = time / count
--       (the viewer's "Time ÷ Count"), count_per_tick = count / ticks ("Count ÷ Ticks"),
--       avg_per_tick_ms = time / ticks in ms, pct_tick = that as a % of a 50 ms tick,
--       self_per_tick_ms / self_pct_tick the same from self_ns (no double counting: they add up
--       over a tree), pct_of_sample = time / sample time × 100 ("% Total").
--   timings_list(file, group_name, thread_id, name, record_count, timer_id, timers, time_ns,
--                count, violations, ticks_active, peak_ns, avg_ns, count_per_tick,
--                avg_per_tick_ms, pct_tick, pct_of_sample, first_line)
--       one row per entry of the viewer's list view (name as the viewer shows it): record_count
--       records merged, timer_id their TimerId when they all share one (else NULL), timers the
--       number of distinct TimerIds, first_line the line of the first of them; the figures as
--       in timings_records, from the sums.
-- Records in the 'Minecraft - Breakdown' group ("** " names) are counted by another timer too:
-- summing pct_tick over every record double counts; sum self_pct_tick, or one group.
--
-- Sums (timings_list, the tick timers) are INTEGER while they stay below 2^53 (104 days of ns,
-- far beyond any report); a hostile report whose sums go beyond is summed as REAL (approximate)
-- instead of stopping the query with "integer overflow". A tick timer whose time or count sum
-- is beyond int64 gives no figure in timings_summary, as in the reader's derived metadata (which
-- has a diagnostic for it). Cost: linear in the records (one read of `records`, a GROUP BY, a
-- sort of the list entries of the two tick timers).
DROP VIEW IF EXISTS temp.timings_summary;
CREATE TEMP VIEW timings_summary AS
WITH
  md(f, scope, key, value, byte_offset) AS MATERIALIZED (
    SELECT coalesce(file, ''), scope, key, value, byte_offset FROM metadata
     WHERE scope IN ('capture', 'report')),
  tfile(f) AS MATERIALIZED (
    SELECT DISTINCT f FROM md WHERE scope = 'capture' AND key = 'format' AND value = 'timings'),
  -- the viewer's shown name (vname) and group key (group_name, th) of each record, as in
  -- timings_list below
  r0 AS MATERIALIZED (
    SELECT coalesce(file, '') AS f, group_name, thread_id, line, time_ns, count,
           trim(replace(replace(replace(replace(replace(replace(name, '&lt;', '<'), '&gt;', '>'),
                '&quot;', '"'), '&#039;', ''''), '&#39;', ''''), '&amp;', '&'), ' ' || char(9, 10, 11, 13)) AS dname
      FROM records WHERE coalesce(file, '') IN (SELECT f FROM tfile)),
  r1 AS MATERIALIZED (
    SELECT f, group_name, line, time_ns, count, vname, CASE WHEN vname = dname THEN thread_id END AS th
      FROM (SELECT r0.*,
           CASE WHEN substr(dname, 1, 3) = '** ' THEN substr(dname, 4)
                WHEN substr(dname, 1, length('Plugin: ' || group_name || ' Event: ')) = 'Plugin: ' || group_name || ' Event: '
                 AND length(dname) > length('Plugin: ' || group_name || ' Event: ')
                  THEN 'Event: ' || substr(dname, length('Plugin: ' || group_name || ' Event: ') + 1)
                WHEN substr(dname, 1, length('Task: ' || group_name || ' Runnable: ')) = 'Task: ' || group_name || ' Runnable: '
                 AND length(dname) > length('Task: ' || group_name || ' Runnable: ')
                  THEN 'Task: ' || substr(dname, length('Task: ' || group_name || ' Runnable: ') + 1)
                ELSE dname END AS vname
      FROM r0)),
  grp(f, group_name, th, first_line) AS (
    SELECT f, group_name, th, min(line) FROM r1 GROUP BY f, group_name, th),
  tk AS (
    SELECT e.f, e.vname, e.t, e.c,
           row_number() OVER (PARTITION BY e.f, e.vname ORDER BY g.first_line DESC) AS k
      -- (sums as in timings_list; beyond int64 no figure, as the reader's derived metadata)
      FROM (SELECT f, group_name, th, vname,
                   CASE WHEN abs(total(time_ns)) < 9007199254740992 THEN CAST(total(time_ns) AS INTEGER)
                        WHEN abs(total(time_ns)) < 9.2e18 THEN total(time_ns) END AS t,
                   CASE WHEN abs(total(count)) < 9007199254740992 THEN CAST(total(count) AS INTEGER)
                        WHEN abs(total(count)) < 9.2e18 THEN total(count) END AS c
              FROM r1
             WHERE vname IN ('Full Server Tick', 'Server Tick Update Cycle')
             GROUP BY f, group_name, th, vname) e
      JOIN grp g ON g.f = e.f AND g.group_name IS e.group_name AND g.th IS e.th),
  rep AS (
    SELECT t.f,
           (SELECT value FROM md WHERE md.f = t.f AND scope = 'report' AND key = 'sample_time_ns'
             ORDER BY byte_offset LIMIT 1) AS sample_ns,
           (SELECT c FROM tk WHERE tk.f = t.f AND vname = 'Server Tick Update Cycle' AND k = 1 AND tk.t IS NOT NULL AND tk.c IS NOT NULL) AS cycle_c,
           (SELECT c FROM tk WHERE tk.f = t.f AND vname = 'Full Server Tick' AND k = 1 AND tk.t IS NOT NULL AND tk.c IS NOT NULL) AS full_c,
           (SELECT tk.t FROM tk WHERE tk.f = t.f AND vname = 'Full Server Tick' AND k = 1 AND tk.t IS NOT NULL AND tk.c IS NOT NULL) AS full_t
      FROM tfile t)
SELECT nullif(rep.f, '') AS file,
       (SELECT value FROM md WHERE md.f = rep.f AND scope = 'report' AND key = 'Version' ORDER BY byte_offset LIMIT 1) AS version,
       (SELECT value FROM md WHERE md.f = rep.f AND scope = 'report' AND key = 'PocketMine-MP' ORDER BY byte_offset LIMIT 1) AS pocketmine_version,
       (SELECT value FROM md WHERE md.f = rep.f AND scope = 'report' AND key = 'FormatVersion'
           AND typeof(value) = 'integer' ORDER BY byte_offset LIMIT 1) AS format_version,
       (SELECT value FROM md WHERE md.f = rep.f AND scope = 'capture' AND key = 'format_version') AS format_version_read,
       rep.sample_ns AS sample_time_ns,
       rep.sample_ns / 1e9 AS sample_seconds,
       CASE WHEN rep.cycle_c IS NOT NULL THEN 'Server Tick Update Cycle'
            WHEN rep.full_c IS NOT NULL THEN 'Full Server Tick' END AS tick_timer,
       coalesce(rep.cycle_c, rep.full_c) AS ticks,
       coalesce(rep.cycle_c, rep.full_c) / (nullif(rep.sample_ns, 0) / 1e9 * 20) * 20 AS tps,
       1.0 * rep.full_t / nullif(rep.sample_ns, 0) * 100 AS server_load_percent,
       rep.full_t AS full_server_tick_ns,
       (SELECT value FROM md WHERE md.f = rep.f AND scope = 'report' AND key = 'Entities' ORDER BY byte_offset LIMIT 1) AS entities,
       (SELECT value FROM md WHERE md.f = rep.f AND scope = 'report' AND key = 'LivingEntities' ORDER BY byte_offset LIMIT 1) AS living_entities,
       (SELECT value FROM md WHERE md.f = rep.f AND scope = 'capture' AND key = 'records') AS record_count
  FROM rep;

DROP VIEW IF EXISTS temp.timings_records;
CREATE TEMP VIEW timings_records AS
WITH
  s(f, ticks, sample_ns, fv) AS MATERIALIZED (
    SELECT coalesce(file, ''), ticks, sample_time_ns, format_version_read FROM timings_summary)
SELECT r.file, r.record_id, r.parent_record_id, r.timer_id, r.thread_id, r.depth, r.group_name,
       r.name, r.time_ns, r.count, r.violations, r.self_ns, r.ticks AS ticks_active,
       CASE WHEN s.fv >= 2 THEN r.peak_ns END AS peak_ns,
       1.0 * r.time_ns / nullif(r.count, 0) AS avg_ns,
       1.0 * r.count / nullif(s.ticks, 0) AS count_per_tick,
       1.0 * r.time_ns / nullif(s.ticks, 0) / 1e6 AS avg_per_tick_ms,
       1.0 * r.time_ns / nullif(s.ticks, 0) / 50e6 * 100 AS pct_tick,
       1.0 * r.self_ns / nullif(s.ticks, 0) / 1e6 AS self_per_tick_ms,
       1.0 * r.self_ns / nullif(s.ticks, 0) / 50e6 * 100 AS self_pct_tick,
       1.0 * r.time_ns / nullif(s.sample_ns, 0) * 100 AS pct_of_sample,
       r.line
  FROM records r JOIN s ON s.f = coalesce(r.file, '');

DROP VIEW IF EXISTS temp.timings_list;
CREATE TEMP VIEW timings_list AS
WITH
  s(f, ticks, sample_ns, fv) AS MATERIALIZED (
    SELECT coalesce(file, ''), ticks, sample_time_ns, format_version_read FROM timings_summary),
  r0 AS MATERIALIZED (
    SELECT coalesce(file, '') AS f, group_name, thread_id, timer_id, line, time_ns, count,
           violations, ticks, peak_ns,
           trim(replace(replace(replace(replace(replace(replace(name, '&lt;', '<'), '&gt;', '>'),
                '&quot;', '"'), '&#039;', ''''), '&#39;', ''''), '&amp;', '&'), ' ' || char(9, 10, 11, 13)) AS dname
      FROM records WHERE coalesce(file, '') IN (SELECT f FROM s)),
  r1 AS (
    SELECT r0.*,
           CASE WHEN substr(dname, 1, 3) = '** ' THEN substr(dname, 4)
                WHEN substr(dname, 1, length('Plugin: ' || group_name || ' Event: ')) = 'Plugin: ' || group_name || ' Event: '
                 AND length(dname) > length('Plugin: ' || group_name || ' Event: ')
                  THEN 'Event: ' || substr(dname, length('Plugin: ' || group_name || ' Event: ') + 1)
                WHEN substr(dname, 1, length('Task: ' || group_name || ' Runnable: ')) = 'Task: ' || group_name || ' Runnable: '
                 AND length(dname) > length('Task: ' || group_name || ' Runnable: ')
                  THEN 'Task: ' || substr(dname, length('Task: ' || group_name || ' Runnable: ') + 1)
                ELSE dname END AS vname
      FROM r0),
  e AS (
    SELECT f, group_name, CASE WHEN vname = dname THEN thread_id END AS th, vname,
           count(*) AS n, min(timer_id) AS tmin, count(timer_id) AS ntid, count(DISTINCT timer_id) AS timers,
           -- sums exact below 2^53 (total() adds doubles), REAL beyond (hostile Time values):
           -- sum() would stop the query with 'integer overflow'
           CASE WHEN abs(total(time_ns)) < 9007199254740992 THEN CAST(total(time_ns) AS INTEGER) ELSE total(time_ns) END AS t,
           CASE WHEN abs(total(count)) < 9007199254740992 THEN CAST(total(count) AS INTEGER) ELSE total(count) END AS c,
           CASE WHEN count(violations) = 0 THEN NULL
                WHEN abs(total(violations)) < 9007199254740992 THEN CAST(total(violations) AS INTEGER) ELSE total(violations) END AS v,
           CASE WHEN count(*) = 1 THEN max(ticks) END AS ticks_active, max(peak_ns) AS peak,
           min(line) AS first_line
      FROM r1 GROUP BY f, group_name, th, vname)
SELECT nullif(e.f, '') AS file, e.group_name, e.th AS thread_id, e.vname AS name,
       e.n AS record_count,
       CASE WHEN e.timers = 1 AND e.ntid = e.n THEN e.tmin END AS timer_id,
       e.timers, e.t AS time_ns, e.c AS count, e.v AS violations, e.ticks_active,
       CASE WHEN s.fv >= 2 THEN e.peak END AS peak_ns,
       1.0 * e.t / nullif(e.c, 0) AS avg_ns,
       1.0 * e.c / nullif(s.ticks, 0) AS count_per_tick,
       1.0 * e.t / nullif(s.ticks, 0) / 1e6 AS avg_per_tick_ms,
       1.0 * e.t / nullif(s.ticks, 0) / 50e6 * 100 AS pct_tick,
       1.0 * e.t / nullif(s.sample_ns, 0) * 100 AS pct_of_sample,
       e.first_line
  FROM e JOIN s ON s.f = e.f;
