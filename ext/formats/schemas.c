/*
** schemas.c — the protobuf schemas (pb.h tables) of the formats read from protobuf, and the fit
** that tells them apart (ps_protobuf_fit). The TensorFlow profiler's result messages, field
** for field as the profile plugin's .proto files declare them (tensorflow/profiler
** plugin/tensorboard_plugin_profile/protobuf/, the 2025 files, which read the 2020 demo files
** with no unknown fields):
**   tf_stats.proto          TfStatsDatabase, TfStatsTable, TfStatsRecord
**   kernel_stats.proto      KernelStatsDb, KernelReport
**   input_pipeline.proto    InputPipelineAnalysisResult and what it holds (PerGenericStepDetails,
**                           GenericStepTimeBreakdown, BottleneckAnalysis in its Any fields)
**   overview_page.proto     OverviewPage (+ power_metrics.proto, diagnostics.proto)
**   memory_profile.proto    MemoryProfile
**   trace_events_old.proto  tensorboard_plugin_profile.Trace (the `<host>.trace` TF 2.x wrote)
**   trace_events.proto      tensorflow.profiler.Trace (the newer shape; + task.proto)
** XSpace (xplane.proto), and pprof's perftools.profiles.Profile (profile.proto). Used by
** ext/formats/xprof.c, xspace.c's and pprof.c's detection, and the format registry.
*/
#include "schemas.h"

#define N(a) ((int)(sizeof(a)/sizeof((a)[0])))
#define F(num, name, t)        { num, name, t, 0, 0, 0 }
#define R(num, name, t)        { num, name, t, 1, 0, 0 }
#define M(num, name, sub)      { num, name, PB_MESSAGE, 0, &sub, 0 }
#define RM(num, name, sub)     { num, name, PB_MESSAGE, 1, &sub, 0 }
#define EN(num, name, names)   { num, name, PB_ENUM, 0, 0, names }
/* the short name errors use is the variable's name after "pb_" (pb_TfStatsRecord: "TfStatsRecord") */
#define MSG(var, full, fields)        const PbMsgDef var = { full, fields, N(fields), 0, &#var[3] }
#define MAP(var, full, fields)        static const PbMsgDef var = { full, fields, N(fields), 1, 0 }

/* ------------------------------------------------------------------ tf_stats.proto */
static const PbFieldDef aTfStatsRecord[] = {
  F(1, "rank", PB_UINT64), F(2, "host_or_device", PB_STRING), F(3, "op_type", PB_STRING),
  F(4, "op_name", PB_STRING), F(5, "occurrences", PB_INT64), F(6, "total_time_in_us", PB_DOUBLE),
  F(7, "avg_time_in_us", PB_DOUBLE), F(8, "total_self_time_in_us", PB_DOUBLE),
  F(9, "avg_self_time_in_us", PB_DOUBLE), F(10, "device_total_self_time_as_fraction", PB_DOUBLE),
  F(11, "device_cumulative_total_self_time_as_fraction", PB_DOUBLE),
  F(12, "host_total_self_time_as_fraction", PB_DOUBLE),
  F(13, "host_cumulative_total_self_time_as_fraction", PB_DOUBLE),
  F(14, "measured_flop_rate", PB_DOUBLE), F(15, "measured_memory_bw", PB_DOUBLE),
  F(16, "operational_intensity", PB_DOUBLE), F(17, "bound_by", PB_STRING), F(18, "is_eager", PB_BOOL),
  F(19, "gpu_tensorcore_utilization", PB_DOUBLE), F(20, "model_flop_rate", PB_DOUBLE),
  F(21, "hbm_bw", PB_DOUBLE), F(22, "cmem_read_bw", PB_DOUBLE), F(23, "cmem_write_bw", PB_DOUBLE),
  F(24, "vmem_read_bw", PB_DOUBLE), F(25, "vmem_write_bw", PB_DOUBLE),
  F(26, "hbm_operational_intensity", PB_DOUBLE), F(27, "cmem_read_operational_intensity", PB_DOUBLE),
  F(28, "cmem_write_operational_intensity", PB_DOUBLE),
  F(29, "vmem_read_operational_intensity", PB_DOUBLE),
  F(30, "vmem_write_operational_intensity", PB_DOUBLE),
  F(31, "bottleneck_operational_intensity", PB_DOUBLE), F(32, "flops", PB_UINT64),
  F(33, "bytes_accessed", PB_UINT64),
};
MSG(pb_TfStatsRecord, "tensorflow.profiler.TfStatsRecord", aTfStatsRecord);
static const PbFieldDef aTfStatsTable[] = {
  RM(1, "tf_stats_record", pb_TfStatsRecord), F(2, "host_tf_pprof_key", PB_STRING),
  F(3, "device_tf_pprof_key", PB_STRING),
};
MSG(pb_TfStatsTable, "tensorflow.profiler.TfStatsTable", aTfStatsTable);
static const PbFieldDef aTfStatsDatabase[] = {
  M(4, "with_idle", pb_TfStatsTable), M(5, "without_idle", pb_TfStatsTable), F(6, "device_type", PB_STRING),
};
MSG(pb_TfStatsDatabase, "tensorflow.profiler.TfStatsDatabase", aTfStatsDatabase);

/* ------------------------------------------------------------------ kernel_stats.proto */
static const PbFieldDef aKernelReport[] = {
  F(1, "name", PB_STRING), F(2, "registers_per_thread", PB_UINT32), F(3, "static_shmem_bytes", PB_UINT32),
  F(4, "dynamic_shmem_bytes", PB_UINT32), R(5, "block_dim", PB_UINT32), R(6, "grid_dim", PB_UINT32),
  F(7, "total_duration_ns", PB_UINT64), F(8, "min_duration_ns", PB_UINT64), F(9, "max_duration_ns", PB_UINT64),
  F(10, "is_kernel_using_tensor_core", PB_BOOL), F(11, "is_op_tensor_core_eligible", PB_BOOL),
  F(12, "op_name", PB_STRING), F(13, "occurrences", PB_UINT32), F(14, "occupancy_pct", PB_FLOAT),
};
MSG(pb_KernelReport, "tensorflow.profiler.KernelReport", aKernelReport);
static const PbFieldDef aKernelStatsDb[] = { RM(1, "reports", pb_KernelReport) };
MSG(pb_KernelStatsDb, "tensorflow.profiler.KernelStatsDb", aKernelStatsDb);

/* ------------------------------------------------------------------ diagnostics.proto */
static const PbFieldDef aDiagnostics[] = {
  R(1, "info", PB_STRING), R(2, "warnings", PB_STRING), R(3, "errors", PB_STRING),
};
MSG(pb_Diagnostics, "tensorflow.profiler.Diagnostics", aDiagnostics);

/* ------------------------------------------------------------------ input_pipeline.proto */
static const PbFieldDef aBottleneckAnalysis[] = {
  F(7, "input_percent", PB_DOUBLE), F(8, "output_percent", PB_DOUBLE), F(9, "idle_percent", PB_DOUBLE),
  F(10, "compute_percent", PB_DOUBLE), F(1, "input_classification", PB_STRING),
  F(2, "input_statement", PB_STRING), F(3, "kernel_launch_classification", PB_STRING),
  F(4, "kernel_launch_statement", PB_STRING), F(5, "all_other_classification", PB_STRING),
  F(6, "all_other_statement", PB_STRING), F(11, "device_collectives_classification", PB_STRING),
  F(12, "device_collectives_statement", PB_STRING),
};
MSG(pb_BottleneckAnalysis, "tensorflow.profiler.BottleneckAnalysis", aBottleneckAnalysis);
static const PbFieldDef aStepSummary[] = {
  F(1, "average", PB_DOUBLE), F(2, "standard_deviation", PB_DOUBLE), F(3, "minimum", PB_DOUBLE),
  F(4, "maximum", PB_DOUBLE),
};
MSG(pb_StepSummary, "tensorflow.profiler.StepSummary", aStepSummary);
static const PbFieldDef aPerGenericStepDetails[] = {
  F(1, "step_number", PB_INT32), F(14, "step_name", PB_STRING), F(2, "step_time_ms", PB_DOUBLE),
  F(3, "unknown_time_ms", PB_DOUBLE), F(11, "host_wait_input_ms", PB_DOUBLE),
  F(12, "host_to_device_ms", PB_DOUBLE), F(5, "output_ms", PB_DOUBLE), F(6, "device_compute_ms", PB_DOUBLE),
  F(7, "device_to_device_ms", PB_DOUBLE), F(13, "device_collectives_ms", PB_DOUBLE),
  F(8, "host_compute_ms", PB_DOUBLE), F(9, "host_prepare_ms", PB_DOUBLE), F(10, "host_compile_ms", PB_DOUBLE),
};
MSG(pb_PerGenericStepDetails, "tensorflow.profiler.PerGenericStepDetails", aPerGenericStepDetails);
static const PbFieldDef aInputTimeBreakdown[] = {
  F(1, "demanded_file_read_us", PB_DOUBLE), F(2, "advanced_file_read_us", PB_DOUBLE),
  F(3, "preprocessing_us", PB_DOUBLE), F(4, "enqueue_us", PB_DOUBLE),
  F(5, "unclassified_non_enqueue_us", PB_DOUBLE),
};
MSG(pb_InputTimeBreakdown, "tensorflow.profiler.InputTimeBreakdown", aInputTimeBreakdown);
static const PbFieldDef aInputOpDetails[] = {
  F(1, "op_name", PB_STRING), F(2, "count", PB_UINT64), F(3, "time_in_ms", PB_DOUBLE),
  F(4, "time_in_percent", PB_DOUBLE), F(5, "self_time_in_ms", PB_DOUBLE),
  F(6, "self_time_in_percent", PB_DOUBLE), F(7, "category", PB_STRING),
};
MSG(pb_InputOpDetails, "tensorflow.profiler.InputOpDetails", aInputOpDetails);
static const PbFieldDef aInputPipelineAnalysisRecommendation[] = {
  R(1, "details", PB_STRING), F(2, "bottleneck_analysis", PB_ANY), F(3, "summary_next_step", PB_STRING),
};
MSG(pb_InputPipelineAnalysisRecommendation, "tensorflow.profiler.InputPipelineAnalysisRecommendation",
    aInputPipelineAnalysisRecommendation);
static const PbFieldDef aGenericStepTimeBreakdown[] = {
  M(1, "unknown_time_ms_summary", pb_StepSummary), M(9, "host_wait_input_ms_summary", pb_StepSummary),
  M(10, "host_to_device_ms_summary", pb_StepSummary), M(11, "input_ms_summary", pb_StepSummary),
  M(3, "output_ms_summary", pb_StepSummary), M(4, "device_compute_ms_summary", pb_StepSummary),
  M(5, "device_to_device_ms_summary", pb_StepSummary), M(12, "device_collectives_ms_summary", pb_StepSummary),
  M(6, "host_compute_ms_summary", pb_StepSummary), M(7, "host_prepare_ms_summary", pb_StepSummary),
  M(8, "host_compile_ms_summary", pb_StepSummary),
};
MSG(pb_GenericStepTimeBreakdown, "tensorflow.profiler.GenericStepTimeBreakdown", aGenericStepTimeBreakdown);
static const PbFieldDef aInputPipelineAnalysisResult[] = {
  F(16, "tag", PB_BOOL), F(9, "hardware_type", PB_STRING), M(2, "step_time_summary", pb_StepSummary),
  M(3, "input_percent_summary", pb_StepSummary), F(11, "input_percent", PB_DOUBLE),
  F(13, "output_percent", PB_DOUBLE), F(14, "idle_percent", PB_DOUBLE), F(15, "compute_percent", PB_DOUBLE),
  R(4, "step_details", PB_ANY), M(5, "input_time_breakdown", pb_InputTimeBreakdown),
  RM(6, "input_op_details", pb_InputOpDetails), M(7, "recommendation", pb_InputPipelineAnalysisRecommendation),
  F(8, "step_time_breakdown", PB_ANY), M(12, "diagnostics", pb_Diagnostics),
};
MSG(pb_InputPipelineAnalysisResult, "tensorflow.profiler.InputPipelineAnalysisResult", aInputPipelineAnalysisResult);

/* ------------------------------------------------------------------ overview_page.proto */
static const PbFieldDef aOverviewTfOp[] = {
  F(1, "name", PB_STRING), F(2, "category", PB_STRING), F(3, "self_time_fraction", PB_DOUBLE),
  F(4, "cumulative_time_fraction", PB_DOUBLE), F(5, "flop_rate", PB_DOUBLE),
  F(6, "is_op_tensorcore_eligible", PB_BOOL), F(7, "is_op_using_tensorcore", PB_BOOL),
};
MSG(pb_OverviewTfOp, "tensorflow.profiler.OverviewTfOp", aOverviewTfOp);
static const PbFieldDef aOverviewPageAnalysis[] = {
  F(1, "mxu_utilization_percent", PB_DOUBLE), F(2, "device_idle_time_percent", PB_DOUBLE),
  F(3, "host_idle_time_percent", PB_DOUBLE), RM(4, "top_device_ops", pb_OverviewTfOp),
  F(5, "remark_text", PB_STRING), F(6, "remark_color", PB_STRING),
  F(7, "flop_rate_utilization_relative_to_roofline_percent", PB_DOUBLE),
  F(8, "memory_bw_utilization_relative_to_hw_limit_percent", PB_DOUBLE),
  F(9, "device_compute_16bit_percent", PB_DOUBLE), F(10, "device_compute_32bit_percent", PB_DOUBLE),
  F(11, "host_tf_op_percent", PB_DOUBLE), F(12, "device_tf_op_percent", PB_DOUBLE),
  F(13, "host_trace_level", PB_UINT32), F(14, "host_op_time_eager_percent", PB_DOUBLE),
  F(15, "device_op_time_eager_percent", PB_DOUBLE),
  F(16, "device_op_time_outside_compilation_percent", PB_DOUBLE),
  F(17, "device_duty_cycle_percent", PB_DOUBLE), F(18, "program_goodput_percent", PB_DOUBLE),
  F(19, "sc_step_time_ms_average", PB_DOUBLE), F(20, "sc_infeed_time_ms_avg", PB_DOUBLE),
  F(21, "sc_outfeed_time_ms_avg", PB_DOUBLE), F(22, "sc_idle_time_ms_avg", PB_DOUBLE),
  F(23, "fw_max_vdd_core_pl1_power_watts", PB_DOUBLE), F(24, "fw_max_vdd_core_pl2_power_watts", PB_DOUBLE),
  F(25, "fw_max_vdd_core_pl3_power_watts", PB_DOUBLE), F(26, "fw_max_vdd_core_pl4_power_watts", PB_DOUBLE),
  F(27, "fw_max_hbm_pl1_power_watts", PB_DOUBLE), F(28, "fw_max_hbm_pl2_power_watts", PB_DOUBLE),
  F(29, "fw_max_hbm_pl3_power_watts", PB_DOUBLE), F(30, "fw_max_hbm_pl4_power_watts", PB_DOUBLE),
};
MSG(pb_OverviewPageAnalysis, "tensorflow.profiler.OverviewPageAnalysis", aOverviewPageAnalysis);
static const PbFieldDef aOverviewPageTip[] = { F(1, "link", PB_STRING) };
MSG(pb_OverviewPageTip, "tensorflow.profiler.OverviewPageTip", aOverviewPageTip);
static const PbFieldDef aGenericRecommendation[] = {
  F(1, "kernel_launch_bottleneck", PB_STRING), F(2, "kernel_launch_statement", PB_STRING),
  F(3, "all_other_bottleneck", PB_STRING), F(4, "all_other_statement", PB_STRING),
  F(5, "precision_statement", PB_STRING), F(6, "device_collectives_bottleneck", PB_STRING),
  F(7, "device_collectives_statement", PB_STRING),
};
MSG(pb_GenericRecommendation, "tensorflow.profiler.GenericRecommendation", aGenericRecommendation);
static const PbFieldDef aOverviewPageRecommendation[] = {
  F(1, "bottleneck", PB_STRING), F(2, "statement", PB_STRING), RM(11, "input_tips", pb_OverviewPageTip),
  F(9, "output_statement", PB_STRING), F(12, "eager_statement_html", PB_STRING),
  F(13, "outside_compilation_statement_html", PB_STRING), F(10, "tf_function_statement_html", PB_STRING),
  RM(3, "host_tips", pb_OverviewPageTip), RM(4, "device_tips", pb_OverviewPageTip),
  RM(5, "documentation_tips", pb_OverviewPageTip), F(6, "recommendation", PB_ANY),
  RM(7, "faq_tips", pb_OverviewPageTip), RM(8, "inference_tips", pb_OverviewPageTip),
};
MSG(pb_OverviewPageRecommendation, "tensorflow.profiler.OverviewPageRecommendation", aOverviewPageRecommendation);
static const PbFieldDef aOverviewPageHostIndependentJobInfo[] = {
  F(1, "change_list", PB_INT64), F(2, "build_time", PB_INT64), F(3, "build_target", PB_STRING),
  F(4, "profile_duration_ms", PB_UINT32),
};
MSG(pb_OverviewPageHostIndependentJobInfo, "tensorflow.profiler.OverviewPageHostIndependentJobInfo",
    aOverviewPageHostIndependentJobInfo);
static const PbFieldDef aOverviewPageHostDependentJobInfo[] = {
  F(1, "host_id", PB_STRING), F(2, "command_line", PB_STRING), F(3, "start_time", PB_INT64),
  F(4, "bns_address", PB_STRING), F(5, "profile_time_ns", PB_UINT64),
};
MSG(pb_OverviewPageHostDependentJobInfo, "tensorflow.profiler.OverviewPageHostDependentJobInfo",
    aOverviewPageHostDependentJobInfo);
static const PbFieldDef aPowerComponentMetrics[] = {
  F(1, "component_name", PB_STRING), F(2, "max_power", PB_DOUBLE), F(3, "avg_power", PB_DOUBLE),
  F(4, "max_moving_avg_power_100us", PB_DOUBLE), F(5, "max_moving_avg_power_1ms", PB_DOUBLE),
  F(6, "max_moving_avg_power_10ms", PB_DOUBLE), F(7, "timescale_us", PB_UINT32),
  F(8, "sample_count", PB_UINT64),
};
MSG(pb_PowerComponentMetrics, "tensorflow.profiler.PowerComponentMetrics", aPowerComponentMetrics);
static const PbFieldDef aPowerMetrics[] = { RM(1, "power_component_metrics", pb_PowerComponentMetrics) };
MSG(pb_PowerMetrics, "tensorflow.profiler.PowerMetrics", aPowerMetrics);
static const PbFieldDef aHostnamesEntry[] = { F(1, "key", PB_STRING), F(2, "value", PB_BOOL) };
MAP(pb_HostnamesEntry, "tensorflow.profiler.OverviewPageRunEnvironment.HostnamesEntry", aHostnamesEntry);
static const PbFieldDef aOverviewPageRunEnvironment[] = {
  F(1, "host_count", PB_INT32), F(2, "task_count", PB_INT32), RM(3, "hostnames", pb_HostnamesEntry),
  F(4, "device_type", PB_STRING), F(5, "device_core_count", PB_INT32),
  M(7, "host_independent_job_info", pb_OverviewPageHostIndependentJobInfo),
  RM(8, "host_dependent_job_info", pb_OverviewPageHostDependentJobInfo), F(9, "replica_count", PB_INT32),
  F(10, "num_cores_per_replica", PB_INT32), F(11, "is_training", PB_BOOL),
  M(12, "power_metrics", pb_PowerMetrics),
};
MSG(pb_OverviewPageRunEnvironment, "tensorflow.profiler.OverviewPageRunEnvironment", aOverviewPageRunEnvironment);
static const PbFieldDef aOverviewLatencyBreakdown[] = {
  F(1, "total_latency_us", PB_DOUBLE), F(2, "host_latency_us", PB_DOUBLE), F(3, "device_latency_us", PB_DOUBLE),
  F(4, "communication_latency_us", PB_DOUBLE),
};
MSG(pb_OverviewLatencyBreakdown, "tensorflow.profiler.OverviewLatencyBreakdown", aOverviewLatencyBreakdown);
static const PbFieldDef aOverviewInferenceLatency[] = {
  R(1, "percentile_numbers", PB_DOUBLE), RM(2, "latency_breakdowns", pb_OverviewLatencyBreakdown),
  F(3, "max_latency_us", PB_DOUBLE), F(4, "min_latency_us", PB_DOUBLE),
  F(5, "sessions_per_second", PB_DOUBLE),
};
MSG(pb_OverviewInferenceLatency, "tensorflow.profiler.OverviewInferenceLatency", aOverviewInferenceLatency);
static const PbFieldDef aOverviewPage[] = {
  M(6, "run_environment", pb_OverviewPageRunEnvironment), M(2, "input_analysis", pb_InputPipelineAnalysisResult),
  M(3, "analysis", pb_OverviewPageAnalysis), M(4, "recommendation", pb_OverviewPageRecommendation),
  M(8, "diagnostics", pb_Diagnostics), M(9, "inference_latency", pb_OverviewInferenceLatency),
};
MSG(pb_OverviewPage, "tensorflow.profiler.OverviewPage", aOverviewPage);

/* ------------------------------------------------------------------ memory_profile.proto */
static const char *const azMemoryActivity[] = {
  "UNKNOWN_ACTIVITY", "ALLOCATION", "DEALLOCATION", "RESERVATION", "EXPANSION", 0
};
static const PbFieldDef aMemoryAggregationStats[] = {
  F(1, "stack_reserved_bytes", PB_INT64), F(2, "heap_allocated_bytes", PB_INT64),
  F(3, "free_memory_bytes", PB_INT64), F(4, "fragmentation", PB_DOUBLE), F(5, "peak_bytes_in_use", PB_INT64),
};
MSG(pb_MemoryAggregationStats, "tensorflow.profiler.MemoryAggregationStats", aMemoryAggregationStats);
static const PbFieldDef aMemoryActivityMetadata[] = {
  EN(1, "memory_activity", azMemoryActivity), F(2, "requested_bytes", PB_INT64),
  F(3, "allocation_bytes", PB_INT64), F(4, "address", PB_UINT64), F(5, "tf_op_name", PB_STRING),
  F(6, "step_id", PB_INT64), F(7, "region_type", PB_STRING), F(8, "data_type", PB_STRING),
  F(9, "tensor_shape", PB_STRING),
};
MSG(pb_MemoryActivityMetadata, "tensorflow.profiler.MemoryActivityMetadata", aMemoryActivityMetadata);
static const PbFieldDef aMemoryProfileSnapshot[] = {
  F(1, "time_offset_ps", PB_INT64), M(2, "aggregation_stats", pb_MemoryAggregationStats),
  M(3, "activity_metadata", pb_MemoryActivityMetadata),
};
MSG(pb_MemoryProfileSnapshot, "tensorflow.profiler.MemoryProfileSnapshot", aMemoryProfileSnapshot);
static const PbFieldDef aMemoryProfileSummary[] = {
  F(1, "peak_bytes_usage_lifetime", PB_INT64), M(2, "peak_stats", pb_MemoryAggregationStats),
  F(3, "peak_stats_time_ps", PB_INT64), F(4, "memory_capacity", PB_INT64),
};
MSG(pb_MemoryProfileSummary, "tensorflow.profiler.MemoryProfileSummary", aMemoryProfileSummary);
static const PbFieldDef aActiveAllocation[] = {
  F(1, "snapshot_index", PB_INT64), F(2, "special_index", PB_INT64), F(3, "num_occurrences", PB_INT64),
};
MSG(pb_ActiveAllocation, "tensorflow.profiler.ActiveAllocation", aActiveAllocation);
static const PbFieldDef aPerAllocatorMemoryProfile[] = {
  RM(1, "memory_profile_snapshots", pb_MemoryProfileSnapshot), M(2, "profile_summary", pb_MemoryProfileSummary),
  RM(3, "active_allocations", pb_ActiveAllocation), RM(4, "special_allocations", pb_MemoryActivityMetadata),
  RM(5, "sampled_timeline_snapshots", pb_MemoryProfileSnapshot),
};
MSG(pb_PerAllocatorMemoryProfile, "tensorflow.profiler.PerAllocatorMemoryProfile", aPerAllocatorMemoryProfile);
static const PbFieldDef aAllocatorEntry[] = { F(1, "key", PB_STRING), M(2, "value", pb_PerAllocatorMemoryProfile) };
MAP(pb_AllocatorEntry, "tensorflow.profiler.MemoryProfile.MemoryProfilePerAllocatorEntry", aAllocatorEntry);
static const PbFieldDef aMemoryProfile[] = {
  RM(1, "memory_profile_per_allocator", pb_AllocatorEntry), F(2, "num_hosts", PB_INT32),
  R(3, "memory_ids", PB_STRING), F(5, "version", PB_INT32),
};
MSG(pb_MemoryProfile, "tensorflow.profiler.MemoryProfile", aMemoryProfile);

/* ------------------------------------------------------------------ trace_events_old.proto */
static const PbFieldDef aOldResource[] = { F(1, "name", PB_STRING), F(2, "resource_id", PB_UINT64) };
const PbMsgDef pb_OldResource = { "tensorboard_plugin_profile.Resource", aOldResource, N(aOldResource), 0, "Resource" };
static const PbFieldDef aOldResourcesEntry[] = { F(1, "key", PB_UINT64), M(2, "value", pb_OldResource) };
MAP(pb_OldResourcesEntry, "tensorboard_plugin_profile.Device.ResourcesEntry", aOldResourcesEntry);
static const PbFieldDef aOldDevice[] = {
  F(1, "name", PB_STRING), F(2, "device_id", PB_UINT64), RM(3, "resources", pb_OldResourcesEntry),
};
const PbMsgDef pb_OldDevice = { "tensorboard_plugin_profile.Device", aOldDevice, N(aOldDevice), 0, "Device" };
static const PbFieldDef aOldDevicesEntry[] = { F(1, "key", PB_UINT64), M(2, "value", pb_OldDevice) };
MAP(pb_OldDevicesEntry, "tensorboard_plugin_profile.Trace.DevicesEntry", aOldDevicesEntry);
static const PbFieldDef aArgsEntry[] = { F(1, "key", PB_STRING), F(2, "value", PB_STRING) };
MAP(pb_ArgsEntry, "tensorboard_plugin_profile.TraceEvent.ArgsEntry", aArgsEntry);
static const PbFieldDef aOldTraceEvent[] = {
  F(1, "device_id", PB_UINT64), F(2, "resource_id", PB_UINT64), F(3, "name", PB_STRING),
  F(9, "timestamp_ps", PB_UINT64), F(10, "duration_ps", PB_UINT64), RM(11, "args", pb_ArgsEntry),
};
const PbMsgDef pb_OldTraceEvent = { "tensorboard_plugin_profile.TraceEvent", aOldTraceEvent, N(aOldTraceEvent), 0, "TraceEvent" };
static const PbFieldDef aOldTrace[] = {
  RM(1, "devices", pb_OldDevicesEntry), RM(4, "trace_events", pb_OldTraceEvent),
};
const PbMsgDef pb_OldTrace = { "tensorboard_plugin_profile.Trace", aOldTrace, N(aOldTrace), 0, "Trace" };

/* ------------------------------------------------------------------ trace_events.proto (proto2) */
static const PbFieldDef aTask[] = {
  F(1, "changelist", PB_INT64), F(2, "clean_build", PB_BOOL), F(3, "build_time", PB_INT64),
  F(4, "build_target", PB_STRING), F(5, "command_line", PB_STRING), F(6, "start_time", PB_INT64),
  F(7, "task_address", PB_STRING), F(8, "profile_time_ns", PB_UINT64), F(9, "profile_duration_ms", PB_UINT32),
  F(10, "host_trace_level", PB_UINT32), F(11, "tensor_core_freq_hz", PB_UINT64),
  F(12, "sparse_core_freq_hz", PB_UINT64), F(13, "gtc_freq_hz", PB_UINT64),
  F(14, "peak_memory_usage", PB_UINT64), F(15, "cpu_limit", PB_DOUBLE), F(16, "cpu_usage", PB_DOUBLE),
};
MSG(pb_Task, "tensorflow.profiler.Task", aTask);
static const PbFieldDef aResource[] = {
  F(1, "name", PB_STRING), F(2, "resource_id", PB_UINT32), F(3, "num_events", PB_UINT32),
};
MSG(pb_Resource, "tensorflow.profiler.Resource", aResource);
static const PbFieldDef aResourcesEntry[] = { F(1, "key", PB_UINT32), M(2, "value", pb_Resource) };
MAP(pb_ResourcesEntry, "tensorflow.profiler.Device.ResourcesEntry", aResourcesEntry);
static const PbFieldDef aDevice[] = {
  F(1, "name", PB_STRING), F(2, "device_id", PB_UINT32), RM(3, "resources", pb_ResourcesEntry),
};
MSG(pb_Device, "tensorflow.profiler.Device", aDevice);
static const PbFieldDef aDevicesEntry[] = { F(1, "key", PB_UINT32), M(2, "value", pb_Device) };
MAP(pb_DevicesEntry, "tensorflow.profiler.Trace.DevicesEntry", aDevicesEntry);
static const PbFieldDef aTasksEntry[] = { F(1, "key", PB_UINT32), M(2, "value", pb_Task) };
MAP(pb_TasksEntry, "tensorflow.profiler.Trace.TasksEntry", aTasksEntry);
static const PbFieldDef aNameTableEntry[] = { F(1, "key", PB_FIXED64), F(2, "value", PB_STRING) };
MAP(pb_NameTableEntry, "tensorflow.profiler.Trace.NameTableEntry", aNameTableEntry);
static const PbFieldDef aTrace[] = {
  RM(1, "devices", pb_DevicesEntry), RM(6, "tasks", pb_TasksEntry), F(4, "min_timestamp_ps", PB_UINT64),
  F(5, "max_timestamp_ps", PB_UINT64), F(7, "num_events", PB_UINT64), RM(8, "name_table", pb_NameTableEntry),
};
MSG(pb_Trace, "tensorflow.profiler.Trace", aTrace);

/* ------------------------------------------------------------------ xplane.proto (detection) */
static const PbFieldDef aXStat[] = {
  F(1, "metadata_id", PB_INT64), F(2, "double_value", PB_DOUBLE), F(3, "uint64_value", PB_UINT64),
  F(4, "int64_value", PB_INT64), F(5, "str_value", PB_STRING), F(6, "bytes_value", PB_BYTES),
  F(7, "ref_value", PB_UINT64),
};
MSG(pb_XStat, "tensorflow.profiler.XStat", aXStat);
static const PbFieldDef aXEvent[] = {
  F(1, "metadata_id", PB_INT64), F(2, "offset_ps", PB_INT64), F(5, "num_occurrences", PB_INT64),
  F(3, "duration_ps", PB_INT64), RM(4, "stats", pb_XStat),
};
MSG(pb_XEvent, "tensorflow.profiler.XEvent", aXEvent);
static const PbFieldDef aXLine[] = {
  F(1, "id", PB_INT64), F(10, "display_id", PB_INT64), F(2, "name", PB_STRING), F(11, "display_name", PB_STRING),
  F(3, "timestamp_ns", PB_INT64), F(9, "duration_ps", PB_INT64), RM(4, "events", pb_XEvent),
};
MSG(pb_XLine, "tensorflow.profiler.XLine", aXLine);
static const PbFieldDef aXEventMetadata[] = {
  F(1, "id", PB_INT64), F(2, "name", PB_STRING), F(4, "display_name", PB_STRING), F(3, "metadata", PB_BYTES),
  RM(5, "stats", pb_XStat), R(6, "child_id", PB_INT64),
};
MSG(pb_XEventMetadata, "tensorflow.profiler.XEventMetadata", aXEventMetadata);
static const PbFieldDef aXStatMetadata[] = {
  F(1, "id", PB_INT64), F(2, "name", PB_STRING), F(3, "description", PB_STRING),
};
MSG(pb_XStatMetadata, "tensorflow.profiler.XStatMetadata", aXStatMetadata);
static const PbFieldDef aEventMetadataEntry[] = { F(1, "key", PB_INT64), M(2, "value", pb_XEventMetadata) };
MAP(pb_EventMetadataEntry, "tensorflow.profiler.XPlane.EventMetadataEntry", aEventMetadataEntry);
static const PbFieldDef aStatMetadataEntry[] = { F(1, "key", PB_INT64), M(2, "value", pb_XStatMetadata) };
MAP(pb_StatMetadataEntry, "tensorflow.profiler.XPlane.StatMetadataEntry", aStatMetadataEntry);
static const PbFieldDef aXPlane[] = {
  F(1, "id", PB_INT64), F(2, "name", PB_STRING), RM(3, "lines", pb_XLine),
  RM(4, "event_metadata", pb_EventMetadataEntry), RM(5, "stat_metadata", pb_StatMetadataEntry),
  RM(6, "stats", pb_XStat),
};
MSG(pb_XPlane, "tensorflow.profiler.XPlane", aXPlane);
static const PbFieldDef aXSpace[] = {
  RM(1, "planes", pb_XPlane), R(2, "errors", PB_STRING), R(3, "warnings", PB_STRING),
  R(4, "hostnames", PB_STRING),
};
MSG(pb_XSpace, "tensorflow.profiler.XSpace", aXSpace);

/* ------------------------------------------------------------------ pprof (profile.proto) */
/* perftools.profiles.Profile, field for field as github.com/google/pprof proto/profile.proto
** declares it (with Profile.doc_url = 15 and Line.column = 3); read by ext/formats/pprof.c. */

#define PMSG(var, full, shrt, fields) static const PbMsgDef var = { full, fields, N(fields), 0, shrt }

static const PbFieldDef aValueType[] = { F(1, "type", PB_INT64), F(2, "unit", PB_INT64) };
PMSG(pb_ValueType, "perftools.profiles.ValueType", "ValueType", aValueType);
static const PbFieldDef aLabel[] = {
  F(1, "key", PB_INT64), F(2, "str", PB_INT64), F(3, "num", PB_INT64), F(4, "num_unit", PB_INT64),
};
PMSG(pb_Label, "perftools.profiles.Label", "Label", aLabel);
static const PbFieldDef aSample[] = {
  R(1, "location_id", PB_UINT64), R(2, "value", PB_INT64), RM(3, "label", pb_Label),
};
PMSG(pb_Sample, "perftools.profiles.Sample", "Sample", aSample);
static const PbFieldDef aMapping[] = {
  F(1, "id", PB_UINT64), F(2, "memory_start", PB_UINT64), F(3, "memory_limit", PB_UINT64),
  F(4, "file_offset", PB_UINT64), F(5, "filename", PB_INT64), F(6, "build_id", PB_INT64),
  F(7, "has_functions", PB_BOOL), F(8, "has_filenames", PB_BOOL), F(9, "has_line_numbers", PB_BOOL),
  F(10, "has_inline_frames", PB_BOOL),
};
PMSG(pb_Mapping, "perftools.profiles.Mapping", "Mapping", aMapping);
static const PbFieldDef aLine[] = { F(1, "function_id", PB_UINT64), F(2, "line", PB_INT64), F(3, "column", PB_INT64) };
PMSG(pb_Line, "perftools.profiles.Line", "Line", aLine);
static const PbFieldDef aLocation[] = {
  F(1, "id", PB_UINT64), F(2, "mapping_id", PB_UINT64), F(3, "address", PB_UINT64),
  RM(4, "line", pb_Line), F(5, "is_folded", PB_BOOL),
};
PMSG(pb_Location, "perftools.profiles.Location", "Location", aLocation);
static const PbFieldDef aFunction[] = {
  F(1, "id", PB_UINT64), F(2, "name", PB_INT64), F(3, "system_name", PB_INT64),
  F(4, "filename", PB_INT64), F(5, "start_line", PB_INT64),
};
PMSG(pb_Function, "perftools.profiles.Function", "Function", aFunction);
static const PbFieldDef aProfile[] = {
  RM(1, "sample_type", pb_ValueType), RM(2, "sample", pb_Sample), RM(3, "mapping", pb_Mapping),
  RM(4, "location", pb_Location), RM(5, "function", pb_Function), R(6, "string_table", PB_STRING),
  F(7, "drop_frames", PB_INT64), F(8, "keep_frames", PB_INT64), F(9, "time_nanos", PB_INT64),
  F(10, "duration_nanos", PB_INT64), M(11, "period_type", pb_ValueType), F(12, "period", PB_INT64),
  R(13, "comment", PB_INT64), F(14, "default_sample_type", PB_INT64), F(15, "doc_url", PB_INT64),
};
const PbMsgDef pb_pprof_Profile = { "perftools.profiles.Profile", aProfile, N(aProfile), 0, "Profile" };

/* ------------------------------------------------------------------ Any payloads */
static const PbMsgDef *const apKnown[] = {
  &pb_PerGenericStepDetails, &pb_BottleneckAnalysis, &pb_GenericStepTimeBreakdown,
  &pb_GenericRecommendation, &pb_InputPipelineAnalysisResult, &pb_StepSummary,
  &pb_InputOpDetails, &pb_InputTimeBreakdown, &pb_Diagnostics, 0
};
const PbRegistry pb_xprof_registry = { apKnown };

/* ------------------------------------------------------------------ telling the messages apart */

/* The candidates, in the order a tie goes (the first). */
static const PbMsgDef *const apFit[] = {
  &pb_XSpace, &pb_TfStatsDatabase, &pb_KernelStatsDb, &pb_InputPipelineAnalysisResult,
  &pb_OverviewPage, &pb_MemoryProfile, &pb_OldTrace, &pb_Trace, &pb_pprof_Profile,
};

/* The result for the bytes being detected, kept while ps_format_detect() asks each format's
** probe about the same bytes: the protobuf probes share one walk of the schemas. */
static __thread struct { const char *z; size_t n; const PbMsgDef *p; int score; int bOn; } g_memo;

void ps_protobuf_fit_memo(const char *z, size_t n, int bOn){
  g_memo.bOn = 0;
  if( !bOn ) return;
  g_memo.p = ps_protobuf_fit(z, n, &g_memo.score);
  g_memo.z = z; g_memo.n = n; g_memo.bOn = 1;
}

const PbMsgDef *ps_protobuf_fit(const char *z, size_t n, int *pScore){
  if( g_memo.bOn && g_memo.z==z && g_memo.n==n ){ *pScore = g_memo.score; return g_memo.p; }
  int best = 1, iBest = -1;       /* at least two distinct fields of the schema */
  *pScore = 0;
  if( n==0 ) return 0;
  unsigned char c = (unsigned char)z[0];
  if( c=='[' || c=='{' || c==' ' || c=='\t' || c=='\r' || c==0xEF ) return 0;   /* JSON / text */
  for(size_t k=0; k<sizeof(apFit)/sizeof(apFit[0]); k++){
    int s = pb_fit((const uint8_t*)z, n, apFit[k], &pb_xprof_registry, 4096);
    if( s>best ){ best = s; iBest = (int)k; }
  }
  if( iBest<0 ) return 0;
  *pScore = best;
  return apFit[iBest];
}
