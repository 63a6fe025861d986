/*
** training.h — the rows a distributed-training analysis reads from one capture, found in one pass
** over its events: its device activities (GPU kernels, memory copies and sets) each with the
** host call that launched it, and its training steps. sql/training.sql's views read them through
** profile_training_rows (vtab/profile_training_rows.c), one capture of a glob at a time.
**
** What a row is (format rules only: no kernel-name rule is here; sql/training.sql's
** gpu_kernel_classes classes the kernels):
**   a device activity  a slice with a duration whose category is Kineto's for device work
**                      (kernel, gpu_memcpy, gpu_memset, mtia_ccp_events), or an event of an
**                      XSpace device plane's stream line (process '/device:...', thread
**                      'Stream #...'). stream = args.stream, else (an XSpace) the line's id;
**                      correlation = args.correlation, else args.correlation_id (XSpace's
**                      stat); external_id = args."External id".
**   a launch call      a slice whose category is cuda_runtime or cuda_driver (Kineto; HIP calls
**                      included), or an event of an XSpace host plane ('/host:...') with a
**                      correlation_id stat: joined to the device activities of the same capture
**                      with its correlation (ids of two files never meet). Several launches
**                      with one id: the latest one starting at or before the activity, else
**                      the first.
**   a step             a slice named ProfilerStep#N (PyTorch's profiler; step = N) but Kineto's
**                      copy of it on a GPU stream (category gpu_user_annotation), or an event of
**                      an XSpace line named "Steps" (xprof's step line; step = its name when that
**                      is a number). Rows without a time (ts unknown) are none of these. An activity's step is the step of its capture that
**                      contains its start (the latest-starting one), if any.
** Integer args only: an id written as a string or a fraction is NULL. Linear in the events but
** for the sorts of the launches, the steps and the activities by start (n log n; skipped when
** already in order, as a writer's output mostly is).
*/
#ifndef PS_TRAINING_H
#define PS_TRAINING_H

#include "capture.h"

#define PS_TR_KERNEL 1
#define PS_TR_STEP   2

typedef struct PsTrainRow {
  int32_t row;                /* the event row */
  int32_t launch;             /* a device activity's launch call (event row), or -1 */
  int64_t stream, correlation, externalId;   /* PS_NULL64 when absent */
  int64_t step;               /* a step's number; an activity's step; PS_NULL64 when none */
  uint8_t kind;               /* PS_TR_* */
} PsTrainRow;

typedef struct PsTraining {
  PsTrainRow *a;              /* the device activities in event row order, then the steps by start */
  size_t n;
  int64_t rank;               /* the trace's distributedInfo.rank (Kineto) ... */
  int bRank;                  /* ... when it has one */
  int64_t lastStep;           /* the largest step number, PS_NULL64 when no step has one */
} PsTraining;

/* Finds the rows of cap into *t (zeroed first); bStepsOnly: the steps alone (no args are read).
** xInterrupt (may be NULL) is asked every 65536
** events. PS_OK, PS_NOMEM or PS_INTERRUPT; ps_training_free frees *t either way. */
int ps_training_build(const PsCapture *cap, PsTraining *t, int bStepsOnly, int (*xInterrupt)(void*), void *pI);
void ps_training_free(PsTraining *t);

/* 1 when z[0..n) is a category Kineto gives device activities (kernel, gpu_memcpy, gpu_memset,
** mtia_ccp_events): the rule above, for profile_open's "has device kernels" too. */
int ps_training_device_cat(const char *z, size_t n);

#endif
