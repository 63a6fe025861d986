/*
** flamegraph.c — the flame graph writers (ext/writers/flame.c draws; docs/profile_flamegraph.md):
**
**   SELECT profile_flamegraph(source, path [, options_json]);
**   SELECT profile_flamegraph_folded(path, query [, options_json]);
**
** profile_flamegraph writes a self-contained interactive SVG flame graph of a capture to path
** (temporary file + rename): its stack samples (pprof, perf script, V8 CPU profiles, Chrome
** 'samples', ...), else its timer records by ParentRecordId, else its slices by parent_id
** (Chrome, XSpace XEvents, lms markers), else its newengine jobs (category -> lane -> job name,
** width = elapsed_ms). options_json, an object; every key optional:
**   "group"    "track" (default: one first-level frame per thread track or CPU track, named from
**              the track model: "process / thread", "CPU n"; timings: category) | "thread" (async
**              slices, with "async", under their thread) | "none" (merged)
**   "async"    true: draw the async tracks' slices too, one first-level frame per kind ("async
**              (process)", "async (global)", "async (thread)"); false (default): left out
**   "title"    the graph's title (default: the source path, or "BLOB")
**   "weight"   "dur" (default: width = inclusive time) | "self" (reversed graph: under each
**              group the frame the time was spent in, then its callers) | "samples" (counts:
**              sample weights, 1 per slice or job, a timer record's Count)
**   "pid", "tid"          a process / thread id: INTEGER, or TEXT for ids written as strings
**   "process", "thread"   a process / thread name (TEXT), or its id (INTEGER; "thread" also
**              takes a tid as TEXT, "1234"). They select by the track model: a thread's own
**              track (async tracks only with "async"; CPU tracks never under a thread filter)
**   "plane"    XSpace only: a plane's name (TEXT, "/device:GPU:0") or index (INTEGER)
**   "ts_from", "ts_to"    INTEGER ns on the capture's clock: rows overlapping [ts_from, ts_to)
**              are drawn, clipped to it (a slice's self time is its clipped dur minus its
**              children's clipped dur); jobs whose [started, ended] overlaps it, whole
**   "name"     a POSIX extended regular expression (as grep -E, unanchored, case-sensitive):
**              only the stacks with a frame whose name it matches
**   "exclude"  the same: the stacks with a frame whose name it matches are left out (with them
**              everything under that frame), e.g. {"exclude": "start_trace"}
**   "baseline" a source (TEXT: a file, a directory, a glob): a differential flame graph, the
**              frames coloured by their change against it as flamegraph.pl --diff colours them
**              (ext/writers/flame.h, ps_flame_svg_diff); the baseline read with the same options
**   "normalize" true: the baseline scaled to the test's total first (compare shares)
**   "sandwich" a function's name: its callers drawn upwards above it, its callees below
**              (ext/writers/flame.h, ps_flame_svg_sandwich; profile_sandwich gives the rows)
** The thread filters (pid .. plane) keep the rows of the threads matching all of them; it is an
** error when no thread does, or when the capture has no threads (timer records, jobs).
** Returns {"path":..., "bytes":N, "total_ms":X (or "total_samples" / "total_weight" /
** "total_calls"), "weight":"dur", "filters":{the filter keys as given}, "rows":N (source rows
** drawn), "frames":N (frames drawn, the root included)}.
**
** profile_flamegraph_folded draws the folded stacks a query returns: query is one SELECT whose
** rows are (stack TEXT with frames joined by ';', value INTEGER >= 0), e.g.
** 'SELECT stack, self_ns FROM event_folded'. Rows with equal stacks add up; empty frames (";;",
** a leading or trailing ';') are dropped. options_json: "title" (default "Flame graph"), "unit"
** ("samples" (default: values are counts) | "ns" (values are ns, drawn as ms)), "weight" ("dur"
** | "self"), "name", "exclude" (as above), "baseline" (a second query of (stack, value) rows: a
** differential graph), "normalize". Returns the same JSON ("filters" then holds name and
** exclude).
**
** Both are SQLITE_DIRECTONLY (they write files; the folded form also runs the query it is given).
** Errors: those of loading the capture; "the capture has no parent tree (no slices, timer
** records or jobs)"; "unknown option 'x' (known: ...)"; an option's bad value, named with what it
** takes; an invalid regular expression (regerror's text); "no thread matches ..."; the query's
** own errors, "query must be one statement", "query must return 2 columns (stack, value), not N",
** "row N: stack is NULL / not TEXT", "row N: value must be an INTEGER >= 0, not ..."; and
** "cannot write '<path>': ...".
*/
#include "ps_vtab.h"
#include "../ext/writers/flame.h"
#include "../ext/writers/writer.h"
SQLITE_EXTENSION_INIT3

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The options being read: what flame.c takes, the compiled patterns and the thread filters. */
typedef struct FgOpt {
  PsFlameOpt o;
  char zTitle[300];
  regex_t reName, reExclude;
  int bName, bExclude;
  sqlite3_value *apThread[5];    /* pid, tid, process, thread, plane (copies), or NULL */
  const char *zWeight;           /* "dur", "self", "samples" (static) */
  char *zFilters;                /* the filter keys as given, JSON (sqlite3_malloc'ed) */
  char *zErr;                    /* sqlite3_malloc'ed error */
  sqlite3_value *pBaseline;      /* "baseline": a source (profile_flamegraph) or a query (folded), or NULL */
  char *zSandwich;               /* "sandwich": a function's name (sqlite3_malloc'ed), or NULL */
} FgOpt;

enum { FG_PID, FG_TID, FG_PROCESS, FG_THREAD, FG_PLANE };
static const char *const azThreadKey[] = { "pid", "tid", "process", "thread", "plane" };

static void fg_opt_free(FgOpt *p){
  if( p->bName ) regfree(&p->reName);
  if( p->bExclude ) regfree(&p->reExclude);
  for(int i=0; i<5; i++) sqlite3_value_free(p->apThread[i]);
  sqlite3_free(p->zFilters);
  sqlite3_free(p->zErr);
  sqlite3_value_free(p->pBaseline);
  sqlite3_free(p->zSandwich);
}

/* z as the title, cut to fit zTitle before a character, never inside one (a title cut in a
** character would be a broken one in the SVG; flame.c repairs what it is given anyway). */
static void fg_title(FgOpt *p, const char *z){
  size_t n = strlen(z), m = n < sizeof(p->zTitle) ? n : sizeof(p->zTitle) - 1;
  while( m>0 && m<n && ((unsigned char)z[m] & 0xC0)==0x80 ) m--;
  memcpy(p->zTitle, z, m);
  p->zTitle[m] = 0;
  p->o.zTitle = p->zTitle;
}

static int fg_err(FgOpt *p, const char *zFunc, const char *zFmt, const char *zArg){
  sqlite3_free(p->zErr);
  char *m = sqlite3_mprintf(zFmt, zArg);
  p->zErr = m ? sqlite3_mprintf("%s: %s", zFunc, m) : 0;
  sqlite3_free(m);
  return SQLITE_ERROR;
}

static int fg_regex(FgOpt *p, const char *zFunc, const char *zKey, const char *z, regex_t *re, int *pb){
  int rc = regcomp(re, z, REG_EXTENDED|REG_NOSUB);
  if( rc ){
    char buf[200];
    regerror(rc, re, buf, sizeof(buf));
    char *m = sqlite3_mprintf("option \"%s\": invalid regular expression '%s': %s", zKey, z, buf);
    fg_err(p, zFunc, "%s", m ? m : "out of memory");
    sqlite3_free(m);
    return SQLITE_ERROR;
  }
  *pb = 1;
  return SQLITE_OK;
}

/* Reads options_json (pOpts, may be NULL) into p. bFolded: profile_flamegraph_folded's keys. */
static int fg_options(sqlite3 *db, sqlite3_value *pOpts, int bFolded, FgOpt *p){
  const char *zFunc = bFolded ? "profile_flamegraph_folded" : "profile_flamegraph";
  const char *zKnown = bFolded ? "title, unit, weight, name, exclude, baseline, normalize"
    : "group, async, title, weight, pid, tid, process, thread, plane, ts_from, ts_to, name, exclude, baseline, normalize, sandwich";
  ps_flame_opt_init(&p->o);
  p->zWeight = "dur";
  if( pOpts==0 || sqlite3_value_type(pOpts)==SQLITE_NULL ){
    p->zFilters = sqlite3_mprintf("{}");
    return p->zFilters ? SQLITE_OK : SQLITE_NOMEM;
  }
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db,
    "SELECT key, type, value FROM json_each(?1) WHERE json_valid(?1) AND json_type(?1)='object'",
    -1, &st, 0);
  if( rc ) return rc;
  sqlite3_bind_value(st, 1, pOpts);
  if( sqlite3_value_type(pOpts)!=SQLITE_TEXT ){
    sqlite3_finalize(st);
    return fg_err(p, zFunc, "options_json must be a JSON object (TEXT), e.g. %s",
                  bFolded ? "{\"unit\": \"ns\"}" : "{\"group\": \"track\", \"weight\": \"self\"}");
  }
  {
    /* not an object: json_each yields nothing, so ask first */
    sqlite3_stmt *chk = 0;
    int ok = sqlite3_prepare_v2(db, "SELECT json_valid(?1) AND json_type(?1)='object'", -1, &chk, 0)==SQLITE_OK;
    if( ok ){ sqlite3_bind_value(chk, 1, pOpts); ok = sqlite3_step(chk)==SQLITE_ROW && sqlite3_column_int(chk, 0); }
    sqlite3_finalize(chk);
    if( !ok ){
      sqlite3_finalize(st);
      return fg_err(p, zFunc, "options_json must be a JSON object, e.g. %s",
                    bFolded ? "{\"unit\": \"ns\"}" : "{\"group\": \"track\", \"weight\": \"self\"}");
    }
  }
  rc = SQLITE_OK;
  const char *zRowOpt = 0;       /* an option that picks rows or groups them (a sandwich has neither) */
  while( rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *zKey = (const char*)sqlite3_column_text(st, 0);
    const char *zType = (const char*)sqlite3_column_text(st, 1);
    sqlite3_value *v = sqlite3_column_value(st, 2);
    const char *zVal = (const char*)sqlite3_column_text(st, 2);
    int bText = zType && strcmp(zType, "text")==0, bInt = zType && strcmp(zType, "integer")==0;
    if( zKey==0 ) zKey = "";
    if( strcmp(zKey, "title")==0 ){
      if( !bText ){ rc = fg_err(p, zFunc, "option \"title\" must be a string", 0); break; }
      fg_title(p, zVal);
    }else if( strcmp(zKey, "weight")==0 ){
      if( bText && strcmp(zVal, "dur")==0 ){ p->o.eWeight = PS_FLAME_W_DUR; p->zWeight = "dur"; }
      else if( bText && strcmp(zVal, "self")==0 ){ p->o.eWeight = PS_FLAME_W_SELF; p->zWeight = "self"; }
      else if( bText && !bFolded && strcmp(zVal, "samples")==0 ){ p->o.eWeight = PS_FLAME_W_SAMPLES; p->zWeight = "samples"; }
      else rc = fg_err(p, zFunc, bFolded ? "option \"weight\" must be \"dur\" or \"self\", not %s"
                                         : "option \"weight\" must be \"dur\", \"self\" or \"samples\", not %s",
                       bText ? zVal : zType);
    }else if( strcmp(zKey, "name")==0 || strcmp(zKey, "exclude")==0 ){
      int bEx = zKey[0]=='e';
      if( !bText ){ rc = fg_err(p, zFunc, "option \"%s\" must be a string (a POSIX extended regular expression)", zKey); break; }
      if( (bEx ? p->bExclude : p->bName) ) continue;
      rc = fg_regex(p, zFunc, zKey, zVal, bEx ? &p->reExclude : &p->reName, bEx ? &p->bExclude : &p->bName);
      if( bEx ) p->o.pExclude = &p->reExclude; else p->o.pName = &p->reName;
    }else if( bFolded && strcmp(zKey, "unit")==0 ){
      if( bText && strcmp(zVal, "ns")==0 ) p->o.bNs = 1;
      else if( bText && strcmp(zVal, "samples")==0 ) p->o.bNs = 0;
      else rc = fg_err(p, zFunc, "option \"unit\" must be \"samples\" or \"ns\", not %s", bText ? zVal : zType);
    }else if( !bFolded && strcmp(zKey, "group")==0 ){
      zRowOpt = "group";
      if( bText && strcmp(zVal, "track")==0 ) p->o.eGroup = PS_FLAME_TRACK;
      else if( bText && strcmp(zVal, "thread")==0 ) p->o.eGroup = PS_FLAME_THREAD;
      else if( bText && strcmp(zVal, "none")==0 ) p->o.eGroup = PS_FLAME_MERGED;
      else rc = fg_err(p, zFunc, "option \"group\" must be \"track\", \"thread\" or \"none\", not %s", bText ? zVal : zType);
    }else if( strcmp(zKey, "baseline")==0 ){
      if( !bText ){
        rc = fg_err(p, zFunc, bFolded ? "option \"baseline\" must be a query (TEXT) of (stack, value) rows%s"
                                      : "option \"baseline\" must be a source: a file, directory or glob (TEXT)%s", "");
        break;
      }
      sqlite3_value_free(p->pBaseline);
      if( (p->pBaseline = sqlite3_value_dup(v))==0 ) rc = SQLITE_NOMEM;
    }else if( !bFolded && strcmp(zKey, "sandwich")==0 ){
      if( !bText || zVal==0 ){ rc = fg_err(p, zFunc, "option \"sandwich\" must be a function's name (a string)%s", ""); break; }
      sqlite3_free(p->zSandwich);
      if( (p->zSandwich = sqlite3_mprintf("%s", zVal))==0 ) rc = SQLITE_NOMEM;
    }else if( strcmp(zKey, "normalize")==0 ){
      if( zType && strcmp(zType, "true")==0 ) p->o.bNormalize = 1;
      else if( zType && strcmp(zType, "false")==0 ) p->o.bNormalize = 0;
      else{ rc = fg_err(p, zFunc, "option \"normalize\" must be true or false, not %s", bText ? zVal : zType); break; }
    }else if( !bFolded && strcmp(zKey, "async")==0 ){
      if( zType && strcmp(zType, "true")==0 ) p->o.bAsync = 1;
      else if( zType && strcmp(zType, "false")==0 ) p->o.bAsync = 0;
      else{ rc = fg_err(p, zFunc, "option \"async\" must be true or false, not %s", bText ? zVal : zType); break; }
    }else if( !bFolded && (strcmp(zKey, "ts_from")==0 || strcmp(zKey, "ts_to")==0) ){
      if( !bInt ){ rc = fg_err(p, zFunc, "option \"%s\" must be an integer (ns on the capture's clock)", zKey); break; }
      int64_t t = sqlite3_value_int64(v);
      if( t==PS_NULL64 ) t++;
      if( zKey[3]=='f' ){ p->o.tsFrom = t; zRowOpt = "ts_from"; }else{ p->o.tsTo = t; zRowOpt = "ts_to"; }
    }else{
      int k = -1;
      for(int i=0; i<5 && !bFolded; i++) if( strcmp(zKey, azThreadKey[i])==0 ) k = i;
      if( k>=0 ) zRowOpt = azThreadKey[k];
      if( k<0 ){
        char *m = sqlite3_mprintf("unknown option '%s' (known: %s)", zKey, zKnown);
        rc = fg_err(p, zFunc, "%s", m ? m : "out of memory");
        sqlite3_free(m);
        break;
      }
      if( !bText && !bInt ){
        rc = fg_err(p, zFunc, "option \"%s\" must be a name (string) or an id (integer)", zKey);
        break;
      }
      sqlite3_value_free(p->apThread[k]);
      p->apThread[k] = sqlite3_value_dup(v);
      if( p->apThread[k]==0 ) rc = SQLITE_NOMEM;
    }
  }
  sqlite3_finalize(st);
  if( rc ) return rc;
  if( p->zSandwich && (p->pBaseline || p->o.eWeight!=PS_FLAME_W_DUR) ){
    return fg_err(p, zFunc, "option \"sandwich\" draws inclusive time of one capture: not with \"baseline\" or a \"weight\" other than \"dur\"%s", "");
  }
  if( p->zSandwich && zRowOpt ){
    /* the sandwich merges every occurrence of the function in the capture */
    return fg_err(p, zFunc, "option \"sandwich\" merges every occurrence in the capture: not with \"%s\"", zRowOpt);
  }
  if( p->o.bNormalize && p->pBaseline==0 ){
    return fg_err(p, zFunc, "option \"normalize\" scales a \"baseline\", and none is given%s", "");
  }
  if( p->o.tsFrom!=PS_NULL64 && p->o.tsTo!=PS_NULL64 && p->o.tsFrom >= p->o.tsTo ){
    return fg_err(p, zFunc, "ts_from must be less than ts_to%s", "");
  }
  /* the filters as given: the options without the drawing keys */
  if( sqlite3_prepare_v2(db, "SELECT json_remove(?1, '$.group', '$.async', '$.title', '$.weight', '$.unit', '$.baseline', "
                         "'$.normalize', '$.sandwich')", -1, &st, 0) ) return SQLITE_NOMEM;
  sqlite3_bind_value(st, 1, pOpts);
  if( sqlite3_step(st)==SQLITE_ROW ) p->zFilters = sqlite3_mprintf("%s", (const char*)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return p->zFilters ? SQLITE_OK : SQLITE_NOMEM;
}

/* Does TEXT option value v read as thread value tv (a tid) as written ("1234")? */
static int fg_value_text_eq(const PsCapture *cap, const PsValue *tv, sqlite3_value *v){
  char buf[64];
  if( tv->type!=PS_VAL_INT ) return 0;
  int n = snprintf(buf, sizeof(buf), "%lld", (long long)tv->i);
  return sqlite3_value_bytes(v)==n && memcmp(sqlite3_value_text(v), buf, (size_t)n)==0;
  (void)cap;
}

/* Does thread value tv (a pid or tid) equal option value v? */
static int fg_value_eq(const PsCapture *cap, const PsValue *tv, sqlite3_value *v){
  if( sqlite3_value_type(v)==SQLITE_INTEGER ) return tv->type==PS_VAL_INT && tv->i==sqlite3_value_int64(v);
  if( tv->type!=PS_VAL_TEXT ) return 0;
  PsStr s = ps_pool_get(&cap->pool, tv->s);
  return (size_t)sqlite3_value_bytes(v)==s.n && memcmp(sqlite3_value_text(v), s.z, s.n)==0;
}

static int fg_name_eq(const PsCapture *cap, uint32_t id, sqlite3_value *v){
  if( id==0 ) return 0;
  PsStr s = ps_pool_get(&cap->pool, id);
  return (size_t)sqlite3_value_bytes(v)==s.n && memcmp(sqlite3_value_text(v), s.z, s.n)==0;
}

/* The thread mask of the thread filters into *paKeep (sqlite3_malloc'ed; NULL without thread
** filters). SQLITE_ERROR with p->zErr when no thread matches, or "plane" on a non-XSpace. */
static int fg_threads(FgOpt *p, const PsCapture *cap, uint8_t **paKeep){
  *paKeep = 0;
  int bAny = 0;
  for(int k=0; k<5; k++) bAny |= p->apThread[k]!=0;
  if( !bAny ) return SQLITE_OK;
  if( p->apThread[FG_PLANE] && strcmp(cap->pFormat->zName, "xspace")!=0 ){
    return fg_err(p, "profile_flamegraph", "option \"plane\" applies to XSpace captures, not to %s", cap->pFormat->zName);
  }
  uint8_t *a = sqlite3_malloc64(cap->nThread + 1);
  if( a==0 ) return SQLITE_NOMEM;
  size_t nKeep = 0;
  for(size_t t=0; t<cap->nThread; t++){
    const PsThread *th = &cap->aThread[t];
    int keep = 1;
    for(int k=0; k<5 && keep; k++){
      sqlite3_value *v = p->apThread[k];
      if( v==0 ) continue;
      int bInt = sqlite3_value_type(v)==SQLITE_INTEGER;
      switch( k ){
        case FG_PID: keep = fg_value_eq(cap, &th->pid, v); break;
        case FG_TID: keep = fg_value_eq(cap, &th->tid, v); break;
        case FG_PROCESS: case FG_PLANE:
          keep = bInt ? fg_value_eq(cap, &th->pid, v) : fg_name_eq(cap, th->processName, v); break;
        case FG_THREAD:
          keep = bInt ? fg_value_eq(cap, &th->tid, v)
               : fg_name_eq(cap, th->threadName, v) || fg_value_eq(cap, &th->tid, v) || fg_value_text_eq(cap, &th->tid, v);
          break;
      }
    }
    a[t] = (uint8_t)keep;
    nKeep += keep;
  }
  *paKeep = a;
  int eSrc = ps_flame_source(cap);
  if( nKeep==0 && (eSrc==PS_FLAME_SRC_SLICES || eSrc==PS_FLAME_SRC_SAMPLES) ){
    return fg_err(p, "profile_flamegraph", "no thread matches the filters %s", p->zFilters);
  }
  return SQLITE_OK;
}

/* Writes the SVG and sets the result JSON. */
static void fg_write(sqlite3_context *ctx, const char *zFunc, const char *zPath, PsBuf *b,
                     const PsFlameInfo *info, const FgOpt *p){
  PsErr err; memset(&err, 0, sizeof(err));
  if( ps_write_file(zPath, b->z, b->n, &err) ){
    char *m = sqlite3_mprintf("%s: %s", zFunc, err.msg);
    sqlite3_result_error(ctx, m ? m : "out of memory", -1); sqlite3_free(m); return;
  }
  char *zTotal = info->bTime ? sqlite3_mprintf("\"total_ms\":%.3f", info->total/1e6)
                             : sqlite3_mprintf("\"total_%s\":%lld", info->zUnit, (long long)info->total);
  char *z = zTotal ? sqlite3_mprintf("{\"path\":\"%w\",\"bytes\":%lld,%s,\"weight\":\"%s\",\"filters\":%s,"
                                     "\"rows\":%lld,\"frames\":%lld}",
                                     zPath, (long long)b->n, zTotal, p->zWeight, p->zFilters,
                                     (long long)info->nRows, (long long)info->nFrames) : 0;
  sqlite3_free(zTotal);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_text(ctx, z, -1, sqlite3_free);
}

/* A PsErr from flame.c as the function's error. */
static void fg_result_err(sqlite3_context *ctx, const char *zFunc, int rc, const PsErr *err){
  if( rc==PS_NOMEM ){ sqlite3_result_error_nomem(ctx); return; }
  char *m = sqlite3_mprintf("%s: %s", zFunc, err->msg);
  sqlite3_result_error(ctx, m ? m : "out of memory", -1);
  sqlite3_free(m);
  if( err->rc==PS_INTERRUPT ) sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
}

static void flameFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PsConn *pConn = sqlite3_user_data(ctx);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  const char *zPath = (const char*)sqlite3_value_text(argv[1]);
  if( zPath==0 ){ sqlite3_result_error(ctx, "profile_flamegraph: expected (source, path [, options_json])", -1); return; }
  FgOpt opt; memset(&opt, 0, sizeof(opt));
  int rc = fg_options(db, argc>2 ? argv[2] : 0, 0, &opt);
  if( rc ){
    if( opt.zErr ) sqlite3_result_error(ctx, opt.zErr, -1); else sqlite3_result_error_code(ctx, rc);
    fg_opt_free(&opt); return;
  }
  if( opt.o.zTitle==0 ){
    fg_title(&opt, sqlite3_value_type(argv[0])==SQLITE_TEXT ? (const char*)sqlite3_value_text(argv[0]) : "BLOB");
  }
  char *zErr = 0;
  int rcLoad;
  PsCacheEntry *e = ps_vt_acquire(pConn, "profile_flamegraph", argv[0], 0, &zErr, &rcLoad);
  if( e==0 ){ ps_result_load_error(ctx, zErr, rcLoad); fg_opt_free(&opt); return; }
  const PsCapture *cap = e->cap;
  if( ps_flame_source(cap)==PS_FLAME_SRC_NONE ){
    ps_vt_release(e); fg_opt_free(&opt);
    sqlite3_result_error(ctx, "profile_flamegraph: the capture has no parent tree (no slices, timer records or jobs)", -1);
    return;
  }
  uint8_t *aKeep = 0;
  rc = fg_threads(&opt, cap, &aKeep);
  if( rc ){
    ps_vt_release(e);
    if( opt.zErr ) sqlite3_result_error(ctx, opt.zErr, -1); else sqlite3_result_error_nomem(ctx);
    sqlite3_free(aKeep); fg_opt_free(&opt); return;
  }
  opt.o.aThreadKeep = aKeep;
  PsPoll poll = { db, 0 };
  opt.o.xInterrupt = ps_poll_interrupt; opt.o.pInterruptArg = &poll;
  PsBuf b; memset(&b, 0, sizeof(b));
  PsErr err; memset(&err, 0, sizeof(err));
  PsFlameInfo info; memset(&info, 0, sizeof(info));
  /* a differential graph: the baseline loaded and filtered by the same options, by its own threads */
  PsCacheEntry *eBase = 0;
  uint8_t *aKeepBase = 0;
  PsFlameOpt oBase = opt.o;
  if( opt.pBaseline ){
    eBase = ps_vt_acquire(pConn, "profile_flamegraph: baseline", opt.pBaseline, 0, &zErr, &rcLoad);
    if( eBase==0 ){
      ps_vt_release(e); sqlite3_free(aKeep); sqlite3_finalize(poll.st);
      ps_result_load_error(ctx, zErr, rcLoad); fg_opt_free(&opt); return;
    }
    if( ps_flame_source(eBase->cap)==PS_FLAME_SRC_NONE ){
      zErr = sqlite3_mprintf("profile_flamegraph: baseline: the capture has no parent tree (no slices, timer records or jobs)");
      rc = SQLITE_ERROR;
    }else{
      rc = fg_threads(&opt, eBase->cap, &aKeepBase);
      if( rc && opt.zErr ){ zErr = sqlite3_mprintf("%s (in the baseline)", opt.zErr); }
    }
    if( rc ){
      ps_vt_release(e); ps_vt_release(eBase); sqlite3_free(aKeep); sqlite3_free(aKeepBase); sqlite3_finalize(poll.st);
      if( zErr ){ sqlite3_result_error(ctx, zErr, -1); sqlite3_free(zErr); } else sqlite3_result_error_nomem(ctx);
      fg_opt_free(&opt); return;
    }
    oBase.aThreadKeep = aKeepBase;
  }
  int rcF = eBase ? ps_flame_svg_diff(cap, eBase->cap, &opt.o, &oBase, &b, &info, &err)
          : opt.zSandwich ? ps_flame_svg_sandwich(cap, opt.zSandwich, &opt.o, &b, &info, &err)
          : ps_flame_svg_opt(cap, &opt.o, &b, &info, &err);
  char *zLost = 0;                       /* the baseline's mapped file cut short while read */
  if( eBase && rcF==PS_OK && ps_source_lost_error(&eBase->cap->src, &err) ){
    zLost = sqlite3_mprintf("profile_flamegraph: baseline: %s: %s", eBase->zPath ? eBase->zPath : "BLOB", err.msg);
    if( zLost==0 ) rcF = PS_NOMEM;
  }
  if( eBase ) ps_vt_release(eBase);
  sqlite3_free(aKeepBase);
  sqlite3_finalize(poll.st);
  sqlite3_free(aKeep);
  if( zLost ){
    ps_buf_free(&b); ps_vt_release(e); fg_opt_free(&opt);
    sqlite3_result_error(ctx, zLost, -1); sqlite3_free(zLost); return;
  }
  if( rcF==PS_OK && ps_source_lost_error(&cap->src, &err) ){
    /* the mapped file was cut short while the frames were named: no picture of zeros */
    ps_buf_free(&b);
    char *m = sqlite3_mprintf("profile_flamegraph: %s: %s", e->zPath ? e->zPath : "BLOB", err.msg);
    ps_vt_release(e); fg_opt_free(&opt);
    sqlite3_result_error(ctx, m ? m : "profile_flamegraph: out of memory", -1); sqlite3_free(m); return;
  }
  ps_vt_release(e);
  if( rcF ){ ps_buf_free(&b); fg_result_err(ctx, "profile_flamegraph", rcF, &err); fg_opt_free(&opt); return; }
  fg_write(ctx, "profile_flamegraph", zPath, &b, &info, &opt);
  ps_buf_free(&b);
  fg_opt_free(&opt);
}

/* profile_flamegraph_folded(path, query [, options_json]) */
/* The rows of query zSql (stack, value) added to *ppF (made here). zWhat names the query in
** messages ("query", "baseline"). SQLITE_OK; else an error with *pzErr (or SQLITE_NOMEM /
** SQLITE_INTERRUPT without one). */
/* profile_flamegraph_folded(path, query [, options_json]) */
/* The rows of query zSql (stack, value) added to *ppF (made here). zWhat names the query in
** messages ("query", "baseline"). SQLITE_OK; else an error with *pzErr (or SQLITE_NOMEM /
** SQLITE_INTERRUPT without one). */
static int fg_fold_query(sqlite3 *db, const char *zF, const char *zWhat, const char *zSql, PsPoll *pPoll,
                         PsFlameFolded **ppF, char **pzErr){
  sqlite3_stmt *st = 0;
  const char *zTail = 0;
  PsErr err; memset(&err, 0, sizeof(err));
  const char *zRow = strcmp(zWhat, "query")==0 ? "" : "baseline ";   /* "row 3" of the query, "baseline row 3" */
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, &zTail);
  if( rc ){ *pzErr = sqlite3_mprintf("%s: %s: %s", zF, zWhat, sqlite3_errmsg(db)); goto done; }
  while( zTail && (*zTail==' ' || *zTail=='\t' || *zTail=='\n' || *zTail=='\r' || *zTail==';') ) zTail++;
  if( st==0 || (zTail && *zTail) ){ *pzErr = sqlite3_mprintf("%s: %s must be one statement", zF, zWhat); rc = SQLITE_ERROR; goto done; }
  if( sqlite3_column_count(st)!=2 ){
    *pzErr = sqlite3_mprintf("%s: %s must return 2 columns (stack, value), not %d", zF, zWhat, sqlite3_column_count(st));
    rc = SQLITE_ERROR; goto done;
  }
  PsFlameFolded *pF = *ppF = ps_flame_folded_new();
  if( pF==0 ){ rc = SQLITE_NOMEM; goto done; }
  ps_flame_folded_interrupt(pF, ps_poll_interrupt, pPoll);
  int64_t iRow = 0;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    iRow++;
    int tS = sqlite3_column_type(st, 0), tV = sqlite3_column_type(st, 1);
    if( tS!=SQLITE_TEXT ){
      *pzErr = sqlite3_mprintf("%s: %srow %lld: stack is %s, not TEXT", zF, zRow, (long long)iRow,
                               tS==SQLITE_NULL ? "NULL" : tS==SQLITE_INTEGER ? "INTEGER" : tS==SQLITE_FLOAT ? "REAL" : "a BLOB");
      rc = SQLITE_ERROR; goto done;
    }
    int64_t v = sqlite3_column_int64(st, 1);
    if( tV!=SQLITE_INTEGER || v<0 ){
      const char *zV = (const char*)sqlite3_column_text(st, 1);
      *pzErr = sqlite3_mprintf("%s: %srow %lld: value must be an INTEGER >= 0, not %s%s%.40s", zF, zRow, (long long)iRow,
                               tV==SQLITE_NULL ? "NULL" : tV==SQLITE_FLOAT ? "REAL" : tV==SQLITE_TEXT ? "TEXT" : tV==SQLITE_BLOB ? "a BLOB" : "",
                               tV==SQLITE_NULL || tV==SQLITE_BLOB || tV==SQLITE_INTEGER ? "" : " ", tV==SQLITE_NULL || tV==SQLITE_BLOB || !zV ? "" : zV);
      rc = SQLITE_ERROR; goto done;
    }
    const char *z = (const char*)sqlite3_column_text(st, 0);
    int rcA = ps_flame_folded_add(pF, z ? z : "", (size_t)sqlite3_column_bytes(st, 0), v, &err);
    if( rcA==PS_NOMEM ){ rc = SQLITE_NOMEM; goto done; }
    if( rcA && err.rc==PS_INTERRUPT ){ rc = SQLITE_INTERRUPT; goto done; }
    if( rcA ){ *pzErr = sqlite3_mprintf("%s: %srow %lld: %s", zF, zRow, (long long)iRow, err.msg); rc = SQLITE_ERROR; goto done; }
  }
  if( rc!=SQLITE_DONE ){ *pzErr = sqlite3_mprintf("%s: %s: %s", zF, zWhat, sqlite3_errmsg(db)); goto done; }
  rc = SQLITE_OK;
done:
  if( st ){
    int rcS = sqlite3_finalize(st);
    if( rcS==SQLITE_INTERRUPT && *pzErr==0 ) rc = SQLITE_INTERRUPT;
  }
  return rc;
}

/* profile_flamegraph_folded(path, query [, options_json]) */
static void foldedFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  static const char zF[] = "profile_flamegraph_folded";
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  const char *zPath = (const char*)sqlite3_value_text(argv[0]);
  const char *zSql = (const char*)sqlite3_value_text(argv[1]);
  if( zPath==0 || zSql==0 ){
    sqlite3_result_error(ctx, "profile_flamegraph_folded: expected (path, query [, options_json])", -1); return;
  }
  FgOpt opt; memset(&opt, 0, sizeof(opt));
  int rc = fg_options(db, argc>2 ? argv[2] : 0, 1, &opt);
  if( rc ){
    if( opt.zErr ) sqlite3_result_error(ctx, opt.zErr, -1); else sqlite3_result_error_code(ctx, rc);
    fg_opt_free(&opt); return;
  }
  PsFlameFolded *pF = 0, *pBase = 0;
  PsBuf b; memset(&b, 0, sizeof(b));
  PsErr err; memset(&err, 0, sizeof(err));
  char *zErr = 0;
  PsPoll poll = { db, 0 };        /* the host's interrupt, polled by flame.c's work */
  opt.o.xInterrupt = ps_poll_interrupt; opt.o.pInterruptArg = &poll;
  rc = fg_fold_query(db, zF, "query", zSql, &poll, &pF, &zErr);
  if( rc==SQLITE_OK && opt.pBaseline ){
    rc = fg_fold_query(db, zF, "baseline", (const char*)sqlite3_value_text(opt.pBaseline), &poll, &pBase, &zErr);
  }
  if( rc ) goto done;
  if( opt.o.zTitle==0 ){ opt.o.zTitle = pBase ? "Differential flame graph" : "Flame graph"; }
  PsFlameInfo info; memset(&info, 0, sizeof(info));
  int rcF = pBase ? ps_flame_folded_svg_diff(pF, pBase, &opt.o, &b, &info, &err)
                  : ps_flame_folded_svg(pF, &opt.o, &b, &info, &err);
  if( rcF ){ fg_result_err(ctx, zF, rcF, &err); rc = SQLITE_OK; goto done; }
  fg_write(ctx, zF, zPath, &b, &info, &opt);
  rc = SQLITE_OK;
done:
  if( zErr ){ sqlite3_result_error(ctx, zErr, -1); sqlite3_free(zErr); }
  else if( rc==SQLITE_NOMEM ) sqlite3_result_error_nomem(ctx);
  else if( rc ) sqlite3_result_error_code(ctx, rc);
  ps_flame_folded_free(pF);
  ps_flame_folded_free(pBase);
  sqlite3_finalize(poll.st);
  ps_buf_free(&b);
  fg_opt_free(&opt);
}

int ps_flamegraph_register(sqlite3 *db, PsConn *pConn){
  int rc = ps_register_conn_function(db, pConn, "profile_flamegraph", 2, 3, flameFunc);
  if( rc==SQLITE_OK ) rc = ps_register_conn_function(db, pConn, "profile_flamegraph_folded", 2, 3, foldedFunc);
  return rc;
}
