/*
** report_groups.h — profile_report's ranked groupings computed in one pass (vtab/report_groups.c).
**
** The report ranks the completed jobs grouped seven ways (offender key, source, method key, lane,
** owner, category, status). Each grouping is the SQL
**
**   SELECT <key> AS key, min(k) AS k0, count(*) AS n, sum(failed_) AS failed, sum(slow_) AS slow,
**          sum(e_) AS tot, max(e_) AS mx, max(l_) AS ml, sum(pb_) AS pb, sum(ob_) AS ob
**     FROM profsql_rj WHERE done_ GROUP BY <key>
**
** which SQLite runs as one sort of every job per grouping. ps_report_groups computes all of them
** from one scan, with a hash table per grouping, and gives the same rows: keys compared as GROUP BY
** compares them (NULL one group, an integer equal to the real of the same value, text byte for
** byte), each group's key the value of its last row (3 or 3.0: SQLite's GROUP BY gives the last), sum() and max() with SQLite's result types
** (an integer sum while every value is an integer, else the real sum in job order, the order
** SQLite's stable sorter feeds a group in; NULL for a group of NULLs).
*/
#ifndef PS_REPORT_GROUPS_H
#define PS_REPORT_GROUPS_H

#include <sqlite3ext.h>

/* The largest number of groups one grouping keeps in memory: max(PS_GROUPS_MIN, nJobs / 16). A
** grouping with more (a key unique to nearly every job) is left to SQL, whose sorter spills to
** disk, so that the pass stays within a small multiple of the jobs it reads. */
#define PS_GROUPS_MIN 4096

/* Steps pScan, whose columns are: k, e_, l_, failed_, slow_, pb_, ob_, then nKey key columns (the
** completed jobs, in k order), and inserts each grouping g's rows into temp table azTable[g]
** (columns key, k0, n, failed, slow, tot, mx, ml, pb, ob) and sum(e_) over every row into
** temp table zTotal (column total). nJobs sizes the cap above.
**
** aDone[g] is set to 1 for each grouping written; a grouping left at 0 (more groups than the cap,
** an integer sum that overflows) is for the caller to compute by SQL. When a value is not a
** number or NULL (the SQL's conversions would apply), nothing is written, every aDone[g] is 0 and
** *pbTotal is 0; else *pbTotal is 1.
**
** Returns SQLITE_OK, or the error of the scan or of an insert (SQLITE_INTERRUPT when the
** statement is interrupted, SQLITE_NOMEM) with *pzErr (sqlite3_malloc'ed) saying why. */
int ps_report_groups(sqlite3 *db, sqlite3_stmt *pScan, int nKey, const char *const *azTable,
                     const char *zTotal, sqlite3_int64 nJobs, int *aDone, int *pbTotal, char **pzErr);

#endif
