""".ci/deps.sh, the one list of Debian packages and the step that installs the missing ones:

  1. `list test` is complete (CI installs it): `list test-core` plus the optional ODBC and browser
     stack (unixodbc, libsqliteodbc, chromium, chromium-driver, slurm-wlm, munge), which test-core leaves out;
     PROFSQL_TEST_MINIMAL=1 makes `ensure test` ask for test-core only.
  2. `ensure` waits while another apt-get or dpkg holds the lock, instead of failing at once: run
     against stand-ins for dpkg-query (one package missing), id (root), sleep (no waiting) and
     apt-get (fails twice with apt's lock message, then succeeds), all on a PATH in a temporary
     folder; the real apt-get is never run.
"""
import os
import shutil
import subprocess
import tempfile

from testlib import check, done

OPTIONAL = {"unixodbc", "libsqliteodbc", "chromium", "chromium-driver", "slurm-wlm", "munge"}


def deps(*args, env=None):
    return subprocess.run(["sh", ".ci/deps.sh"] + list(args), capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


# ---- 1. the lists
full = deps("list", "test")
core = deps("list", "test-core")
check(full.returncode == 0 and core.returncode == 0, "list test and list test-core", core.stderr)
full_set, core_set = set(full.stdout.split()), set(core.stdout.split())
check(OPTIONAL <= full_set, "list test (what CI installs) holds the ODBC and browser stack", sorted(OPTIONAL - full_set))
check(not (OPTIONAL & core_set) and core_set == full_set - OPTIONAL,
      "list test-core is list test without exactly the optional six", sorted(full_set ^ core_set))
check({"clang", "python3", "libsqlite3-dev"} <= core_set, "test-core keeps what every run needs")
check(set(deps("list", "build").stdout.split()) <= core_set, "test-core includes the build's packages")

# ---- 2. ensure, against stand-ins
tmp = tempfile.mkdtemp(prefix="profsql-deps-")
bin_ = os.path.join(tmp, "bin")
os.makedirs(bin_)
log = os.path.join(tmp, "apt.log")


def stub(name, body):
    path = os.path.join(bin_, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)


# every package installed but chromium (and, for the minimal run, nothing of test-core missing)
stub("dpkg-query", 'for a; do p=$a; done\n[ "$p" = chromium ] && { printf not-installed; exit 0; }\nprintf installed\n')
stub("id", "echo 0\n")
stub("sleep", f'echo "sleep $*" >> "{log}"\n')
# apt-get: the first two calls fail as apt does when another process holds the lock
stub("apt-get", f'''n=$(cat "{tmp}/n" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "{tmp}/n"
echo "apt-get $*" >> "{log}"
if [ $n -le 2 ]; then
  echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (apt-get)" >&2
  echo "E: Unable to lock directory /var/lib/apt/lists/" >&2
  exit 100
fi
''')
for tool in ["sh", "cat", "grep", "mktemp", "rm", "printf", "echo"]:
    real = shutil.which(tool)
    if real and not os.path.exists(os.path.join(bin_, tool)):
        os.symlink(real, os.path.join(bin_, tool))
env = {"PATH": bin_}
r = subprocess.run(["sh", os.path.abspath(".ci/deps.sh"), "ensure", "test"], capture_output=True, text=True,
                   env=dict(os.environ, **env), timeout=60)
calls = open(log).read().splitlines() if os.path.exists(log) else []
apt = [c for c in calls if c.startswith("apt-get")]
check(r.returncode == 0, "ensure test succeeds once the lock is free", r.stdout[-300:] + r.stderr[-500:])
check(len(apt) == 4 and all(" update " in c + " " for c in apt[:3]) and "install" in apt[3] and apt[3].endswith(" chromium"),
      "update is tried again while the lock is held, then the missing package is installed", apt)
check(all("-o DPkg::Lock::Timeout=600" in c for c in apt), "apt-get waits for dpkg's lock itself too (DPkg::Lock::Timeout)", apt)
check(calls.count("sleep 5") == 2, "it waited between the tries", calls)
check("holds the lock; waiting for it" in r.stderr, "and said why it waits", r.stderr[-300:])

# PROFSQL_TEST_MINIMAL=1: chromium is optional, so nothing is missing and apt-get is not run
os.remove(log)
r = subprocess.run(["sh", os.path.abspath(".ci/deps.sh"), "ensure", "test"], capture_output=True, text=True,
                   env=dict(os.environ, PROFSQL_TEST_MINIMAL="1", **env), timeout=60)
check(r.returncode == 0 and not os.path.exists(log), "PROFSQL_TEST_MINIMAL=1: the optional stack is not installed",
      r.stdout + r.stderr)
shutil.rmtree(tmp)
done()
