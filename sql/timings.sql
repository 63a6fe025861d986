-- timings.sql — the PocketMine-MP / Spigot timings viewer's figures as TEMP views (PLACEHOLDER,
-- being written for issue 17).
CREATE TEMP VIEW IF NOT EXISTS timings_summary AS SELECT NULL AS file WHERE 0;
CREATE TEMP VIEW IF NOT EXISTS timings_records AS SELECT NULL AS file WHERE 0;
CREATE TEMP VIEW IF NOT EXISTS timings_list AS SELECT NULL AS file WHERE 0;
