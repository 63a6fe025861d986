/*
** jobs.h — the newengine job profiler ("StarProfiler") captures: the report JSON
** (schema newengine.profiler.report.v3) and profiler_jobs_*.csv, read into PsJob rows whose
** columns are produced on demand by ps_job_column() with the writer's own rules.
**
** The column set is the 37 columns of profiler_jobs_latest.csv, in the writer's order, followed
** by the extra columns of profile_jobs (PS_JOB_METADATA ...). Value rules (the writer's, see
** ../shared/corpus/README.md "Facts" and docs/profile_jobs.md):
**   text columns (id, status, ...)  a JSON string, else NULL (the writer prints "")
**   real columns (elapsed_ms, ...)  a JSON number, else NULL
**   flag columns (scheduled, ...)   1 for JSON true, else 0 (the writer prints false)
**   fall-back columns (lane, frame_id, service_id, ...): the job's own key when it has a
**     non-empty, non-null value, else the first of the writer's /metadata/... paths that exists;
**     a string as TEXT, a number as INTEGER/REAL, a JSON null as the TEXT 'null' (so a null
**     stays distinguishable from an absent key, which is NULL), true/false as TEXT
**   load_percent = load * 100 and over_budget = load >= 1 (0 when the job has no load)
** From a CSV every value is read back from its cell: '' is NULL, numbers and flags are typed.
*/
#ifndef PS_JOBS_H
#define PS_JOBS_H

#include "../model/capture.h"
#include "../wire/json.h"

enum {
  PS_JOB_ID, PS_JOB_STATUS, PS_JOB_CATEGORY, PS_JOB_SOURCE, PS_JOB_LANE, PS_JOB_PRIORITY,
  PS_JOB_DEPENDENCY_GROUP, PS_JOB_FRAME_ID, PS_JOB_TASK_DOMAIN, PS_JOB_TASK_PASS, PS_JOB_EXECUTOR,
  PS_JOB_NAME, PS_JOB_ELAPSED_MS, PS_JOB_BUDGET_MS, PS_JOB_FRAME_BUDGET_MS, PS_JOB_LOAD,
  PS_JOB_LOAD_PERCENT, PS_JOB_OVER_BUDGET, PS_JOB_EXCEEDED_FRAME_BUDGET, PS_JOB_GPU_WAIT_MS,
  PS_JOB_WAIT_REASON, PS_JOB_SCHEDULED, PS_JOB_BLOCKED, PS_JOB_POLLING, PS_JOB_WAITED_ON_GPU,
  PS_JOB_STAYED_ASYNC, PS_JOB_ASYNC_MODE, PS_JOB_STARTED_UNIX_MS, PS_JOB_ENDED_UNIX_MS,
  PS_JOB_PAYLOAD_BYTES, PS_JOB_OUTPUT_BYTES, PS_JOB_SERVICE_ID, PS_JOB_METHOD, PS_JOB_PLUGIN_ID,
  PS_JOB_GATEWAY, PS_JOB_ERROR, PS_JOB_DETAIL,
  PS_JOB_NCSV,                    /* 37: the columns of profiler_jobs_latest.csv */
  PS_JOB_METADATA = PS_JOB_NCSV,  /* the job's metadata object as JSON text */
  PS_JOB_ACTIVE_ELAPSED_MS, PS_JOB_CURRENT_LOAD, PS_JOB_PROGRESS,
  PS_JOB_OWNER,                   /* the writer's owner key (job_owner_key) */
  PS_JOB_METHOD_NAME,             /* the writer's method (first of /method, /method_name, ...) */
  PS_JOB_NCOL
};

/* The CSV header names, PS_JOB_NCSV of them, in order. */
extern const char *const ps_job_csv_names[PS_JOB_NCSV];

/* PsJob (a job: where its JSON object or CSV record is) is declared in capture.h. */

/* Column iCol (PS_JOB_*) of job row. PS_OK or PS_NOMEM; o->type 0 is NULL. */
int ps_job_column(const PsCapture *cap, size_t row, int iCol, PsOut *o);

/* The StarProfiler's grouping keys from a metadata object (its '{' at z[metaOff]; metaOff
** (size_t)-1 for none): the owner — the first non-empty string (trimmed) of /service_id,
** /metadata/service_id, /provider_service_id, /metadata/provider_service_id, else
** "plugin:" + /plugin_id, /metadata/plugin_id, /owner_plugin_id, /metadata/owner_plugin_id,
** else "gateway:" + /gateway, /engine_gateway, /metadata/gateway, /metadata/engine_gateway,
** else "<source>:<category>" — into *pOwner, and the method (/method, /method_name,
** /metadata/method, /metadata/method_name) into *pMethod (type 0 when none). */
int ps_job_keys(const char *z, size_t n, size_t metaOff, const char *zSource, size_t nSource,
                const char *zCategory, size_t nCategory, PsOut *pOwner, PsOut *pMethod);

/* 1 when cap is a StarProfiler report JSON (not a jobs CSV, not another format). */
int ps_job_is_report(const PsCapture *cap);

/* Job row of a report JSON as a JSON object (compact) appended to b: the job's own members, in
** its order, each key once (a key given twice: its last value, where it first stood); values as
** they are in the file (ps_json_pretty writes them in serde_json's form), except budget_ms and
** load, written as *pBudget / *pLoad (the report's budgets) when those are given and the job's
** own value is not null. Nothing is appended for another capture. PS_OK or PS_NOMEM. */
int ps_job_json(const PsCapture *cap, size_t row, const double *pBudget, const double *pLoad, PsBuf *b);

/* What a report JSON holds beyond its jobs, as one compact JSON object appended to b (nothing
** for another capture), for profile_report's JSON:
**   {"keys": [the report object's keys, in its order, each once],
**    "report": {schema, reason, generated_unix_ms, config, scheduler, flush_requests, analysis,
**               and any other top-level member that is not a section below},
**    "run": {...}, "plugin": {...}, "summary": {...}}
** built from the capture's metadata rows of those scopes (ext/formats/jobs.c stores them at load):
** TEXT rows as strings, INTEGER as integers, JSON rows as their JSON text. A member whose value
** was null has no row and is missing here. PS_OK or PS_NOMEM. */
int ps_report_input(const PsCapture *cap, PsBuf *b);

/* Formats v with nDec decimals exactly as C's "%.*f" (glibc: exact binary value, ties to even,
** the same digits as Rust's "{:.N}"), into buf; returns the length. Up to 9 decimals and
** |v|·10^nDec < 2^40 the digits come from one rounded product when it cannot be a tie (8x faster
** than snprintf, whose exact conversion cost 6 % of a report's instructions); else snprintf. */
size_t ps_fmt_fixed(char *buf, size_t nBuf, double v, int nDec);

#endif
