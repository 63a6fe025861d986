/*
** report_groups.h — profile_report's groupings of the completed jobs computed in one pass
** (vtab/report/report_groups.c).
**
** The report groups the completed jobs many ways: ranked by offender key, source, method key,
** lane, owner and category, counted by status, totalled over all jobs; in the Markdown of a
** trace, by thread and by name. Each is an SQL GROUP BY such as
**
**   SELECT <key> AS key, min(k) AS k0, count(*) AS n, sum(failed_), sum(e_), max(e_), ...
**     FROM profsql_rj WHERE done_ GROUP BY <key>
**
** which SQLite runs as one sort of every job per grouping. ps_report_groups computes several
** from one scan, with a hash table per grouping, and gives the same rows: keys compared as GROUP
** BY compares them (NULL one group, an integer equal to the real of the same value, text byte for
** byte; several key columns compared column by column), a one-column key given as the value of
** the group's last row (3 or 3.0: SQLite's GROUP BY gives the last), sum() and max() with
** SQLite's result types (an integer sum while every value is an integer, else the real sum in
** job order, the order SQLite's stable sorter feeds a group in; NULL for a group of NULLs), and
** group_concat(DISTINCT x) of text in the order first seen. The same scan picks the report's
** ranked lists of jobs (PsTopList: an ORDER BY ... LIMIT each, a sort of every job in SQL).
*/
#ifndef PS_REPORT_GROUPS_H
#define PS_REPORT_GROUPS_H

#include <sqlite3ext.h>

/* The largest number of groups one grouping keeps in memory: max(PS_GROUPS_MIN, nJobs / 32). A
** grouping with more (a key unique to nearly every job) is left to SQL, whose sorter spills to
** disk, so that the pass stays within a small multiple of the jobs it reads. */
#define PS_GROUPS_MIN 4096

/* The aggregate of a value column. */
#define PS_AGG_SUM      1   /* sum(x): numbers or NULL */
#define PS_AGG_MAX      2   /* max(x): numbers or NULL */
#define PS_AGG_DISTINCT 3   /* group_concat(DISTINCT x): text or NULL; more than 64 distinct
                            ** texts in a group leave the grouping to SQL */
#define PS_AGG_MIN      4   /* min(x): numbers or NULL */

/* A grouping: the temp table its rows go to, its key columns in the scan (iKey .. iKey+nKey-1;
** nKey 0: every row in one group, no row when the scan has none), the value columns it
** aggregates (bit v for value v, at most 32 values; 0: all; the others are written NULL and hold
** no memory), and the scan column that
** must be true (a non-zero number) for a row to count (iWhere; 0: every row counts). */
typedef struct PsGrouping { const char *zTable; int iKey, nKey; unsigned mVal; int iWhere; } PsGrouping;

/* Values gathered from the same scan: the non-NULL values of value column iVal (its 0-based
** index among the values) in the rows where scan column iWhere is true (0: every row), appended
** to a (malloc'ed; the caller frees it) as doubles; n of them; bComplete 1 when the scan read
** every row and every value was a number. */
typedef struct PsCollect { int iVal, iWhere; double *a; sqlite3_int64 n, nAlloc; int bComplete; } PsCollect;

/* A count from the same scan: the rows where scan column iWhere is true (0: every row) and scan
** column iCol is not NULL; n of them; bComplete 1 when the scan read every row. */
typedef struct PsCount { int iCol, iWhere; sqlite3_int64 n; int bComplete; } PsCount;

/* A ranked list picked from the same scan: the k (scan column 0) of the rows where scan column
** iWhere is true (0: every row), ordered by scan columns aiKey[0..nKey) (abDesc[c] 1:
** descending), then by k, as SQLite's ORDER BY orders values (NULL first, then numbers by value
** whatever their type, then text byte by byte, then blobs); its first nMax, as ORDER BY ... LIMIT
** nMax gives them. Out: aK[0..n) (malloc'ed; the caller frees it), bComplete 1 when the scan read
** every row. */
#define PS_TOP_KEYS 3
typedef struct PsTopList {
  int iWhere, nKey, aiKey[PS_TOP_KEYS], abDesc[PS_TOP_KEYS];
  sqlite3_int64 nMax;
  sqlite3_int64 *aK, n;
  int bComplete;
} PsTopList;

/* Scans "SELECT <zCols> <zFrom>" (xBind(pBind, stmt), when given, binds its parameters), whose
** columns are k (the jobs in k order), nVal value columns aggregated as aAgg says, then the key
** (and filter) columns, and inserts each grouping g's rows into temp table aGroup[g].zTable:
** key (a one-column key's value; NULL for others), k0 = min(k), n = count(*), then the nVal
** aggregates. nJobs sizes the cap above. aColl[0..nColl) (may be NULL) gathers values as well,
** aCount[0..nCount) (may be NULL) counts rows, and aTop[0..nTop) (may be NULL) picks ranked
** lists.
**
** The scan runs as "SELECT count(profsql_rp_row(:profsql_rp_scan, <zCols>)) <zFrom>", the scan's
** state bound as a pointer (sqlite3_bind_pointer, type PS_GROUPS_POINTER), so that each row's
** columns reach the groupings as the function's arguments: reading them with sqlite3_column_*
** takes the connection's mutex for each value. The columns count against the connection's
** SQLITE_LIMIT_FUNCTION_ARG (the report's scan has 36, fewer than the 70 the report's JSON objects already need).
**
** aDone[g] is set to 1 for each grouping written; a grouping left at 0 (more groups than the cap,
** more distinct texts than 64, an integer sum that overflows) is for the caller to compute by
** SQL. When a value is not of the type its aggregate takes (the SQL's conversions would apply),
** nothing is written and every aDone[g] is 0.
**
** Returns SQLITE_OK, or the error of the scan or of an insert (SQLITE_INTERRUPT when the
** statement is interrupted, SQLITE_NOMEM) with *pzErr (sqlite3_malloc'ed) saying why. */
int ps_report_groups(sqlite3 *db, const char *zCols, const char *zFrom,
                     void (*xBind)(void*, sqlite3_stmt*), void *pBind, int nVal, const int *aAgg,
                     int nGroup, const PsGrouping *aGroup, int nColl, PsCollect *aColl,
                     int nCount, PsCount *aCount, int nTop, PsTopList *aTop, sqlite3_int64 nJobs,
                     int *aDone, char **pzErr);

/* The pointer type of the scan's state (sqlite3_bind_pointer / sqlite3_value_pointer). */
#define PS_GROUPS_POINTER "profsql_rp_scan"

/* SQL function profsql_rp_row(state, k, values..., keys...): adds one row to the scan whose state
** argument 1 is (a pointer bound by ps_report_groups: SQL cannot make one); returns NULL. Called
** any other way it fails with "profsql_rp_row: internal to profile_report, not for use in SQL".
** Registered (variadic, SQLITE_DIRECTONLY) by ps_report_register, for ps_report_groups' scan. */
void ps_report_groups_row(sqlite3_context *ctx, int argc, sqlite3_value **argv);

#endif
