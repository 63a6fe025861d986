/*
** schemas.h — the protobuf schemas of the formats read from protobuf (the TensorFlow profiler's
** result messages, XSpace, pprof's Profile) as pb.h tables, and the fit that tells them apart
** (defined in schemas.c, which cites the .proto files). Below every protobuf reader and the
** registry: it knows schemas, not formats.
*/
#ifndef PS_XPROF_SCHEMA_H
#define PS_XPROF_SCHEMA_H

#include "../wire/pb.h"

extern const PbMsgDef pb_TfStatsDatabase, pb_TfStatsTable, pb_TfStatsRecord;
extern const PbMsgDef pb_KernelStatsDb, pb_KernelReport;
extern const PbMsgDef pb_InputPipelineAnalysisResult, pb_PerGenericStepDetails, pb_InputOpDetails;
extern const PbMsgDef pb_OverviewPage, pb_OverviewPageAnalysis, pb_OverviewTfOp;
extern const PbMsgDef pb_MemoryProfile, pb_PerAllocatorMemoryProfile, pb_MemoryProfileSnapshot;
extern const PbMsgDef pb_OldTrace, pb_OldDevice, pb_OldTraceEvent, pb_Trace;
extern const PbMsgDef pb_XSpace;
/* The messages an Any in these files may hold (PerGenericStepDetails, BottleneckAnalysis, ...). */
extern const PbRegistry pb_xprof_registry;
/* perftools.profiles.Profile, field for field as github.com/google/pprof proto/profile.proto
** declares it (with Profile.doc_url = 15 and Line.column = 3). */
extern const PbMsgDef pb_pprof_Profile;

/* The schema (XSpace, an xprof result message or pprof's Profile) that explains the most of the
** bytes' structure (pb_fit over their first 4,096 fields), or NULL; *pScore = how much it
** explains. Each protobuf format's probe claims the bytes when its schema is the answer. */
const PbMsgDef *ps_protobuf_fit(const char *z, size_t n, int *pScore);
/* bOn 1: computes the answer for z[0..n) once and gives it to every ps_protobuf_fit() of the
** same bytes in this thread until called with bOn 0 (ps_format_detect brackets its probes so). */
void ps_protobuf_fit_memo(const char *z, size_t n, int bOn);

#endif
