/*
** xprof_schema.h — the protobuf schemas of the TensorFlow profiler's result messages and of
** XSpace, as pb.h tables (defined in xprof_schema.c, which cites the .proto files).
*/
#ifndef PS_XPROF_SCHEMA_H
#define PS_XPROF_SCHEMA_H

#include "pb.h"

extern const PbMsgDef pb_TfStatsDatabase, pb_TfStatsTable, pb_TfStatsRecord;
extern const PbMsgDef pb_KernelStatsDb, pb_KernelReport;
extern const PbMsgDef pb_InputPipelineAnalysisResult, pb_PerGenericStepDetails, pb_InputOpDetails;
extern const PbMsgDef pb_OverviewPage, pb_OverviewPageAnalysis, pb_OverviewTfOp;
extern const PbMsgDef pb_MemoryProfile, pb_PerAllocatorMemoryProfile, pb_MemoryProfileSnapshot;
extern const PbMsgDef pb_OldTrace, pb_OldDevice, pb_OldTraceEvent, pb_Trace;
extern const PbMsgDef pb_XSpace;
/* The messages an Any in these files may hold (PerGenericStepDetails, BottleneckAnalysis, ...). */
extern const PbRegistry pb_xprof_registry;

#endif
