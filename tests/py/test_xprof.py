"""The TensorFlow profiler's result protobufs (tf_stats, kernel_stats, input_pipeline,
overview_page, memory_profile, xprof_trace), checked against values computed by hand and against an
independent decoder (Debian's Python protobuf over protoc's descriptors of the .proto files in
../shared/corpus/xprof/protos; tests/py/xprof_ref.py):

  1. the hand-made inputs tests/data/xprof/*.txtpb (their .pb is `protoc --encode` of them; the
     expected rows are written in each .txtpb's header): every row and the metadata, edge values
     (proto3 zeros not on the wire, DBL_MIN, NaN/Infinity, negative int64, uint64 max, non-ASCII,
     an Any of an unknown type, packed and unpacked repeated fields, rounding halves);
  2. each committed .pb is byte for byte what protoc makes of its .txtpb, and every attrs/args/JSON
     metadata value equals the reference JSON of the same bytes;
  3. detection: each file without the format argument, each forced, forced wrong formats, the XSpace
     corpus still 'xspace', a protobuf of none of these messages;
  4. bad input: every prefix of the hand files and a sample of the corpus files' prefixes either
     load (giving a prefix of the full rows) or fail naming a byte offset; hand-built corrupt bytes
     (length past the end, a length past its parent, wrong wire type, group wire types, varints
     longer than 10 bytes, truncated fixed64) fail naming the offset and the message;
  5. profile_report() and profile_import() accept every format;
  6. the corpus files in ../shared/corpus/xprof: counts per record set, sums per op type, every
     record's attrs, every step, the metadata, and the facts ../shared/corpus/README.md states.
Parts 2 and 6 skip (with a SKIP line) without ../shared or protoc. Speed is not asserted."""
import collections
import decimal
import json
import os
import random
import sqlite3
import tempfile

import testlib
import xprof_ref
from testlib import check, connect, done, skip_part

DATA = os.path.join("tests", "data", "xprof")
CORPUS = os.path.join("..", "shared", "corpus", "xprof")
XPLANE = os.path.join("..", "shared", "corpus", "xplane")
HAND = {                      # file -> (format, message)
    "tf_stats.pb": ("tf_stats", "tensorflow.profiler.TfStatsDatabase"),
    "kernel_stats.pb": ("kernel_stats", "tensorflow.profiler.KernelStatsDb"),
    "input_pipeline.pb": ("input_pipeline", "tensorflow.profiler.InputPipelineAnalysisResult"),
    "overview_page.pb": ("overview_page", "tensorflow.profiler.OverviewPage"),
    "memory_profile.pb": ("memory_profile", "tensorflow.profiler.MemoryProfile"),
    "trace_old.pb": ("xprof_trace", "tensorboard_plugin_profile.Trace"),
    "trace_new.pb": ("xprof_trace", "tensorflow.profiler.Trace"),
}
DBL_MIN = 2.2250738585072014e-308
STEP = "type.googleapis.com/tensorflow.profiler.PerGenericStepDetails"

db = connect()


def rows(sql, args=()):
    return testlib.rows(db, sql, args)


def error(sql, args=()):
    """The error message of a query, or None when it runs."""
    return testlib.error(db, sql, args)


def recs(src, fmt=None):
    return rows("SELECT * FROM profile_records(?, ?) ORDER BY record_id", (src, fmt))


def evs(src, fmt=None):
    return rows("SELECT * FROM profile_events(?, ?) ORDER BY id", (src, fmt))


def meta(src, scope, fmt=None):
    return {r["key"]: r["value"] for r in rows("SELECT key, value FROM profile_metadata(?, ?) WHERE scope = ?",
                                              (src, fmt, scope))}


def fmt_of(src):
    r = rows("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'format'", (src,))
    return r[0]["value"] if r else None


def loads(text, what):
    """json.loads of a JSON column; a failed check (and None) when it is not JSON."""
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        check(False, f"{what}: not JSON", text)
        return None


def same(ours, want, what):
    """ours: JSON text from libprofsql; want: the expected JSON value (xprof_ref.same's rules)."""
    o = loads(ours, what)
    if o is not None:
        diff = xprof_ref.same(o, want)
        check(diff is None, f"{what}: {diff}")


def rnd(x, mult):
    """x * mult as libprofsql computes it: x taken as the shortest decimal that reads back as the
    double (Python's repr), scaled exactly, rounded half away from zero."""
    return int((decimal.Decimal(repr(x)) * decimal.Decimal(repr(mult))).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def pick(rs, cols):
    return [tuple(r.get(c, "<no column>") for c in cols) for r in rs]


def path(name):
    return os.path.join(DATA, name)


# ---------------------------------------------------------------------------------------------
# 0. profile_records' columns: record_set and attrs after line, before file
cols = [r["name"] for r in rows("SELECT name FROM pragma_table_xinfo('profile_records')")]
check("line" in cols and "file" in cols and cols[cols.index("line") + 1:cols.index("file")] == ["record_set", "attrs"],
      "profile_records: record_set, attrs between line and file", cols)

# ---------------------------------------------------------------------------------------------
# 1. hand-made files against the hand computation in their .txtpb headers
RCOLS = ("record_id", "record_set", "name", "category", "group_name", "count", "time_ns", "self_ns")
ECOLS = ("id", "name", "dur", "ts")


def common_records(name, rs):
    """Every xprof record: line, parent_record_id NULL, depth 0; attrs is JSON."""
    for r in rs:
        check(r.get("line", 0) is None and r.get("parent_record_id", 0) is None and r.get("depth") == 0,
              f"{name} record {r.get('record_id')}: line/parent NULL, depth 0",
              (r.get("line"), r.get("parent_record_id"), r.get("depth")))


# --- kernel_stats
src = path("kernel_stats.pb")
rs = recs(src)
check(pick(rs, RCOLS + ("peak_ns",)) == [
    (1, "reports", "volta_sgemm_128x64_nn", "model/dense/MatMul", None, 250, 1500000, 1500000, 9000),
    (2, "reports", "void cudnn::ядро<float>(…)", "model/conv2d/Conv2D", None, 2, 5000000000, 5000000000, 4999999999),
    (3, "reports", "", "", None, 0, 0, 0, 0)], "kernel_stats rows", pick(rs, RCOLS + ("peak_ns",)))
common_records("kernel_stats", rs)
if len(rs) == 3:
    same(rs[0]["attrs"], {"name": "volta_sgemm_128x64_nn", "registers_per_thread": 126, "static_shmem_bytes": 16384,
                          "dynamic_shmem_bytes": 0, "block_dim": [256, 1, 1], "grid_dim": [64, 8, 1],
                          "total_duration_ns": 1500000, "min_duration_ns": 1200, "max_duration_ns": 9000,
                          "is_kernel_using_tensor_core": False, "is_op_tensor_core_eligible": True,
                          "op_name": "model/dense/MatMul", "occurrences": 250, "occupancy_pct": xprof_ref.F32(12.5)},
         "kernel_stats attrs 1")
    same(rs[1]["attrs"], {"name": "void cudnn::ядро<float>(…)", "registers_per_thread": 4294967295,
                          "static_shmem_bytes": 0, "dynamic_shmem_bytes": 49152, "block_dim": [128, 2, 1],
                          "grid_dim": [1, 1, 4294967295], "total_duration_ns": 5000000000, "min_duration_ns": 1,
                          "max_duration_ns": 4999999999, "is_kernel_using_tensor_core": True,
                          "is_op_tensor_core_eligible": True, "op_name": "model/conv2d/Conv2D", "occurrences": 2,
                          "occupancy_pct": xprof_ref.F32(33.333332)}, "kernel_stats attrs 2 (uint32 max, float)")
    same(rs[2]["attrs"], {"name": "", "registers_per_thread": 0, "static_shmem_bytes": 0, "dynamic_shmem_bytes": 0,
                          "block_dim": [], "grid_dim": [], "total_duration_ns": 0, "min_duration_ns": 0,
                          "max_duration_ns": 0, "is_kernel_using_tensor_core": False,
                          "is_op_tensor_core_eligible": False, "op_name": "", "occurrences": 0,
                          "occupancy_pct": 0.0}, "kernel_stats attrs 3 (an empty report: every default)")
check(meta(src, "kernel_stats") == {"reports": 3}, "kernel_stats metadata", meta(src, "kernel_stats"))

# the same repeated uint32 written unpacked, and packed then unpacked (a parser must accept both)
k = b"\x0a\x01k" + b"\x28\x80\x02\x28\x01\x28\x01" + b"\x32\x02\x03\x04\x30\x05"
blob = b"\x0a" + bytes([len(k)]) + k
rs = recs(blob, "kernel_stats")
if len(rs) == 1:
    a = loads(rs[0]["attrs"], "unpacked block_dim")
    check(a and a.get("block_dim") == [256, 1, 1] and a.get("grid_dim") == [3, 4, 5],
          "unpacked block_dim [256,1,1]; packed+unpacked grid_dim [3,4,5]", a)
else:
    check(False, "unpacked repeated: one record", rs)

# --- tf_stats
# Record 3: 0.5005 us. The stored double is 0.50049999999999994493... (times 1000 in binary64:
# 500.49999999999994); libprofsql scales the shortest decimal that prints the double, "0.5005", as
# the user reads it: 500.5 ns, rounded half away from zero -> 501.
src = path("tf_stats.pb")
rs = recs(src)
check(pick(rs, RCOLS) == [
    (1, "with_idle", "IDLE", "IDLE", "Device", 1, 1000500, 1000500),
    (2, "with_idle", "model/conv2d/Conv2D", "Conv2D", "Device", 3, 1001, 3),
    (3, "with_idle", "Iterator::Model::Prefetch[0]::Map", "Iterator", "Host", 7, 501, 501),
    (4, "with_idle", "数据/变换", "变换", "Host", -1, -3, 0),
    (5, "without_idle", "model/conv2d/Conv2D", "Conv2D", "Device", 3, 1001, 3)], "tf_stats rows", pick(rs, RCOLS))
check(all(r.get("avg") is None and r.get("peak_ns") is None for r in rs), "tf_stats: avg, peak_ns NULL")
common_records("tf_stats", rs)
if len(rs) == 5:
    a = loads(rs[1]["attrs"], "tf_stats attrs 2") or {}
    check(a.get("avg_self_time_in_us") == "NaN" and a.get("measured_flop_rate") == "Infinity"
          and a.get("operational_intensity") == "-Infinity", "tf_stats: NaN, Infinity, -Infinity as strings", a)
    check(a.get("gpu_tensorcore_utilization") == DBL_MIN and a.get("flops") == 18446744073709551615
          and a.get("rank") == 2 and a.get("bytes_accessed") == 1 and a.get("is_eager") is False
          and a.get("model_flop_rate") == 0 and a.get("total_time_in_us") == 1.0005,
          "tf_stats: DBL_MIN, uint64 max, zero fields present", a)
    a = loads(rs[3]["attrs"], "tf_stats attrs 4") or {}
    check(a.get("occurrences") == -1 and a.get("total_time_in_us") == -0.0025 and a.get("op_name") == "数据/变换"
          and a.get("total_self_time_in_us") == DBL_MIN and a.get("bound_by") == "", "tf_stats: negative int64", a)
    check((loads(rs[2]["attrs"], "tf_stats attrs 3") or {}).get("is_eager") is True, "tf_stats: is_eager true")
m = meta(src, "tf_stats")
want = {"device_type": "GPU", "with_idle.host_tf_pprof_key": "host-key", "with_idle.device_tf_pprof_key": "",
        "without_idle.host_tf_pprof_key": "", "without_idle.device_tf_pprof_key": "device-key/ü",
        "with_idle.records": 4, "with_idle.occurrences": 10, "with_idle.total_self_time_ns": 1001004,
        "with_idle.Device.total_self_time_ns": 1000503, "with_idle.Host.total_self_time_ns": 501,
        "without_idle.records": 1, "without_idle.occurrences": 3, "without_idle.total_self_time_ns": 3,
        "without_idle.Device.total_self_time_ns": 3}
check(m == want, "tf_stats metadata", sorted(set(m.items()) ^ set(want.items())))

# --- input_pipeline
src = path("input_pipeline.pb")
es = evs(src)
check(pick(es, ECOLS) == [(0, "step 0", 10000001, None), (1, "train ü", 3, None), (2, "step -3", 1, None),
                          (3, None, None, None), (4, "step 9", 0, None)], "input_pipeline events", pick(es, ECOLS))
known = [e for e in es if e["id"] != 3]
check(all((e["ph"], e["cat"], e["pid"], e["tid"], e["process_name"], e["thread_name"], e["depth"]) ==
          ("X", "step", 0, 0, "GPU", "Steps", None) for e in known),
      "input_pipeline: ph X, cat step, pid/tid 0, process_name = hardware_type, thread_name Steps, depth NULL",
      pick(known, ("ph", "cat", "pid", "tid", "process_name", "thread_name", "depth")))
if len(es) == 5:
    same(es[0]["args"], {"step_number": 0, "step_name": "", "step_time_ms": 10.0000005, "unknown_time_ms": 0.0,
                         "host_wait_input_ms": 2.0000005, "host_to_device_ms": 0.0, "output_ms": 0.0,
                         "device_compute_ms": 8.0, "device_to_device_ms": 0.0, "device_collectives_ms": 0.0,
                         "host_compute_ms": 0.0, "host_prepare_ms": 0.0, "host_compile_ms": 0.0},
         "input_pipeline step 0 args (no @type, zeros present)")
    a2 = loads(es[2]["args"], "step 2 args") or {}
    check(a2.get("step_number") == -3 and "@type" not in a2, "input_pipeline step 2: step_number -3", a2)
    same(es[3]["args"], {"@type": "type.googleapis.com/acme.UnknownStep", "value": "AQL/"},
         "input_pipeline: an Any of an unknown type")
    a4 = loads(es[4]["args"], "step 4 args") or {}
    check(a4.get("unknown_time_ms") == "NaN" and a4.get("step_time_ms") == DBL_MIN, "input_pipeline step 4: NaN, DBL_MIN", a4)
diag = rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'diagnostic'", (src,))
check(any(d["key"] == "other" for d in diag), "input_pipeline: an 'other' diagnostic for the unknown Any", diag)
rs = recs(src)
check(pick(rs, RCOLS) == [
    (1, "input_op_details", "Iterator::Model::Prefetch[0]::Map", "Preprocessing", None, 3, 1500000, 250000),
    (2, "input_op_details", "Iterator::Model::Prefetch[0]::Map::TFRecord", "Advanced file read", None, 0, 3, 2)],
    "input_pipeline records", pick(rs, RCOLS))
common_records("input_pipeline", rs)
if len(rs) == 2:
    same(rs[1]["attrs"], {"op_name": "Iterator::Model::Prefetch[0]::Map::TFRecord", "count": 0,
                          "time_in_ms": 2.5e-06, "time_in_percent": 1e-300, "self_time_in_ms": 1.5e-06,
                          "self_time_in_percent": 0.0, "category": "Advanced file read"}, "input_op_details attrs 2")
m = meta(src, "input_pipeline")
IP_SCALARS = {"tag": 1, "hardware_type": "GPU", "input_percent": 12.5, "output_percent": 0.0, "idle_percent": DBL_MIN,
              "compute_percent": 87.5, "steps": 5, "input_op_details": 2}
check(set(m) == set(IP_SCALARS) | {"step_time_summary", "input_time_breakdown", "recommendation", "step_time_breakdown",
                                   "diagnostics"}, "input_pipeline metadata keys (no input_percent_summary: absent)",
      sorted(m))
check({k: m.get(k) for k in IP_SCALARS} == IP_SCALARS, "input_pipeline scalar metadata",
      {k: m.get(k) for k in IP_SCALARS})
check(all(isinstance(m.get(k), float) for k in ("input_percent", "output_percent", "idle_percent", "compute_percent"))
      and type(m.get("tag")) is int, "input_pipeline: percentages REAL, tag INT")
same(m.get("step_time_summary"), {"average": 3.5, "standard_deviation": 0.5, "minimum": 2.5e-06, "maximum": 10.0000005},
     "step_time_summary")
same(m.get("input_time_breakdown"), {"demanded_file_read_us": 0.0, "advanced_file_read_us": 1.5, "preprocessing_us": 100.0,
                                     "enqueue_us": 0.0, "unclassified_non_enqueue_us": 0.0}, "input_time_breakdown")
same(m.get("recommendation"), {
    "details": ["Preprocessing: see <a href=\"https://www.tensorflow.org/guide/data_performance\" target=\"_blank\">"
                "tf.data</a>", "second\ttip"],
    "bottleneck_analysis": {"@type": "type.googleapis.com/tensorflow.profiler.BottleneckAnalysis", "input_percent": 12.5,
                            "output_percent": 0.0, "idle_percent": 0.0, "compute_percent": 0.0,
                            "input_classification": "host", "input_statement": "", "kernel_launch_classification": "no",
                            "kernel_launch_statement": "", "all_other_classification": "", "all_other_statement": "",
                            "device_collectives_classification": "", "device_collectives_statement": ""},
    "summary_next_step": "input_pipeline_analyzer"}, "recommendation (Any unpacked)")
same(m.get("step_time_breakdown"), {
    "@type": "type.googleapis.com/tensorflow.profiler.GenericStepTimeBreakdown",
    "unknown_time_ms_summary": {"average": 0.0, "standard_deviation": 0.0, "minimum": 0.0, "maximum": DBL_MIN},
    "device_compute_ms_summary": {"average": 8.0, "standard_deviation": 0.0, "minimum": 8.0, "maximum": 8.0}},
    "step_time_breakdown (absent summaries omitted)")
same(m.get("diagnostics"), {"info": ["1 info"], "warnings": [], "errors": ["bad \"quote\"\n"]}, "diagnostics")

# --- overview_page
src = path("overview_page.pb")
es = evs(src)
check(pick(es, ECOLS + ("process_name", "cat")) == [(0, "step 1", 1500000, None, "TPU", "step"),
                                                    (1, "warm-up", 2500, None, "TPU", "step")],
      "overview_page events (its input_analysis)", pick(es, ECOLS + ("process_name", "cat")))
rs = recs(src)
check(pick(rs, RCOLS) == [(1, "input_op_details", "InfeedEnqueueTuple", "Enqueue", None, 2, 750000, 500000),
                          (2, "top_device_ops", "fusion.1", "XLA Ops", None, None, None, None),
                          (3, "top_device_ops", "convolution.2", "", None, None, None, None)],
      "overview_page records", pick(rs, RCOLS))
common_records("overview_page", rs)
if len(rs) == 3:
    same(rs[2]["attrs"], {"name": "convolution.2", "category": "", "self_time_fraction": 0.125,
                          "cumulative_time_fraction": 0.375, "flop_rate": 0.0, "is_op_tensorcore_eligible": False,
                          "is_op_using_tensorcore": False}, "top_device_ops attrs 2")
m = meta(src, "overview_page")
check(set(m) == {"run_environment", "analysis", "recommendation", "diagnostics", "inference_latency"},
      "overview_page metadata keys", sorted(m))
same(m.get("run_environment"), {
    "host_count": 2, "task_count": 2, "hostnames": {"worker-0": True, "wörker-1": False}, "device_type": "TPU",
    "device_core_count": 8,
    "host_independent_job_info": {"change_list": -42, "build_time": 1700000000000000000, "build_target": "//train:main",
                                  "profile_duration_ms": 2000},
    "host_dependent_job_info": [{"host_id": "worker-0", "command_line": "python3 train.py --steps=10", "start_time": -1,
                                 "bns_address": "", "profile_time_ns": 18446744073709551615}],
    "replica_count": 8, "num_cores_per_replica": 1, "is_training": True}, "run_environment (power_metrics absent)")
a = loads(m.get("analysis"), "analysis") or {}
check(a.get("mxu_utilization_percent") == 45.5 and a.get("remark_text") == "Ok" and a.get("host_trace_level") == 2
      and len(a.get("top_device_ops", [])) == 2 and a.get("device_idle_time_percent") == 0, "analysis", a)
r = loads(m.get("recommendation"), "recommendation") or {}
same(json.dumps(r.get("recommendation")), {
    "@type": "type.googleapis.com/tensorflow.profiler.GenericRecommendation", "kernel_launch_bottleneck": "no",
    "kernel_launch_statement": "", "all_other_bottleneck": "", "all_other_statement": "",
    "precision_statement": "Only 0.0% of device computation is 16 bit.", "device_collectives_bottleneck": "",
    "device_collectives_statement": ""}, "overview recommendation.recommendation (Any unpacked)")
check(r.get("host_tips") == [{"link": "input_pipeline_analyzer"}] and r.get("input_tips") == []
      and r.get("bottleneck") == "device", "overview recommendation tips", r)
same(m.get("diagnostics"), {"info": [], "warnings": ["w1", "w2"], "errors": []}, "overview diagnostics")
same(m.get("inference_latency"), {
    "percentile_numbers": [50.0, 99.9],
    "latency_breakdowns": [{"total_latency_us": 10.0, "host_latency_us": 4.0, "device_latency_us": 6.0,
                            "communication_latency_us": 0.0},
                           {"total_latency_us": "Infinity", "host_latency_us": 0.0, "device_latency_us": 0.0,
                            "communication_latency_us": 0.0}],
    "max_latency_us": 12.5, "min_latency_us": 0.0, "sessions_per_second": 3.5}, "inference_latency")
m = meta(src, "input_pipeline")
check({k: m.get(k) for k in ("tag", "hardware_type", "input_percent", "steps", "input_op_details")} ==
      {"tag": 0, "hardware_type": "TPU", "input_percent": 0.0, "steps": 2, "input_op_details": 1},
      "overview_page: input_analysis metadata", m)
check(set(m) == {"tag", "hardware_type", "input_percent", "output_percent", "idle_percent", "compute_percent",
                 "recommendation", "steps", "input_op_details"}, "overview_page: input_analysis metadata keys", sorted(m))
same(m.get("recommendation"), {"details": [], "summary_next_step": "",
                               "bottleneck_analysis": {"@type": "type.googleapis.com/acme.Bottleneck", "value": "CAE="}},
     "input_analysis recommendation: an Any of an unknown type")

# --- memory_profile
src = path("memory_profile.pb")
es = evs(src)
MP, ST = "memory_profile_snapshots", "sampled_timeline_snapshots"
check(pick(es, ("id", "name", "cat", "ts", "dur", "ph", "pid", "tid", "process_name")) == [
    (0, "GPU_0_bfc", MP, 2, None, "C", "GPU_0_bfc", 0, "GPU_0_bfc"),
    (1, "GPU_0_bfc", MP, 2, None, "C", "GPU_0_bfc", 0, "GPU_0_bfc"),
    (2, "GPU_0_bfc", MP, 3, None, "C", "GPU_0_bfc", 0, "GPU_0_bfc"),
    (3, "GPU_0_bfc", MP, 1000000000, None, "C", "GPU_0_bfc", 0, "GPU_0_bfc"),
    (4, "GPU_0_bfc", ST, 2, None, "C", "GPU_0_bfc", 0, "GPU_0_bfc"),
    (5, "GPU_0_bfc", ST, 3, None, "C", "GPU_0_bfc", 0, "GPU_0_bfc"),
    (6, "cpu", MP, -2, None, "C", "cpu", 0, "cpu"),
    (7, "cpu", MP, 0, None, "C", "cpu", 0, "cpu")], "memory_profile events",
    pick(es, ("id", "name", "cat", "ts", "dur", "ph", "pid", "tid", "process_name")))
if len(es) == 8:
    same(es[0]["args"], {"time_offset_ps": 1500,
                         "aggregation_stats": {"stack_reserved_bytes": 0, "heap_allocated_bytes": 1024,
                                               "free_memory_bytes": 3072, "fragmentation": 0.25, "peak_bytes_in_use": 1024},
                         "activity_metadata": {"memory_activity": "ALLOCATION", "requested_bytes": 1000,
                                               "allocation_bytes": 1024, "address": 18446744073709551615,
                                               "tf_op_name": "model/dense/MatMul", "step_id": 3, "region_type": "output",
                                               "data_type": "float", "tensor_shape": "[16, 16]"}}, "memory snapshot 0 args")
    a = loads(es[2]["args"], "snapshot 2") or {}
    check(a.get("activity_metadata", {}).get("memory_activity") == "RESERVATION"
          and a.get("activity_metadata", {}).get("step_id") == -1
          and a.get("activity_metadata", {}).get("tf_op_name") == "ünïcode/op", "memory snapshot 2", a)
    a = loads(es[3]["args"], "snapshot 3") or {}
    check(a.get("activity_metadata", {}).get("memory_activity") == 7 and "aggregation_stats" not in a,
          "memory snapshot 3: unknown enum 7 as a number, absent aggregation_stats omitted", a)
    same(es[6]["args"], {"time_offset_ps": -1500,
                         "activity_metadata": {"memory_activity": "EXPANSION", "requested_bytes": -8,
                                               "allocation_bytes": 0, "address": 0, "tf_op_name": "", "step_id": 0,
                                               "region_type": "", "data_type": "", "tensor_shape": ""}},
         "memory snapshot 6 (negative time)")
    same(es[7]["args"], {"time_offset_ps": 0}, "memory snapshot 7 (empty)")
m = meta(src, "memory_profile")
check({k: m.get(k) for k in ("num_hosts", "version")} == {"num_hosts": 1, "version": 1}, "memory_profile num_hosts, version", m)
same(m.get("memory_ids"), ["cpu", "GPU_0_bfc"], "memory_ids")
m = meta(src, "GPU_0_bfc")
same(m.get("profile_summary"), {"peak_bytes_usage_lifetime": 1024,
                                "peak_stats": {"stack_reserved_bytes": 0, "heap_allocated_bytes": 1024,
                                               "free_memory_bytes": 3072, "fragmentation": 0.25, "peak_bytes_in_use": 1024},
                                "peak_stats_time_ps": 1500, "memory_capacity": 4096}, "GPU_0_bfc profile_summary")
same(m.get("active_allocations"), [{"snapshot_index": 0, "special_index": 0, "num_occurrences": 1},
                                   {"snapshot_index": -1, "special_index": 0, "num_occurrences": 1}], "active_allocations")
same(m.get("special_allocations"), [{"memory_activity": "ALLOCATION", "requested_bytes": 256, "allocation_bytes": 256,
                                     "address": 0, "tf_op_name": "preallocated/unknown", "step_id": 0,
                                     "region_type": "persist", "data_type": "", "tensor_shape": ""}], "special_allocations")
# reading taken ('snapshots (INT count)' does not say which list): the allocator's event rows, i.e. its
# memory_profile_snapshots plus its sampled_timeline_snapshots, 4 + 2
check(m.get("snapshots") == 6, "GPU_0_bfc snapshots = 6 (its rows: 4 memory_profile + 2 sampled_timeline)",
      m.get("snapshots"))
m = meta(src, "cpu")
same(m.get("profile_summary"), {"peak_bytes_usage_lifetime": 0, "peak_stats_time_ps": 0, "memory_capacity": 1},
     "cpu profile_summary (peak_stats absent)")
check(m.get("active_allocations") == "[]" or loads(m.get("active_allocations"), "cpu active") == [], "cpu active []")
check(loads(m.get("special_allocations"), "cpu special") == [] and m.get("snapshots") == 2, "cpu special [], snapshots 2 + 0", m)

# --- xprof_trace, old shape
src = path("trace_old.pb")
es = evs(src)
TC = ("id", "name", "ts", "dur", "pid", "tid", "process_name", "thread_name", "depth", "parent_id", "offset_ps", "duration_ps")
check(pick(es, TC) == [
    (0, "train_step", 1000, 5000, 1, 10, "/host:CPU", "tf_Compute", 0, None, 1000000, 5000000),
    (1, "Conv2D", 1501, 1000, 1, 10, "/host:CPU", "tf_Compute", 1, 0, 1500500, 1000000),
    (2, "Relu", 2600, 400, 1, 10, "/host:CPU", "tf_Compute", 1, 0, 2600000, 400000),
    (3, "python_fn", 0, 0, 1, 11, "/host:CPU", "python3 ü", 0, None, 0, 0),
    (4, "volta_sgemm", 1700, 2000, 2, 0, "/device:GPU:0", "Stream #0", 0, None, 1700000, 2000000),
    (5, "orphan", 4, 1, 3, 5, None, None, 0, None, 4000, 1499),
    (6, "Conv2D::Compute", 1600, 1, 1, 10, "/host:CPU", "tf_Compute", 2, 1, 1600000, 500)],
    "xprof_trace (old) events", pick(es, TC))
check(all(e["ph"] == "X" for e in es), "xprof_trace events are ph X")
if len(es) == 7:
    same(es[0]["args"], {"step_num": "3", "long_name": "trän\"step\""}, "trace event 0 args")
    same(es[4]["args"], {"correlation_id": "42"}, "trace event 4 args")
    check(all(es[i]["args"] == "{}" for i in (1, 2, 3, 5, 6)), "events without args: the empty map, '{}'",
          [es[i]["args"] for i in (1, 2, 3, 5, 6)])
m = meta(src, "xprof_trace")
OLD_DEVICES = {"1": {"name": "/host:CPU", "device_id": 1,
                     "resources": {"10": {"name": "tf_Compute", "resource_id": 10},
                                   "11": {"name": "python3 ü", "resource_id": 11}}},
               "2": {"name": "/device:GPU:0", "device_id": 2, "resources": {"0": {"name": "Stream #0", "resource_id": 0}}}}
same(m.get("devices"), OLD_DEVICES, "old trace devices")
check(not set(m) & {"tasks", "min_timestamp_ps", "max_timestamp_ps", "num_events", "name_table"},
      "old trace: no new-shape metadata", sorted(m))

# --- xprof_trace, new shape
src = path("trace_new.pb")
check(evs(src) == [], "new-shape trace: no events")
m = meta(src, "xprof_trace")
check({k: m.get(k) for k in ("min_timestamp_ps", "max_timestamp_ps", "num_events")} ==
      {"min_timestamp_ps": 1000, "max_timestamp_ps": 99000000, "num_events": 7}, "new trace timestamps", m)
same(m.get("devices"), {"1": {"name": "/device:TPU:0", "device_id": 1,
                              "resources": {"2": {"name": "XLA Ops", "resource_id": 2, "num_events": 100}}},
                        "4294967295": {"name": "/host:CPU", "device_id": 0, "resources": {}}}, "new trace devices")
same(m.get("tasks"), {"0": {"changelist": 123, "clean_build": True, "build_time": -5, "build_target": "//x:y",
                            "command_line": "python3 train.py --name=ü", "start_time": 1700000000000000000,
                            "task_address": "10.0.0.1:8466", "profile_time_ns": 18446744073709551615,
                            "profile_duration_ms": 2000, "host_trace_level": 2, "tensor_core_freq_hz": 940000000,
                            "sparse_core_freq_hz": 0, "gtc_freq_hz": 0, "peak_memory_usage": 0, "cpu_limit": "NaN",
                            "cpu_usage": 0.5}}, "new trace tasks")
same(m.get("name_table"), {"17": "MatMul", "18446744073709551615": "fusion.1"}, "new trace name_table (fixed64 keys)")

# ---------------------------------------------------------------------------------------------
# 2. the committed .pb files are protoc's encoding of the .txtpb; every JSON value equals the reference's
why = xprof_ref.unavailable()
ref = None
if why:
    skip_part(f"xprof reference (protoc re-encoding, Python protobuf comparison): {why}")
else:
    ref = xprof_ref.Ref()
    for name in sorted(HAND):
        msg_name, enc = ref.encode(path(name[:-3] + ".txtpb"))
        check(msg_name == HAND[name][1], f"{name}: .txtpb header names {msg_name}")
        check(enc == open(path(name), "rb").read(), f"{name} is byte for byte protoc --encode of its .txtpb")


def check_records(src, fmt, want_sets, label):
    """profile_records of src against [(record_set, message)] in file order: ids, sets, attrs."""
    rs = recs(src, fmt)
    check(len(rs) == len(want_sets), f"{label}: {len(rs)} records, reference {len(want_sets)}")
    bad = 0
    for i, (r, (rset, msg)) in enumerate(zip(rs, want_sets)):
        o = json.loads(r["attrs"]) if r["attrs"] else None
        diff = None if r["record_id"] == i + 1 and r["record_set"] == rset else f"id/set {r['record_id']} {r['record_set']}"
        diff = diff or xprof_ref.same(o, ref.to_json(msg))
        if diff:
            bad += 1
            if bad <= 3:
                check(False, f"{label} record {i + 1}: {diff}")
    check(bad == 0, f"{label}: every record's id, set and attrs ({bad} differ)")
    return rs


def step_refs(ia):
    """(name, dur, args JSON) per step_details entry of an InputPipelineAnalysisResult, by the spec."""
    out = []
    for a in ia.step_details:
        j = ref.to_json(a)
        if a.type_url.split("/")[-1] != "tensorflow.profiler.PerGenericStepDetails":
            out.append((None, None, j))
            continue
        s = ref.unpack_any(a)
        j.pop("@type")
        out.append((s.step_name or f"step {s.step_number}", rnd(s.step_time_ms, 1e6), j))
    return out


def check_input_analysis(src, fmt, ia, label, n_before=0):
    """events, input_op_details records (from n_before+1) and scope 'input_pipeline' of an InputPipelineAnalysisResult."""
    es = evs(src, fmt)
    want = step_refs(ia)
    check(len(es) == len(want), f"{label}: {len(es)} steps, reference {len(want)}")
    bad = 0
    for e, (nm, dur, j) in zip(es, want):
        diff = None if (e["name"], e["dur"]) == (nm, dur) else f"name/dur {(e['name'], e['dur'])} != {(nm, dur)}"
        diff = diff or xprof_ref.same(json.loads(e["args"]) if e["args"] else None, j)
        if diff:
            bad += 1
            if bad <= 3:
                check(False, f"{label} step {e['id']}: {diff}")
    check(bad == 0, f"{label}: every step's name, dur and args ({bad} differ)")
    rs = [r for r in recs(src, fmt) if r["record_set"] == "input_op_details"]
    check([r["record_id"] for r in rs] == list(range(n_before + 1, n_before + 1 + len(ia.input_op_details))),
          f"{label}: input_op_details record ids")
    check(pick(rs, ("name", "category", "count", "time_ns", "self_ns")) ==
          [(d.op_name, d.category, d.count, rnd(d.time_in_ms, 1e6), rnd(d.self_time_in_ms, 1e6)) for d in ia.input_op_details],
          f"{label}: input_op_details name, category, count, time_ns, self_ns")
    bad = [r["record_id"] for r, d in zip(rs, ia.input_op_details) if xprof_ref.same(json.loads(r["attrs"]), ref.to_json(d))]
    check(not bad, f"{label}: input_op_details attrs", bad[:5])
    m = meta(src, "input_pipeline", fmt)
    j = ref.to_json(ia)
    for k in ("tag", "hardware_type", "input_percent", "output_percent", "idle_percent", "compute_percent"):
        v = j[k]
        check(m.get(k) == (int(v) if isinstance(v, bool) else v), f"{label}: metadata {k}", (m.get(k), v))
    for k in ("step_time_summary", "input_percent_summary", "input_time_breakdown", "recommendation",
              "step_time_breakdown", "diagnostics"):
        if k in j:
            diff = xprof_ref.same(json.loads(m[k]) if k in m else None, j[k])
            check(diff is None, f"{label}: metadata {k}: {diff}")
        else:
            check(k not in m, f"{label}: no metadata {k} (absent)")
    check(m.get("steps") == len(ia.step_details) and m.get("input_op_details") == len(ia.input_op_details),
          f"{label}: steps / input_op_details counts", (m.get("steps"), m.get("input_op_details")))


def check_file(src, fmt, msg, label):
    """Everything of one capture against the reference decoding msg."""
    if fmt == "tf_stats":
        want = [("with_idle", r) for r in msg.with_idle.tf_stats_record] + \
               [("without_idle", r) for r in msg.without_idle.tf_stats_record]
        rs = check_records(src, fmt, want, label)
        per = collections.defaultdict(lambda: [0, 0, 0, 0])
        for rset, r in want:
            p = per[(rset, r.op_type)]
            p[0] += 1; p[1] += r.occurrences; p[2] += rnd(r.total_time_in_us, 1000); p[3] += rnd(r.total_self_time_in_us, 1000)
        ours = {(r["record_set"], r["category"]): [r["n"], r["occ"], r["t"], r["s"]] for r in rows(
            "SELECT record_set, category, count(*) AS n, sum(count) AS occ, sum(time_ns) AS t, sum(self_ns) AS s "
            "FROM profile_records(?, ?) GROUP BY 1, 2", (src, fmt))}
        check(ours == dict(per), f"{label}: per op_type: records, occurrences, sum(time_ns), sum(self_ns)",
              sorted(set(map(str, ours.items())) ^ set(map(str, per.items())))[:4])
        check(pick(rs, ("name", "group_name", "time_ns", "self_ns")) ==
              [(r.op_name, r.host_or_device, rnd(r.total_time_in_us, 1000), rnd(r.total_self_time_in_us, 1000))
               for _, r in want], f"{label}: every record's name, group_name, time_ns, self_ns")
        m = meta(src, "tf_stats", fmt)
        w = {"device_type": msg.device_type}
        for s in ("with_idle", "without_idle"):
            t = getattr(msg, s)
            w[f"{s}.host_tf_pprof_key"] = t.host_tf_pprof_key
            w[f"{s}.device_tf_pprof_key"] = t.device_tf_pprof_key
            w[f"{s}.records"] = len(t.tf_stats_record)
            w[f"{s}.occurrences"] = sum(r.occurrences for r in t.tf_stats_record)
            w[f"{s}.total_self_time_ns"] = sum(rnd(r.total_self_time_in_us, 1000) for r in t.tf_stats_record)
            for r in t.tf_stats_record:
                k = f"{s}.{r.host_or_device}.total_self_time_ns"
                w[k] = w.get(k, 0) + rnd(r.total_self_time_in_us, 1000)
        check(m == w, f"{label}: tf_stats metadata", sorted(set(m.items()) ^ set(w.items()))[:6])
    elif fmt == "kernel_stats":
        check_records(src, fmt, [("reports", r) for r in msg.reports], label)
    elif fmt == "input_pipeline":
        check_records(src, fmt, [("input_op_details", r) for r in msg.input_op_details], label)
        check_input_analysis(src, fmt, msg, label)
    elif fmt == "overview_page":
        want = [("input_op_details", r) for r in msg.input_analysis.input_op_details] + \
               [("top_device_ops", r) for r in msg.analysis.top_device_ops]
        rs = check_records(src, fmt, want, label)
        top = [r for r in rs if r["record_set"] == "top_device_ops"]
        check(pick(top, ("name", "category", "count", "time_ns")) ==
              [(o.name, o.category, None, None) for o in msg.analysis.top_device_ops], f"{label}: top_device_ops rows")
        if msg.HasField("input_analysis"):
            check_input_analysis(src, fmt, msg.input_analysis, label)
        m = meta(src, "overview_page", fmt)
        for k in ("run_environment", "analysis", "recommendation", "diagnostics", "inference_latency"):
            if msg.HasField(k):
                diff = xprof_ref.same(json.loads(m[k]) if k in m else None, ref.to_json(getattr(msg, k)))
                check(diff is None, f"{label}: metadata {k}: {diff}")
            else:
                check(k not in m, f"{label}: no metadata {k} (absent)")
    elif fmt == "memory_profile":
        es = evs(src, fmt)
        order = wire_map_keys(open(src, "rb").read() if isinstance(src, str) else src)    # the reference's map has no order: read it off the wire
        check(sorted(order) == sorted(msg.memory_profile_per_allocator), f"{label}: allocators", order)
        want = []
        for k in order:
            a = msg.memory_profile_per_allocator[k]
            for cat in ("memory_profile_snapshots", "sampled_timeline_snapshots"):
                want += [(k, cat, ps_to_ns(s.time_offset_ps), s) for s in getattr(a, cat)]
        check(len(es) == len(want), f"{label}: {len(es)} snapshots, reference {len(want)}")
        bad = [e["id"] for e, (k, cat, ts, s) in zip(es, want)
               if (e["name"], e["pid"], e["cat"], e["ts"]) != (k, k, cat, ts) or xprof_ref.same(json.loads(e["args"]), ref.to_json(s))]
        check(not bad, f"{label}: every snapshot's name, pid, cat, ts, args", bad[:5])
        mm = meta(src, "memory_profile", fmt)
        check((mm.get("num_hosts"), mm.get("version")) == (msg.num_hosts, msg.version), f"{label}: num_hosts, version")
        check(json.loads(mm.get("memory_ids", "null")) == list(msg.memory_ids), f"{label}: memory_ids")
        for k in order:
            a = msg.memory_profile_per_allocator[k]
            ma = meta(src, k, fmt)
            aj = ref.to_json(a)
            for f in ("active_allocations", "special_allocations") + (("profile_summary",) if a.HasField("profile_summary") else ()):
                diff = xprof_ref.same(json.loads(ma[f]) if f in ma else None, aj[f])
                check(diff is None, f"{label}: {k} {f}: {diff}")
    elif fmt == "xprof_trace":
        j = ref.to_json(msg)
        m = meta(src, "xprof_trace", fmt)
        for k in ("devices", "tasks", "name_table"):
            if k in j:
                diff = xprof_ref.same(json.loads(m[k]) if k in m else None, j[k])
                check(diff is None, f"{label}: metadata {k}: {diff}")
        if msg.DESCRIPTOR.full_name == "tensorflow.profiler.Trace":
            for k in ("min_timestamp_ps", "max_timestamp_ps", "num_events"):
                check(m.get(k) == j[k], f"{label}: metadata {k}", (m.get(k), j[k]))
        else:
            es = evs(src, fmt)
            check(len(es) == len(msg.trace_events), f"{label}: one event per TraceEvent")
            bad = []
            for e, t in zip(es, msg.trace_events):
                dev = msg.devices.get(t.device_id)
                res = dev.resources.get(t.resource_id) if dev is not None else None
                w = (t.name, ps_to_ns(t.timestamp_ps), ps_to_ns(t.duration_ps), t.device_id, t.resource_id,
                     dev.name if dev is not None else None, res.name if res is not None else None,
                     t.timestamp_ps, t.duration_ps, dict(t.args))
                o = (e["name"], e["ts"], e["dur"], e["pid"], e["tid"], e["process_name"], e["thread_name"],
                     e["offset_ps"], e["duration_ps"], json.loads(e["args"]) if e["args"] else {})
                if o != w:
                    bad.append((e["id"], o, w))
            check(not bad, f"{label}: every event against the reference", bad[:2])


def ps_to_ns(ps):
    """ps -> ns, halves away from zero, in integers."""
    q, r = divmod(abs(ps), 1000)
    q += r >= 500
    return q if ps >= 0 else -q


def wire_map_keys(data):
    """The keys of the map<string, ...> in field 1 of a message, in the order they are on the wire."""
    def varint(i):
        return testlib.read_varint(data, i)

    def skip(i, wt):
        if wt == 0:
            return varint(i)[1]
        if wt == 1:
            return i + 8
        if wt == 5:
            return i + 4
        n, i = varint(i)
        return i + n

    out, i = [], 0
    while i < len(data):
        tag, i = varint(i)
        if tag != 0x0a:
            i = skip(i, tag & 7)
            continue
        n, i = varint(i)
        j, end = i, i + n
        while j < end:             # the entry: key = field 1 (a string)
            t, j = varint(j)
            if t == 0x0a:
                kn, j = varint(j)
                out.append(data[j:j + kn].decode())
                break
            j = skip(j, t & 7)
        i = end
    return out


if ref:
    for name in sorted(HAND):
        fmt, msg_name = HAND[name]
        data = open(path(name), "rb").read()
        check_file(path(name), fmt, ref.parse(msg_name, data), f"{name} vs reference")

    # every field of every message: each top-level message with all its fields set (sub-messages to
    # depth 5, two elements per repeated field, one entry per map, each Any holding the type the
    # .proto comment names), serialized by Python protobuf; a field the reader does not know would
    # show as "#<number>" and differ from the reference
    ANY_TYPES = {"step_details": "tensorflow.profiler.PerGenericStepDetails",
                 "bottleneck_analysis": "tensorflow.profiler.BottleneckAnalysis",
                 "step_time_breakdown": "tensorflow.profiler.GenericStepTimeBreakdown",
                 "recommendation": "tensorflow.profiler.GenericRecommendation"}

    def fill(m, depth, serial=[0]):
        from google.protobuf.descriptor import FieldDescriptor as FD
        for f in m.DESCRIPTOR.fields:
            if f.containing_oneof is not None and f.containing_oneof.name == "name_oneof" and f.name == "name_ref":
                continue                                  # one member of the oneof: name
            serial[0] += 1
            n = serial[0]
            rep = f.label == FD.LABEL_REPEATED
            if f.type == FD.TYPE_MESSAGE:
                if f.message_type.GetOptions().map_entry:
                    kf, vf = f.message_type.fields_by_name["key"], f.message_type.fields_by_name["value"]
                    key = f"key {n} ü" if kf.type == FD.TYPE_STRING else (n % 2 == 0 if kf.type == FD.TYPE_BOOL else n)
                    mp = getattr(m, f.name)
                    if vf.type == FD.TYPE_MESSAGE:
                        if depth:
                            fill(mp[key], depth - 1)
                    else:
                        mp[key] = value(vf, n)
                    continue
                if not depth:
                    continue
                subs = [getattr(m, f.name).add() for _ in range(2)] if rep else [getattr(m, f.name)]
                for sub in subs:
                    if f.message_type.full_name == "google.protobuf.Any":
                        inner = ref.cls(ANY_TYPES[f.name])()
                        fill(inner, depth - 1)
                        sub.Pack(inner)
                    else:
                        fill(sub, depth - 1)
                        if not sub.ListFields():
                            sub.SetInParent()
            elif rep:
                getattr(m, f.name).extend([value(f, n), value(f, n + 1)])
            else:
                setattr(m, f.name, value(f, n))

    def value(f, n):
        from google.protobuf.descriptor import FieldDescriptor as FD
        t = f.type
        if t in (FD.TYPE_DOUBLE,):
            return n + 0.125
        if t == FD.TYPE_FLOAT:
            return n + 0.5
        if t in (FD.TYPE_INT64, FD.TYPE_SINT64, FD.TYPE_SFIXED64):
            return -(n * 1000003)
        if t in (FD.TYPE_UINT64, FD.TYPE_FIXED64):
            return (1 << 40) + n
        if t in (FD.TYPE_INT32, FD.TYPE_SINT32, FD.TYPE_SFIXED32):
            return -n
        if t in (FD.TYPE_UINT32, FD.TYPE_FIXED32):
            return (1 << 31) + n
        if t == FD.TYPE_BOOL:
            return True
        if t == FD.TYPE_STRING:
            return f"{f.name} {n} ü"
        if t == FD.TYPE_BYTES:
            return bytes([n % 256, 0, 255])
        if t == FD.TYPE_ENUM:
            return f.enum_type.values[-1].number
        raise ValueError(t)

    for fmt, msg_name in sorted(set(HAND.values())):
        m = ref.cls(msg_name)()
        fill(m, 5)
        data = m.SerializeToString()
        try:
            check_file(data, fmt, ref.parse(msg_name, data), f"{msg_name} with every field set")
        except sqlite3.Error as e:
            check(False, f"{msg_name} with every field set: loads", str(e))

# ---------------------------------------------------------------------------------------------
# 3. detection
for name in sorted(HAND):
    fmt = HAND[name][0]
    src = path(name)
    check(fmt_of(src) == fmt, f"{name} detected as {fmt}", fmt_of(src))
    forced = rows("SELECT value FROM profile_metadata(?, ?) WHERE scope = 'capture' AND key = 'format'", (src, fmt))
    check([r["value"] for r in forced] == [fmt], f"{name} forced {fmt}", forced)
    check(evs(src, fmt) == evs(src) and recs(src, fmt) == recs(src), f"{name}: forced rows = detected rows")
    blob = open(src, "rb").read()
    check(pick(evs(blob), ECOLS) == pick(evs(src), ECOLS) and pick(recs(blob), RCOLS) == pick(recs(src), RCOLS),
          f"{name}: the bytes as a BLOB give the rows the path gives")
# forced wrong formats: a clear error, never rows of the wrong kind
for name, wrong in [("kernel_stats.pb", "tf_stats"), ("tf_stats.pb", "kernel_stats"), ("memory_profile.pb", "input_pipeline"),
                    ("trace_old.pb", "memory_profile"), ("input_pipeline.pb", "xprof_trace"),
                    ("kernel_stats.pb", "memory_profile"), ("tf_stats.pb", "chrome")]:
    e = error("SELECT count(*) FROM profile_records(?, ?)", (path(name), wrong))
    check(e is not None, f"{name} forced as {wrong}: an error", e)
    if e:
        print(f"ok {name} as {wrong}: {e}")
# the XSpace corpus is still XSpace
if os.path.isdir(XPLANE):
    for name in sorted(os.listdir(XPLANE)):
        p = os.path.join(XPLANE, name)
        e = error("SELECT 1 FROM profile_metadata(?)", (p,))
        if e:
            check("XSpace" in e, f"{name}: still read as XSpace (its error: {e})")
        else:
            check(fmt_of(p) == "xspace", f"{name} detected as xspace", fmt_of(p))
else:
    skip_part(f"XSpace detection: {XPLANE} not found")
for blob, what in [(b"\x08\x01\x10\x02", "varints 1 and 2"), (b"\x0d\x00\x00\x80\x3f", "a fixed32 field 1"),
                   (b"\x12\x03abc\x18\x05", "field 2 bytes, field 3 varint")]:
    e = error("SELECT * FROM profile_events(?)", (blob,))
    check(e is not None and "not a supported capture" in e, f"a protobuf of none of the messages ({what})", e)

# ---------------------------------------------------------------------------------------------
# 4. bad input
def rowkeys(blob, fmt):
    return (pick(evs(blob, fmt), ("id", "name", "dur", "ts", "args")),
            pick(recs(blob, fmt), ("record_id", "record_set", "name", "time_ns", "attrs")))


def prefixes(label, data, fmt, lengths):
    full_e, full_r = rowkeys(data, fmt)
    bad_err, garbage = [], []
    for n in lengths:
        blob = data[:n]
        try:
            e, r = rowkeys(blob, fmt)
            db.execute("SELECT count(*) FROM profile_metadata(?, ?)", (blob, fmt)).fetchall()
            if e != full_e[:len(e)] or r != full_r[:len(r)]:
                garbage.append(n)
        except sqlite3.Error as ex:
            if "byte " not in str(ex):
                bad_err.append((n, str(ex)))
        try:                       # detected, not forced: loads, or an error naming a byte or "not a supported capture"
            db.execute("SELECT count(*) FROM profile_events(?)", (blob,)).fetchall()
        except sqlite3.Error as ex:
            if "byte " not in str(ex) and "not a supported capture" not in str(ex):
                bad_err.append((n, "(detected) " + str(ex)))
    check(not bad_err, f"{label}: every prefix loads or fails naming a byte ({len(lengths)} prefixes)", bad_err[:3])
    check(not garbage, f"{label}: a prefix that loads gives a prefix of the rows", garbage[:5])


for name in sorted(HAND):
    data = open(path(name), "rb").read()
    prefixes(name, data, HAND[name][0], range(1, len(data)))

# hand-built corrupt bytes, format forced: the offset and the message
any_bad = b"\x0a\x3d" + STEP.encode() + b"\x12\x02\x10\x05"      # step_time_ms (double) written as a varint
CASES = [
    ("kernel_stats", b"\x0a\x05\x0a\x01\x41", ["byte 1:", "length 5 runs past the end of KernelStatsDb"]),
    ("kernel_stats", b"\x0a\x03\x0a\x05\x41" + b"\x41" * 8, ["byte 3:", "length 5 runs past the end of KernelReport"]),
    ("input_pipeline", b"\x22" + bytes([len(any_bad)]) + any_bad,
     [f"byte {2 + len(any_bad) - 2}:", "field step_time_ms of PerGenericStepDetails has wire type 0, expected 1"]),
    ("tf_stats", b"\x22\x03\x0a\x01\x2b", ["byte 4:", "wire type 3", "TfStatsRecord"]),
    ("tf_stats", b"\x22\x03\x0a\x01\x2c", ["byte 4:", "wire type 4", "TfStatsRecord"]),
    ("tf_stats", b"\x22\x03\x0a\x01\x2f", ["byte 4:", "wire type 7", "TfStatsRecord"]),
    ("tf_stats", b"\x22\x02\x0a\x01", ["byte 3:", "length 1 runs past the end of TfStatsTable"]),
    ("memory_profile", b"\x10" + b"\xff" * 10 + b"\x01", ["byte 1:", "varint", "MemoryProfile"]),
    ("memory_profile", b"\x10\xff", ["byte 1:", "varint", "MemoryProfile"]),
    ("input_pipeline", b"\x59\x00\x00\x00", ["byte 1:", "InputPipelineAnalysisResult"]),
    ("kernel_stats", b"\x0a\x0c\x2a\x0a" + b"\xff" * 10, ["byte 4:", "varint", "KernelReport"]),
    ("xprof_trace", b"\x22\x04\x1a\x09ab", ["byte 3:", "length 9 runs past the end of TraceEvent"]),
    ("overview_page", b"\x12\x02\x22\x05", ["byte 3:", "length 5 runs past the end of InputPipelineAnalysisResult"]),
]
for fmt, blob, parts in CASES:
    for table in ("profile_events", "profile_records", "profile_metadata"):
        e = error(f"SELECT * FROM {table}(?, ?)", (blob, fmt))
        check(e is not None and all(p in e for p in parts), f"{fmt} {blob[:12].hex()} ({table}): error with {parts}", e)
    print(f"ok {fmt} {blob.hex()}: {error('SELECT * FROM profile_records(?, ?)', (blob, fmt))}")

# a uint64 beyond int64 in an INTEGER column or metadata value is never a wrapped negative number
U64MAX = b"\xff" * 9 + b"\x01"
for what, blob, fmt, sql in [
        ("old Trace device_id -> pid", b"\x22\x0b\x08" + U64MAX, "xprof_trace", "SELECT pid FROM profile_events(?, ?)"),
        ("old Trace resource_id -> tid", b"\x22\x0b\x10" + U64MAX, "xprof_trace", "SELECT tid FROM profile_events(?, ?)"),
        ("new Trace max_timestamp_ps", b"\x20\x01\x28" + U64MAX, "xprof_trace",
         "SELECT value FROM profile_metadata(?, ?) WHERE key = 'max_timestamp_ps'"),
        ("input_op_details count", b"\x32\x0b\x10" + U64MAX, "input_pipeline", "SELECT count FROM profile_records(?, ?)"),
        ("KernelReport total_duration_ns", b"\x0a\x0b\x38" + U64MAX, "kernel_stats", "SELECT time_ns FROM profile_records(?, ?)"),
        ("KernelReport max_duration_ns", b"\x0a\x0b\x48" + U64MAX, "kernel_stats", "SELECT peak_ns FROM profile_records(?, ?)")]:
    try:
        got = [r[0] for r in db.execute(sql, (blob, fmt)).fetchall()]
        check(not any(isinstance(v, int) and v < 0 for v in got), f"{what} = 2^64-1: not a wrapped negative", got)
    except sqlite3.Error as e:
        check("byte " in str(e), f"{what} = 2^64-1: an error names a byte", str(e))

# random corruption of the hand files, format forced: loads or names a byte, never a crash
rng = random.Random(20250101)
bad = []
for name in sorted(HAND):
    data = open(path(name), "rb").read()
    for _ in range(150):
        b = bytearray(data)
        for _ in range(rng.randint(1, 3)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        try:
            rowkeys(bytes(b), HAND[name][0])
        except sqlite3.Error as ex:
            if "byte " not in str(ex):
                bad.append((name, bytes(b).hex(), str(ex)))
check(not bad, "corrupted hand files: every error names a byte", bad[:3])

# ---------------------------------------------------------------------------------------------
# 5. profile_report and profile_import
tmp = tempfile.mkdtemp(prefix="profsql-xprof-")
for name in sorted(HAND):
    src = path(name)
    out = os.path.join(tmp, name)
    os.mkdir(out)
    try:
        man = db.execute("SELECT profile_report(?, ?, '{\"write_archive\": false}')", (src, out)).fetchone()[0]
        check(json.loads(man) is not None and os.path.exists(os.path.join(out, "profiler_report_latest.json"))
              and os.path.exists(os.path.join(out, "profiler_report_latest.md")), f"profile_report({name})")
    except sqlite3.Error as e:
        check(False, f"profile_report({name})", str(e))
    prefix = name.split(".")[0] + "_"
    try:
        res = json.loads(db.execute("SELECT profile_import(?, 'main', ?)", (src, prefix)).fetchone()[0])
        n_e, n_r = len(evs(src)), len(recs(src))
        tables = {r["name"] for r in rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE ?", (prefix + "%",))}
        n_m = db.execute("SELECT count(*) FROM profile_metadata(?)", (src,)).fetchone()[0]
        want = {prefix + "metadata": n_m}             # the returned object is keyed by the tables' names
        if n_e:
            want[prefix + "events"] = n_e
        if n_r:
            want[prefix + "records"] = n_r
        check(res == want and set(want) <= tables, f"profile_import({name}): tables and row counts {want}", (res, tables))
        if n_r:
            got = db.execute(f"SELECT record_set, attrs FROM {prefix}records ORDER BY record_id").fetchall()
            check(got == [(r["record_set"], r["attrs"]) for r in recs(src)], f"profile_import({name}): record_set, attrs copied")
    except sqlite3.Error as e:
        check(False, f"profile_import({name})", str(e))

# ---------------------------------------------------------------------------------------------
# 6. the corpus
CORPUS_FMT = [(".tensorflow_stats.pb", "tf_stats", "tensorflow.profiler.TfStatsDatabase"),
              (".input_pipeline.pb", "input_pipeline", "tensorflow.profiler.InputPipelineAnalysisResult"),
              (".overview_page.pb", "overview_page", "tensorflow.profiler.OverviewPage")]
if not os.path.isdir(CORPUS):
    skip_part(f"xprof corpus: {CORPUS} not found (the corpus ships beside the repository, not in it)")
else:
    files = sorted(n for n in os.listdir(CORPUS) if n.endswith(".pb"))
    check(len(files) == 5, f"5 xprof .pb files in the corpus", files)
    for name in files:
        src = os.path.join(CORPUS, name)
        fmt, msg_name = next((f, m) for s, f, m in CORPUS_FMT if name.endswith(s))
        check(fmt_of(src) == fmt, f"{name} detected as {fmt}", fmt_of(src))
        data = open(src, "rb").read()
        if ref:
            check_file(src, fmt, ref.parse(msg_name, data), name)
        step = max(1, len(data) // 97)
        prefixes(name + " (sampled)", data, fmt, sorted(set(list(range(1, len(data), step)) + [len(data) - 1, len(data) - 9, 2, 3])))
    if not ref:
        skip_part(f"xprof corpus against the reference: {why}")

    # the facts ../shared/corpus/README.md states (SQL only: no protoc needed)
    def q1(sql, args):
        return db.execute(sql, args).fetchone()

    big = os.path.join(CORPUS, "xprof-gpu-input-bound-localhost.tensorflow_stats.pb")
    tpu = os.path.join(CORPUS, "xprof-cloud-tpu-10.240.1.50.tensorflow_stats.pb")
    per_set = dict(db.execute("SELECT record_set, count(*) FROM profile_records(?) GROUP BY 1", (big,)).fetchall())
    check(per_set == {"with_idle": 9749, "without_idle": 9747}, "GPU tf_stats: 9749 / 9747 records", per_set)
    hd = dict(db.execute("SELECT group_name, count(*) FROM profile_records(?) WHERE record_set = 'with_idle' GROUP BY 1",
                         (big,)).fetchall())
    check(hd == {"Device": 9588, "Host": 161}, "GPU tf_stats: 9588 Device, 161 Host", hd)
    check(q1("SELECT count(DISTINCT category), sum(count) FROM profile_records(?) WHERE record_set = 'with_idle'", (big,))
          == (58, 222122), "GPU tf_stats: 58 op_types, 222,122 occurrences")
    top = db.execute("SELECT category, count(*) FROM profile_records(?) WHERE record_set = 'with_idle' GROUP BY 1 "
                     "ORDER BY 2 DESC LIMIT 2", (big,)).fetchall()
    check(top == [("Mul", 1736), ("ResourceApplyKerasMomentum", 1288)], "GPU tf_stats: Mul 1736, ResourceApplyKerasMomentum 1288", top)
    idle = db.execute("SELECT group_name, json_extract(attrs, '$.rank') FROM profile_records(?) "
                      "WHERE record_set = 'with_idle' AND category = 'IDLE' ORDER BY 1", (big,)).fetchall()
    check(len(idle) == 2 and ("Device", 1) in idle, "GPU tf_stats: 2 IDLE records, the device one rank 1", idle)
    check(q1("SELECT max(length(name)) FROM profile_records(?)", (big,)) == (123,), "GPU tf_stats: op names up to 123 chars")
    check(q1("SELECT count(*) FROM profile_records(?) WHERE json_extract(attrs, '$.bound_by') <> 'Unknown'", (big,)) == (0,),
          "GPU tf_stats: bound_by Unknown everywhere")
    m = meta(big, "tf_stats")
    check((m.get("device_type"), m.get("with_idle.host_tf_pprof_key"), m.get("with_idle.device_tf_pprof_key")) == ("", "", ""),
          "GPU tf_stats: device_type and pprof keys are empty strings", m)
    per_set = dict(db.execute("SELECT record_set, count(*) FROM profile_records(?) GROUP BY 1", (tpu,)).fetchall())
    check(per_set == {"with_idle": 731, "without_idle": 729}, "TPU tf_stats: 731 / 729 records", per_set)
    hd = dict(db.execute("SELECT group_name, count(*) FROM profile_records(?) WHERE record_set = 'with_idle' GROUP BY 1",
                         (tpu,)).fetchall())
    check(hd == {"Device": 519, "Host": 212}, "TPU tf_stats: 519 Device, 212 Host", hd)
    ops = dict(db.execute("SELECT category, count(*) FROM profile_records(?) WHERE record_set = 'with_idle' GROUP BY 1",
                          (tpu,)).fetchall())
    check(len(ops) == 33 and ops.get("_Send") == 64 and ops.get("_Recv") == 56 and "TPUExecute" in ops,
          "TPU tf_stats: 33 op_types, _Send 64, _Recv 56, TPUExecute", (len(ops), ops.get("_Send"), ops.get("_Recv")))
    bb = dict(db.execute("SELECT json_extract(attrs, '$.bound_by'), count(*) FROM profile_records(?) "
                         "WHERE record_set = 'with_idle' GROUP BY 1", (tpu,)).fetchall())
    check(bb == {"Memory": 436, "Compute": 80, "Unknown": 215}, "TPU tf_stats: bound_by Memory 436 / Compute 80 / Unknown 215", bb)
    check(q1("SELECT max(count) FROM profile_records(?)", (tpu,)) == (6400,), "TPU tf_stats: up to 6400 occurrences")

    ip = os.path.join(CORPUS, "xprof-gpu-input-bound-localhost.input_pipeline.pb")
    ov = os.path.join(CORPUS, "xprof-gpu-input-bound-localhost.overview_page.pb")
    demo = os.path.join(CORPUS, "xprof-demo-profile_demo.overview_page.pb")
    check(q1("SELECT count(*), min(name), max(name) FROM profile_events(?)", (ip,)) == (11, "step 0", "step 9"),
          "input_pipeline: 11 steps named 'step 0'..'step 10'")
    check(q1("SELECT process_name, count(DISTINCT process_name) FROM profile_events(?)", (ip,)) == ("GPU", 1),
          "input_pipeline: hardware_type GPU")
    cats = dict(db.execute("SELECT category, count(*) FROM profile_records(?) GROUP BY 1", (ip,)).fetchall())
    check(cats == {"Preprocessing": 60, "Advanced file read": 30}, "input_pipeline: 90 input_op_details (60 / 30)", cats)
    check(q1("SELECT count(*) FROM profile_records(?) WHERE name = 'Iterator::Model::Prefetch::Rebatch::Prefetch::MapAndBatch"
             "::ShuffleAndRepeat::ParallelInterleaveV3[94]::FlatMap[0]::TFRecord'", (ip,)) == (1,),
          "input_pipeline: the long iterator name with '::' and brackets")
    m = meta(ip, "input_pipeline")
    s = loads(m.get("step_time_summary"), "step_time_summary") or {}
    check((round(s.get("average", 0), 2), round(s.get("minimum", 0), 2), round(s.get("maximum", 0), 2)) ==
          (1114.50, 1043.38, 1173.61), "input_pipeline: step time avg 1114.50, min 1043.38, max 1173.61", s)
    check(round((loads(m.get("input_percent_summary"), "ips") or {}).get("average", 0), 2) == 81.37,
          "input_pipeline: input_percent_summary avg 81.37")
    b = loads(m.get("step_time_breakdown"), "step_time_breakdown") or {}
    check(all(b.get(k, {}).get("maximum") == DBL_MIN and b.get(k, {}).get("minimum", 0) == 0
              for k in ("output_ms_summary", "device_to_device_ms_summary", "host_compile_ms_summary",
                        "host_to_device_ms_summary")), "input_pipeline: empty breakdown parts hold DBL_MIN maxima")
    ba = (loads(m.get("recommendation"), "rec") or {}).get("bottleneck_analysis", {})
    check((ba.get("input_classification"), ba.get("kernel_launch_classification"), ba.get("all_other_classification")) ==
          ("host", "no", "no"), "input_pipeline: BottleneckAnalysis host / no / no", ba)
    ecols = [c for c in evs(ip)[0] if c not in ("file", "byte_offset", "origin")] if evs(ip) else []
    check(pick(evs(ov), ecols) == pick(evs(ip), ecols) and pick(recs(ov), RCOLS + ("attrs",))[:90] == pick(recs(ip), RCOLS + ("attrs",)),
          "GPU overview_page: its input_analysis gives the input_pipeline file's steps and input_op_details")
    check(q1("SELECT count(*), count(DISTINCT category) FROM profile_records(?) WHERE record_set = 'top_device_ops'", (ov,))
          == (10, 2), "GPU overview_page: 10 top_device_ops, Conv2DBackpropInput/Filter")
    m = meta(ov, "overview_page")
    check(set(m) == {"run_environment", "analysis", "recommendation"}, "GPU overview_page: no diagnostics, no inference_latency",
          sorted(m))
    re_ = loads(m.get("run_environment"), "run_environment") or {}
    check((re_.get("host_count"), re_.get("device_type"), re_.get("device_core_count"), re_.get("hostnames")) ==
          (1, "GPU", 8, {}), "GPU overview_page: run_environment", re_)
    rec = loads(m.get("recommendation"), "recommendation") or {}
    check(rec.get("bottleneck") == "host" and len(rec.get("host_tips", [])) == 2 and len(rec.get("device_tips", [])) == 2
          and rec.get("statement", "").startswith("Your program is HIGHLY input-bound because 81.4%"),
          "GPU overview_page: recommendation")
    check(q1("SELECT count(*), round(min(dur) / 1e6, 2), round(max(dur) / 1e6, 2) FROM profile_events(?)", (demo,))
          == (9, 196.64, 1190.41), "demo overview_page: 9 steps, 196.64..1190.41 ms")
    cats = dict(db.execute("SELECT record_set || '/' || category, count(*) FROM profile_records(?) GROUP BY 1", (demo,)).fetchall())
    check(cats == {"input_op_details/Preprocessing": 70, "input_op_details/Advanced file read": 61,
                   "top_device_ops/Conv2DBackpropInput": 10}, "demo overview_page: 131 input_op_details (70/61), 10 top ops", cats)
    s = loads(meta(demo, "input_pipeline").get("input_percent_summary"), "ips") or {}
    check(round(s.get("average", 0), 2) == 43.38, "demo overview_page: input_percent_summary avg 43.38", s)

if ref:
    ref.close()
done()
