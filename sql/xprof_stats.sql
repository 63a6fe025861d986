-- xprof_stats.sql — what xprof's op, kernel and step tools show, computed from the events of an
-- XSpace capture (TensorFlow / JAX .xplane.pb), as TEMP views.
--
-- Input: a table or view `events` with the columns of profile_events — e.g.
--   CREATE TEMP VIEW events AS SELECT * FROM profile_events('host.xplane.pb');
--   .read sql/xprof_stats.sql
-- (profile_open() creates `events` and runs this file.) Only XSpace rows count (duration_ps is
-- NULL for every other format): over any other capture every view is empty. A source naming
-- several files keeps them apart (column file; NULL for a BLOB). Times are integer ns as
-- profile_events has them (ps rounded to the nearest ns). docs/xprof_views.md has the details.
--
-- Which events are ops. Lines that xprof derives from others (ids from 0xdeadbeef up, as int32 or
-- unsigned, or named 'XLA Modules', 'Framework Ops', 'TensorFlow Ops', 'Launch Stats', ...,
-- '... - from #N') repeat other rows and are skipped; 'Steps' lines hold steps.
--   device plane ('/device:...') with an 'XLA Ops' line of its own id (TPU): that line's events,
--       op = the event name (the HLO instruction)
--   other device planes (GPU): the events of the stream lines; op = the hlo_op stat (its last
--       '::' part, as xprof), else the tf_op stat read as 'name:type', else the event name
--   other planes ('/host:CPU', ...): every event of every line; op = the event name read as
--       'name:type'
--   'name:type' is read as xprof's ParseTfOpFullname reads it (TensorFlow, JAX, tf.data, memcpy);
--   what it does not recognize keeps its whole text as the name and has no type.
--
-- Views
--   xprof_op_events(file, id, pid, plane, tid, line, ts, dur, self_ns, depth, parent_id, device,
--                   name, op_name, op_type, op_source, module, long_name, kernel_details)
--       one row per op event (ns): self_ns = dur minus the dur of the events nested in it on its
--       line (parent_id); device 1/0; op_source 'xla_ops_line' | 'hlo_op' | 'tf_op' | 'event';
--       op_type = the hlo_category stat, else the HLO name without its '.N' suffix, else the
--       'name:type' type, else NULL; module = the hlo_module stat, else program_id; module,
--       long_name and kernel_details for device rows only
--   xprof_op_stats(file, pid, plane, device, module, op_name, op_type, occurrences, total_ns,
--                  avg_ns, min_ns, max_ns, self_ns, self_share, rank, long_name)
--       per plane and op (ns): self_share = self_ns / the plane's summed self_ns (0..1: the op's
--       share of all op time on the plane, idle left out, each stream counted), rank 1.. by
--       self_ns (then total_ns) within the plane
--   xprof_kernel_stats(file, kernel_name, op_name, module, occurrences, total_ns, avg_ns,
--                      min_ns, max_ns, registers_per_thread, static_shmem_bytes,
--                      dynamic_shmem_bytes, block_dim, grid_dim, occupancy_pct,
--                      uses_tensor_core, devices, rank)
--       per kernel and launch shape, all device planes of a file together: device stream events
--       with a kernel_details stat and dur > 0 (ns). The launch parameters are parsed from
--       kernel_details as xprof parses them ('regs:N static_shared:N dynamic_shared:N
--       grid:X,Y,Z block:X,Y,Z occ_pct:F', tokens split at blanks and newlines); one absent or
--       unreadable (not an unsigned 32-bit integer; for the dims, not three unsigned integers) is
--       NULL; block_dim and grid_dim 'X,Y,Z'; occupancy_pct (%) averaged over the launches;
--       devices = planes it ran on; rank by total_ns
--   xprof_step_time(file, step_source, pid, plane, step_num, step_name, ts, dur_ns,
--                   device_busy_ns, devices, device_busy_share)
--       one row per step, from the first of these the file has: the events of device planes'
--       'Steps' lines (a row per plane and step; 'Steps line'), else host events with a step_num
--       stat (a step spans its markers; 'step_num'), else events with a group_id stat (a step
--       spans its group; 'group_id'). device_busy_ns = time within the step when at least one
--       device op of xprof_op_events ran (the union of their intervals: concurrent streams and
--       nested ops count once), summed over the step's own plane ('Steps line') or over every
--       device plane with ops (the others); devices = planes summed; device_busy_share =
--       device_busy_ns / (dur_ns * devices), 0..1
--
-- Cost (n rows of `events`): every view reads `events` once or twice (args once per row: each
-- read of that column builds its JSON again) and groups or sorts: O(n log n). Names are parsed
-- once per distinct name and reach their rows through a window sort, not a join; kernel_details
-- is parsed once per distinct text of a kernel; a step's busy time comes from one window pass over
-- the merged op intervals and the step ends sorted together (no loop over ops per step). The
-- children's time is a join on (file, parent_id) that SQLite indexes, as in event_tree.sql. The
-- only product is steps x device planes. tests/py/test_xprof_views.py holds each view to 4.6x
-- the VM steps at 4n events.
DROP VIEW IF EXISTS temp.xprof_op_events;
CREATE TEMP VIEW xprof_op_events AS
WITH
  -- the lines of the XSpace rows, each with its role: 'steps', 'derived' (xprof's derived
  -- lines: ids from 0xdeadbeef up, as int32 or unsigned, or their names), 'xla_ops' or 'line'
  track(file, pid, tid, dev, role) AS MATERIALIZED (
    SELECT file, pid, tid, coalesce(plane GLOB '/device:*', 0),
           CASE WHEN line = 'Steps' THEN 'steps'
                WHEN tid BETWEEN -559038737 AND -559037738 OR tid BETWEEN 3735928559 AND 3735929558 THEN 'derived'
                WHEN line = 'XLA Ops' THEN 'xla_ops'
                WHEN line IN ('XLA Modules', 'Async XLA Ops', 'XLA TraceMe', 'Framework Ops', 'Framework Name Scope',
                              'TensorFlow Ops', 'TensorFlow Name Scope', 'Launch Stats', 'Source code',
                              'Host Offload Ops', '_counters_', 'Sparse Core Steps', 'Sparse Core Ops',
                              'Sparse Core Modules')
                  OR line GLOB '* - from #*' THEN 'derived'
                ELSE 'line' END
      FROM (SELECT coalesce(file, '') AS file, pid, tid, min(process_name) AS plane, min(thread_name) AS line
              FROM events WHERE duration_ps IS NOT NULL GROUP BY 1, 2, 3)),
  -- the lines whose events are ops, as keys 'file^Apid^Atid': a device plane with an 'XLA Ops'
  -- line of its own (TPU) gives that line, other device planes their stream lines, other planes
  -- every line
  opline(k) AS MATERIALIZED (
    SELECT t.file || char(1) || t.pid || char(1) || t.tid FROM track t
     WHERE t.role = CASE WHEN t.dev AND EXISTS (SELECT 1 FROM track n WHERE n.file = t.file AND n.pid = t.pid
                                                                   AND n.dev AND n.role = 'xla_ops')
                         THEN 'xla_ops' ELSE 'line' END),
  -- one read of `events` for the op rows; args is read once (each read of the column builds its
  -- JSON again) and only for device rows, the stats the views use taken out of it in one call,
  -- as a JSON array
  ev AS MATERIALIZED (
    SELECT coalesce(file, '') AS file, id, pid, process_name AS plane, tid, thread_name AS line, ts, dur, depth,
           parent_id, name, coalesce(process_name GLOB '/device:*', 0) AS dev,
           coalesce(process_name GLOB '/device:*' AND thread_name = 'XLA Ops', 0) AS xla,
           CASE WHEN process_name GLOB '/device:*' THEN
             json_extract(args, '$.hlo_op', '$.tf_op', '$.hlo_category', '$.hlo_module', '$.program_id',
                          '$.long_name', '$.kernel_details') END AS j
      FROM events
     WHERE duration_ps IS NOT NULL AND dur IS NOT NULL
       AND coalesce(file, '') || char(1) || pid || char(1) || tid IN (SELECT k FROM opline)),
  -- kind and txt say what names the op: x = an 'XLA Ops' event's name, h = the hlo_op stat,
  -- t = the tf_op stat, e = a device event's name, n = a host event's name
  op AS NOT MATERIALIZED (
    SELECT file, id, pid, plane, tid, line, ts, dur, depth, parent_id, dev, name, cat, module, long_name,
           kernel_details,
           CASE WHEN xla THEN 'x' WHEN NOT dev THEN 'n' WHEN hop IS NOT NULL THEN 'h'
                WHEN tfo IS NOT NULL THEN 't' ELSE 'e' END AS kind,
           CASE WHEN xla OR NOT dev THEN name ELSE coalesce(hop, tfo, name) END AS txt
      FROM (SELECT file, id, pid, plane, tid, line, ts, dur, depth, parent_id, name, dev, xla,
                   CASE WHEN dev AND NOT xla THEN nullif(CAST(json_extract(j, '$[0]') AS TEXT), '') END AS hop,
                   CASE WHEN dev AND NOT xla THEN nullif(CAST(json_extract(j, '$[1]') AS TEXT), '') END AS tfo,
                   CAST(json_extract(j, '$[2]') AS TEXT) AS cat,
                   CASE WHEN dev THEN CAST(coalesce(json_extract(j, '$[3]'), json_extract(j, '$[4]')) AS TEXT) END
                     AS module,
                   json_extract(j, '$[5]') AS long_name,
                   CASE WHEN dev THEN json_extract(j, '$[6]') END AS kernel_details
              FROM ev)),
  -- the names are parsed once per distinct (kind, txt), not once per row
  nm(kind, txt) AS MATERIALIZED (SELECT DISTINCT kind, txt FROM op),
  -- h: the hlo_op's last '::' part (xprof: hlo_op_names.back()); t, n: txt split the way xprof's
  -- ParseTfOpFullname splits it, at the first ':' (p0 the name, p1 the type as written)
  nm1 AS MATERIALIZED (
    SELECT kind, txt,
           CASE WHEN kind = 'h' THEN coalesce(nullif(substr(replace(txt, '::', char(1)),
                  length(rtrim(replace(txt, '::', char(1)), replace(txt, '::', ''))) + 1), ''), txt) END AS hlo,
           CASE WHEN kind IN ('t', 'n') THEN instr(txt, ':') END AS p,
           CASE WHEN kind IN ('t', 'n') AND instr(txt, ':') > 0 THEN substr(txt, 1, instr(txt, ':') - 1) END AS p0,
           CASE WHEN kind IN ('t', 'n') AND instr(txt, ':') > 0 THEN substr(txt, instr(txt, ':') + 1) END AS p1
      FROM nm),
  -- tf: p0:p1 is a TensorFlow op (name [A-Za-z0-9.][A-Za-z0-9_./>-]*, type [A-Z_][A-Za-z0-9_]*);
  -- ot: p1, or when p1 is empty the type derived from p0 (its last '/' part without a '_N' suffix)
  nm2 AS MATERIALIZED (
    SELECT nm1.*,
           coalesce(p1 GLOB '[A-Z_]*' AND p1 NOT GLOB '*[^A-Za-z0-9_]*'
                    AND p0 GLOB '[A-Za-z0-9.]*' AND p0 NOT GLOB '*[^A-Za-z0-9_./>-]*', 0) AS tf,
           CASE WHEN p1 <> '' THEN p1
                WHEN length(rtrim(lastpart, '0123456789')) < length(lastpart)
                 AND rtrim(lastpart, '0123456789') GLOB '*_'
                THEN substr(lastpart, 1, length(rtrim(lastpart, '0123456789')) - 1)
                ELSE lastpart END AS ot
      FROM (SELECT nm1.*, substr(p0, length(rtrim(p0, replace(p0, '/', ''))) + 1) AS lastpart FROM nm1) nm1),
  -- jx: ot as a JAX op type ([a-z_][a-z0-9_]*, an optional '[...]' dropped), else NULL
  nm3 AS MATERIALIZED (
    SELECT nm2.*,
           CASE WHEN ot GLOB '[a-z_]*' AND ot NOT GLOB '*[^a-z0-9_]*' THEN ot
                WHEN ot GLOB '[a-z_]*[[]*]' AND substr(ot, 1, instr(ot, '[') - 1) NOT GLOB '*[^a-z0-9_]*'
                THEN substr(ot, 1, instr(ot, '[') - 1) END AS jx
      FROM nm2),
  -- the op's name and type; the type is NULL where xprof's category is 'unknown' (host events
  -- that are no TensorFlow, JAX, tf.data or memcpy op: not in xprof's host op table)
  parsed(kind, txt, op_name, op_type) AS MATERIALIZED (
    SELECT kind, txt,
           CASE WHEN kind IN ('x', 'e') THEN txt
                WHEN kind = 'h' THEN hlo
                WHEN p = 0 OR p0 = 'Iterator' THEN txt
                WHEN tf OR jx IS NOT NULL OR p1 = '' THEN p0
                ELSE txt END,
           CASE WHEN kind IN ('x', 'h') THEN (
                  -- the HLO instruction name without its '.N' suffix ('fusion.12' -> 'fusion')
                  SELECT CASE WHEN length(s) < length(h) AND s GLOB '?*.' THEN substr(s, 1, length(s) - 1) ELSE h END
                    FROM (SELECT coalesce(hlo, txt) AS h, rtrim(coalesce(hlo, txt), '0123456789') AS s))
                WHEN kind = 'e' THEN NULL
                WHEN p = 0 THEN CASE WHEN upper(txt) GLOB 'MEMCPYHTOD*' THEN 'MemcpyHToD'
                                     WHEN upper(txt) GLOB 'MEMCPYDTOH*' THEN 'MemcpyDToH'
                                     WHEN upper(txt) GLOB 'MEMCPYDTOD*' THEN 'MemcpyDToD'
                                     WHEN upper(txt) GLOB 'MEMCPYHTOH*' THEN 'MemcpyHToH' END
                WHEN p0 = 'Iterator' THEN 'Dataset'
                WHEN tf THEN p1
                WHEN jx IS NOT NULL THEN jx
                WHEN p1 = '' THEN ot END
      FROM nm3),
  -- the parsed names reach the op rows by sorting them together (a window over (kind, txt)), not
  -- by a join: no plan can make it a loop over the names for each op row (SQLite indexes such a
  -- join only when its planner thinks it pays: a join here was 5x faster on 3M events in one
  -- view and a loop in the next). The names' row comes first in its partition (is_row 0), so a
  -- running frame gives every op row its value without holding the partition (12% faster than
  -- the whole-partition frame at 3M events).
  named AS MATERIALIZED (
    SELECT * FROM (
      SELECT u.*, max(p_name) OVER (PARTITION BY kind, txt ORDER BY is_row ROWS UNBOUNDED PRECEDING) AS op_name,
             max(p_type) OVER (PARTITION BY kind, txt ORDER BY is_row ROWS UNBOUNDED PRECEDING) AS parsed_type
        FROM (SELECT 1 AS is_row, file, id, pid, plane, tid, line, ts, dur, depth, parent_id, dev, name, cat, module,
                     long_name, kernel_details, kind, txt, NULL AS p_name, NULL AS p_type FROM op
              UNION ALL
              SELECT 0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                     kind, txt, op_name, op_type FROM parsed) u)
     WHERE is_row),
  -- the children's time: a join on (file, parent_id), which SQLite indexes (as event_tree.sql)
  child(file, parent_id, total) AS MATERIALIZED (
    SELECT coalesce(file, ''), parent_id, sum(dur) FROM events
     WHERE duration_ps IS NOT NULL AND dur IS NOT NULL AND parent_id IS NOT NULL GROUP BY 1, 2)
SELECT nullif(o.file, '') AS file, o.id, o.pid, o.plane, o.tid, o.line, o.ts, o.dur,
       o.dur - coalesce(c.total, 0) AS self_ns, o.depth, o.parent_id, o.dev AS device, o.name, o.op_name,
       CASE WHEN o.kind IN ('x', 'h') THEN coalesce(o.cat, o.parsed_type) ELSE o.parsed_type END AS op_type,
       CASE o.kind WHEN 'x' THEN 'xla_ops_line' WHEN 'h' THEN 'hlo_op' WHEN 't' THEN 'tf_op' ELSE 'event' END AS op_source,
       o.module, o.long_name, o.kernel_details
  FROM named o LEFT JOIN child c ON c.file = o.file AND c.parent_id = o.id;

DROP VIEW IF EXISTS temp.xprof_op_stats;
CREATE TEMP VIEW xprof_op_stats AS
WITH
  g(file, pid, plane, device, module, op_name, op_type, n, total, mn, mx, self, long_name) AS MATERIALIZED (
    SELECT file, pid, min(plane), max(device), module, op_name, op_type, count(*), sum(dur), min(dur), max(dur),
           sum(self_ns), min(long_name)
      FROM xprof_op_events GROUP BY file, pid, module, op_name, op_type)
SELECT file, pid, plane, device, module, op_name, op_type, n AS occurrences, total AS total_ns,
       1.0 * total / n AS avg_ns, mn AS min_ns, mx AS max_ns, self AS self_ns,
       CASE WHEN sum(self) OVER w > 0 THEN 1.0 * self / sum(self) OVER w END AS self_share,
       row_number() OVER (PARTITION BY file, pid ORDER BY self DESC, total DESC, op_name, module, op_type) AS rank,
       long_name
  FROM g
WINDOW w AS (PARTITION BY file, pid);

DROP VIEW IF EXISTS temp.xprof_kernel_stats;
CREATE TEMP VIEW xprof_kernel_stats AS
WITH
  -- the kernels (device stream events with a kernel_details stat, longer than 0 ns), grouped
  -- first by their kernel_details text as written and their plane: no join, and each distinct
  -- text is parsed once per group, not once per launch
  k(file, pid, name, op_name, module, kd, n, total, mn, mx) AS MATERIALIZED (
    SELECT file, pid, name, CASE WHEN op_source IN ('hlo_op', 'tf_op') THEN op_name END, module,
           CAST(kernel_details AS TEXT), count(*), sum(dur), min(dur), max(dur)
      FROM xprof_op_events
     WHERE device AND op_source <> 'xla_ops_line' AND kernel_details IS NOT NULL AND kernel_details <> ''
       AND dur > 0
     GROUP BY 1, 2, 3, 4, 5, 6),
  -- kernel_details padded with blanks (newlines count as blanks) so that every token is
  -- ' key:value ', then the text after each key (NULL when absent), then the token up to the
  -- next blank
  kd2 AS MATERIALIZED (
    SELECT file, pid, name, op_name, module, n, total, mn, mx,
           substr(d, nullif(instr(d, ' regs:'), 0) + 6) AS r, substr(d, nullif(instr(d, ' static_shared:'), 0) + 15) AS s,
           substr(d, nullif(instr(d, ' dynamic_shared:'), 0) + 16) AS y, substr(d, nullif(instr(d, ' block:'), 0) + 7) AS b,
           substr(d, nullif(instr(d, ' grid:'), 0) + 6) AS g, substr(d, nullif(instr(d, ' occ_pct:'), 0) + 9) AS o
      FROM (SELECT k.*, ' ' || replace(kd, char(10), ' ') || ' ' AS d FROM k)),
  kd3 AS MATERIALIZED (
    SELECT file, pid, name, op_name, module, n, total, mn, mx,
           substr(r, 1, instr(r, ' ') - 1) AS r, substr(s, 1, instr(s, ' ') - 1) AS s,
           substr(y, 1, instr(y, ' ') - 1) AS y, substr(b, 1, instr(b, ' ') - 1) AS b,
           substr(g, 1, instr(g, ' ') - 1) AS g, substr(o, 1, instr(o, ' ') - 1) AS o
      FROM kd2),
  -- unsigned 32-bit integers (xprof's SimpleAtoi into uint32); dims: three unsigned integers
  kd4 AS MATERIALIZED (
    SELECT file, pid, name, op_name, module, n, total, mn, mx,
           CASE WHEN r GLOB '[0-9]*' AND r NOT GLOB '*[^0-9]*' AND CAST(r AS INTEGER) <= 4294967295
                THEN CAST(r AS INTEGER) END AS regs,
           CASE WHEN s GLOB '[0-9]*' AND s NOT GLOB '*[^0-9]*' AND CAST(s AS INTEGER) <= 4294967295
                THEN CAST(s AS INTEGER) END AS sshm,
           CASE WHEN y GLOB '[0-9]*' AND y NOT GLOB '*[^0-9]*' AND CAST(y AS INTEGER) <= 4294967295
                THEN CAST(y AS INTEGER) END AS dshm,
           CASE WHEN b GLOB '[0-9]*,[0-9]*,[0-9]*' AND b NOT GLOB '*[^0-9,]*' AND b NOT GLOB '*,*,*,*' AND b NOT GLOB '*,'
                THEN b END AS b,
           CASE WHEN g GLOB '[0-9]*,[0-9]*,[0-9]*' AND g NOT GLOB '*[^0-9,]*' AND g NOT GLOB '*,*,*,*' AND g NOT GLOB '*,'
                THEN g END AS g,
           CASE WHEN o GLOB '*[0-9]*' AND o NOT GLOB '*[^0-9.eE+-]*' THEN CAST(o AS REAL) END AS occ
      FROM kd3),
  -- the dims written with their integers ('01,2,3' and '1,2,3' are one launch shape), then the
  -- groups merged by what xprof keys a kernel report on (plus the module)
  kg AS (
    SELECT file, name, op_name, module, regs, sshm, dshm, block_dim, grid_dim, sum(n) AS n, sum(total) AS total,
           min(mn) AS mn, max(mx) AS mx, sum(occ * n) / sum(CASE WHEN occ IS NOT NULL THEN n END) AS occ,
           count(DISTINCT pid) AS devices
      FROM (SELECT file, pid, name, op_name, module, n, total, mn, mx, regs, sshm, dshm, occ,
                   CAST(substr(b, 1, instr(b, ',') - 1) AS INTEGER) || ',' ||
                   CAST(substr(b2, 1, instr(b2, ',') - 1) AS INTEGER) || ',' ||
                   CAST(substr(b2, instr(b2, ',') + 1) AS INTEGER) AS block_dim,
                   CAST(substr(g, 1, instr(g, ',') - 1) AS INTEGER) || ',' ||
                   CAST(substr(g2, 1, instr(g2, ',') - 1) AS INTEGER) || ',' ||
                   CAST(substr(g2, instr(g2, ',') + 1) AS INTEGER) AS grid_dim
              FROM (SELECT kd4.*, substr(b, instr(b, ',') + 1) AS b2, substr(g, instr(g, ',') + 1) AS g2 FROM kd4))
     GROUP BY file, name, op_name, module, regs, sshm, dshm, block_dim, grid_dim)
SELECT file, name AS kernel_name, op_name, module, n AS occurrences, total AS total_ns, 1.0 * total / n AS avg_ns,
       mn AS min_ns, mx AS max_ns, regs AS registers_per_thread, sshm AS static_shmem_bytes,
       dshm AS dynamic_shmem_bytes, block_dim, grid_dim, occ AS occupancy_pct,
       -- xprof's kTensorCoreKernelNamePatterns
       EXISTS (SELECT 1 FROM json_each('["16816","c1688","conv1x1","conv2d_c1_k1","dgrad_1x1_stride_2x2",' ||
                 '"direct_group","first_layer_wgrad_kernel","h1688","h884","hmma","i16832","i8816","s884",' ||
                 '"s1688","xmma_gemm","xmma_implicit_gemm","xmma_sparse_conv","xmma_sparse_gemm",' ||
                 '"xmma_warp_specialized_implicit_gemm"]') WHERE instr(kg.name, value) > 0) AS uses_tensor_core,
       devices,
       row_number() OVER (PARTITION BY file ORDER BY total DESC, name, op_name, module, block_dim, grid_dim, regs,
                                                     sshm, dshm) AS rank
  FROM kg;

DROP VIEW IF EXISTS temp.xprof_step_time;
CREATE TEMP VIEW xprof_step_time AS
WITH
  -- one read of `events`, args read once (each read of the column builds its JSON again); then
  -- the rows that can mark steps
  x0(file, pid, plane, line, ts, dur, name, j) AS MATERIALIZED (
    SELECT coalesce(file, ''), pid, process_name, thread_name, ts, dur, name,
           json_extract(args, '$.step_num', '$.group_id', '$.step_name')
      FROM events WHERE duration_ps IS NOT NULL AND dur IS NOT NULL),
  x(file, pid, plane, line, ts, dur, name, step_num, group_id, step_name) AS MATERIALIZED (
    SELECT file, pid, plane, line, ts, dur, name, json_extract(j, '$[0]'), json_extract(j, '$[1]'), json_extract(j, '$[2]')
      FROM x0 WHERE line = 'Steps' OR j <> '[null,null,null]'),
  by_line(file, src, pid, plane, step_num, step_name, ts, dur) AS MATERIALIZED (
    SELECT file, 'Steps line', pid, plane,
           coalesce(step_num, group_id,
                    CASE WHEN name GLOB '[0-9]*' AND name NOT GLOB '*[^0-9]*' AND length(name) <= 18
                         THEN CAST(name AS INTEGER) END),
           coalesce(CAST(step_name AS TEXT), name), ts, dur
      FROM x WHERE plane GLOB '/device:*' AND line = 'Steps'),
  -- host step markers: a step spans all the markers of its number; named by the longest one
  marker AS (
    SELECT file, step_num, name, ts, dur,
           row_number() OVER (PARTITION BY file, step_num ORDER BY dur DESC, ts, name) AS rn,
           min(ts) OVER (PARTITION BY file, step_num) AS t0, max(ts + dur) OVER (PARTITION BY file, step_num) AS t1
      FROM x
     WHERE step_num IS NOT NULL AND plane NOT GLOB '/device:*' AND line IS NOT 'Steps'
       AND file NOT IN (SELECT file FROM by_line)),
  by_marker(file, src, pid, plane, step_num, step_name, ts, dur) AS MATERIALIZED (
    SELECT file, 'step_num', NULL, NULL, step_num, name, t0, t1 - t0 FROM marker WHERE rn = 1),
  grouped AS (
    SELECT file, group_id, min(ts) AS t0, max(ts + dur) AS t1
      FROM x
     WHERE group_id IS NOT NULL AND line IS NOT 'Steps'
       AND file NOT IN (SELECT file FROM by_line) AND file NOT IN (SELECT file FROM by_marker)
     GROUP BY file, group_id),
  steps(k, file, src, pid, plane, step_num, step_name, ts, dur) AS MATERIALIZED (
    SELECT row_number() OVER (), * FROM (
      SELECT * FROM by_line
      UNION ALL SELECT * FROM by_marker
      UNION ALL SELECT file, 'group_id', NULL, NULL, group_id, CAST(group_id AS TEXT), t0, t1 - t0 FROM grouped)),
  -- the device op intervals, merged per plane into disjoint busy segments
  ops(file, pid, s, e) AS MATERIALIZED (
    SELECT coalesce(file, ''), pid, ts, ts + dur FROM xprof_op_events WHERE device AND dur > 0),
  ops2 AS (
    SELECT file, pid, s, e,
           max(e) OVER (PARTITION BY file, pid ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pe
      FROM ops),
  ops3 AS (
    SELECT file, pid, s, e,
           sum(pe IS NULL OR s > pe) OVER (PARTITION BY file, pid ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS seg
      FROM ops2),
  seg(file, pid, s, e) AS MATERIALIZED (
    SELECT file, pid, min(s), max(e) FROM ops3 GROUP BY file, pid, seg),
  planes(file, pid) AS MATERIALIZED (SELECT DISTINCT file, pid FROM seg),
  -- (step, plane) pairs: the step's own plane, or every device plane with ops
  q(k, file, pid, t0, t1) AS MATERIALIZED (
    SELECT st.k, p.file, p.pid, st.ts, st.ts + st.dur
      FROM steps st JOIN planes p ON p.file = st.file AND (st.pid IS NULL OR p.pid = st.pid)),
  -- busy time before t = (lengths of the segments starting at or before t) - (the part of the
  -- last of them after t): one pass over segments and step ends in time order
  pts(file, pid, t, kind, len, e, k, sign) AS (
    SELECT file, pid, s, 0, e - s, e, NULL, NULL FROM seg
    UNION ALL SELECT file, pid, t0, 1, 0, NULL, k, -1 FROM q
    UNION ALL SELECT file, pid, t1, 1, 0, NULL, k, 1 FROM q),
  upto(k, sign, pid, b) AS (
    SELECT k, sign, pid,
           sum(len) OVER w - max(0, coalesce(max(e) OVER w, t) - t)
      FROM pts
    WINDOW w AS (PARTITION BY file, pid ORDER BY t, kind ROWS UNBOUNDED PRECEDING)),
  per_step(k, busy, devices) AS MATERIALIZED (
    SELECT k, sum(sign * b), count(DISTINCT pid) FROM upto WHERE k IS NOT NULL GROUP BY k)
SELECT nullif(st.file, '') AS file, st.src AS step_source, st.pid, st.plane, st.step_num, st.step_name,
       st.ts, st.dur AS dur_ns, coalesce(ps.busy, 0) AS device_busy_ns, coalesce(ps.devices, 0) AS devices,
       CASE WHEN st.dur > 0 AND ps.devices > 0 THEN 1.0 * ps.busy / (st.dur * ps.devices) END AS device_busy_share
  FROM steps st LEFT JOIN per_step ps ON ps.k = st.k;
