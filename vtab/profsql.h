/*
** profsql.h — the public header of libprofsql: the two entry points, for programs that link
** libprofsql.a (or libprofsql.so) with SQLite instead of loading the extension at run time.
**
**   #include <sqlite3.h>
**   #include <profsql.h>
**   sqlite3_open(":memory:", &db);
**   sqlite3_profsql_init(db, &zErr, 0);      -- or sqlite3_auto_extension() for every connection
**   ... SELECT * FROM profile_events('trace.json') ...
**
** Build and link: `cc prog.c $(pkg-config --cflags --libs --static libprofsql)` (libprofsql.pc
** names libprofsql.a; `make static` builds it with -DSQLITE_CORE, so it calls SQLite directly and
** pApi is unused: pass 0). libprofsql.so is the loadable extension: SQLite passes it pApi when
** it loads it; called directly with pApi 0 its entry points return SQLITE_MISUSE.
**
**   sqlite3_profsql_init       registers every table and function (profile_events,
**                              profile_records, profile_jobs, profile_xplanes, profile_metadata,
**                              profile_open, profile_import, profile_report, profile_write_csv,
**                              ..., profsql_config): docs/index.md lists them.
**   sqlite3_profsql_noio_init  the same without file access: captures come only as BLOBs and no
**                              function writes files; for hosts that run untrusted SQL
**                              (docs/security.md).
** Both return SQLITE_OK or an SQLite error code (SQLITE_NOMEM when a registration could not
** allocate); *pzErrMsg is not set (it may be NULL). Call one of them once per connection.
*/
#ifndef PROFSQL_H
#define PROFSQL_H

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PROFSQL_VERSION_MAJOR 0

int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const struct sqlite3_api_routines *pApi);
int sqlite3_profsql_noio_init(sqlite3 *db, char **pzErrMsg, const struct sqlite3_api_routines *pApi);

#ifdef __cplusplus
}
#endif

#endif
