# examples/ftrace_sched.txt was written here (Linux 6.18 tracefs, sched_switch + sched_wakeup, record-tgid) while
# this ran pinned to CPU 0 next to examples/busy.c: `taskset -c 0 python3 atrace_app.py & taskset -c 0 ./busy`,
# then `cat /sys/kernel/tracing/trace`. It writes atrace markers around CPU work, as Android's atrace /
# ATrace_beginSection do.
import os, time
pid = os.getpid()
m = open("/sys/kernel/tracing/trace_marker", "w", buffering=1)
def work(n):
    s = 0
    for i in range(n): s += i * i
    return s
for frame in range(12):
    m.write(f"B|{pid}|frame {frame}\n")
    m.write(f"B|{pid}|layout\n"); work(20000); m.write("E\n")
    m.write(f"B|{pid}|draw\n"); work(60000 if frame % 4 else 200000); m.write("E\n")
    m.write("E\n")
    m.write(f"C|{pid}|queued_frames|{frame % 3}\n")
    time.sleep(0.004)
