-- self_time.sql — self time of every slice: its dur minus the dur of its direct children.
--
-- Input: a table or view named `events` with columns id, parent_id, name, dur (ns), e.g.
--   CREATE TEMP VIEW events AS SELECT * FROM profile_events('trace.json');
--   .read sql/self_time.sql
-- Output: TEMP view `events_self_time(id, name, dur, child_ns, self_ns)`; rows whose dur is NULL
-- (never ended) are left out. Children with a NULL dur count as 0.
DROP VIEW IF EXISTS temp.events_self_time;
CREATE TEMP VIEW events_self_time AS
SELECT e.id, e.name, e.dur,
       coalesce(c.child_ns, 0) AS child_ns,
       e.dur - coalesce(c.child_ns, 0) AS self_ns
  FROM events e
  LEFT JOIN (SELECT parent_id, sum(dur) AS child_ns FROM events
              WHERE parent_id IS NOT NULL GROUP BY parent_id) c ON c.parent_id = e.id
 WHERE e.dur IS NOT NULL;
