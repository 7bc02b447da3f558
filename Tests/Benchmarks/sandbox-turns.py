#!/usr/bin/env python3
"""The decoders' sandbox against rendering in the worker, job by job, in turns.

usage: sandbox-turns.py DARKROOM SERVER_URL WORK_DIR ROUNDS FILE LABEL [FILE LABEL]...

For each FILE: two long-lived `darkroom worker --concurrency 1`, one `--decoder-sandbox off`
and one `on`, each with a database and a storage of its own, both pinned to one core. Each
round queues one edit (sepia, which replaces the last, so each job decodes the original) for
each worker and waits for it, the two in turns (each first in every other round). A job's CPU
is what the worker's process tree used from just before its edit was queued to just after it
succeeded: the worker's own, the zygote's and every child's, reaped ones included (/proc, in
clock ticks). This machine's speed swings by tens of percent from one second to the next;
jobs taken a second apart share it, runs of a whole drain minutes apart do not.

Prints, per file: CPU a job each way (medians), the ratio of the sandboxed jobs' total CPU to
the worker's own, a 95 % interval of that ratio (the rounds resampled), and the minor page
faults a job each way (which do not depend on the machine's speed).
"""
import os
import random
import statistics
import subprocess
import sys
import time

darkroom, server, work, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
files = list(zip(sys.argv[5::2], sys.argv[6::2]))  # (photo, the label its row prints)
base = server.rsplit("/", 1)[0]
EDIT = (
    "SELECT darkroom.enqueue_edit(1, 'io.darkroom.pipeline', '1.0.0', "
    "'{\"operations\":[{\"op\":\"sepia\",\"intensity\":0.6}]}'::jsonb)"
)
# Waits on the server for the job to end (at most 10 minutes), so no poller runs beside the job.
WAIT = """DO $$ DECLARE deadline timestamptz := clock_timestamp() + interval '10 minutes'; BEGIN
  WHILE (SELECT state FROM darkroom.jobs WHERE id = {job}) NOT IN ('succeeded', 'failed', 'cancelled')
      AND clock_timestamp() < deadline LOOP
    PERFORM pg_sleep(0.02);
  END LOOP;
END $$"""
# A process's children are found through /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN);
# without it the children's CPU would go uncounted.
if not os.path.exists(f"/proc/self/task/{os.getpid()}/children"):
    sys.exit("sandbox-turns: this kernel has no /proc/PID/task/TID/children to find a worker's children by")
# The workers share the last core; this script and the database keep to the others where there are.
cores = sorted(os.sched_getaffinity(0))
worker_core = {cores[-1]}
if len(cores) > 1:
    os.sched_setaffinity(0, set(cores[:-1]))


def psql(url, sql):
    return subprocess.run(
        ["psql", "-X", "-q", "-tA", "-v", "ON_ERROR_STOP=1", url, "-c", sql],
        check=True, capture_output=True, text=True).stdout.strip()


def usage(pid):
    """(CPU ticks, minor faults) of pid and every descendant, living or reaped."""
    ticks = faults = 0
    pending = [pid]
    while pending:
        process = pending.pop()
        try:
            fields = open(f"/proc/{process}/stat").read().rsplit(")", 1)[1].split()
            ticks += sum(int(field) for field in fields[11:15])  # utime stime cutime cstime
            faults += int(fields[7]) + int(fields[8])  # minflt cminflt
            for task in os.listdir(f"/proc/{process}/task"):
                pending += [int(child) for child in open(f"/proc/{process}/task/{task}/children").read().split()]
        except FileNotFoundError:
            pass  # it ended while we looked: its parent's counts hold it once it is reaped
    return ticks, faults


def start(mode, photo):
    database = f"darkroom_sandbox_turns_{mode}"
    psql(server, f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
    psql(server, f"CREATE DATABASE {database}")
    env = dict(os.environ, DATABASE_URL=f"{base}/{database}", DARKROOM_STORAGE=f"{work}/sandbox-turns/{mode}")
    subprocess.run(["rm", "-rf", env["DARKROOM_STORAGE"]], check=True)
    quiet = {"env": env, "check": True, "stdout": subprocess.DEVNULL}
    subprocess.run([darkroom, "migrate", "--log-level", "warning"], **quiet)
    subprocess.run([darkroom, "import", photo, "--log-level", "warning"], **quiet)
    worker = subprocess.Popen(
        [darkroom, "worker", "--concurrency", "1", "--decoder-sandbox", mode, "--log-level", "warning"],
        env=env, stdout=subprocess.DEVNULL, preexec_fn=lambda: os.sched_setaffinity(0, worker_core))
    return worker, env["DATABASE_URL"], database


def one_job(worker, url):
    before = usage(worker.pid)
    job = psql(url, EDIT)
    psql(url, WAIT.format(job=int(job)))
    state = psql(url, f"SELECT state FROM darkroom.jobs WHERE id = {int(job)}")
    if state != "succeeded":
        sys.exit(f"sandbox-turns: job {job} ended {state}")
    time.sleep(0.1)
    after = usage(worker.pid)
    return after[0] - before[0], after[1] - before[1]


print(f"\n{'one edit at a time, in turns, ' + str(rounds) + ' rounds':<40} {'CPU s/job':>19} {'CPU':>7} "
      f"{'95% interval':>15} {'minor faults/job':>19}")
print(f"{'':<40} {'worker':>9} {'sandboxed':>9} {'ratio':>7} {'of the ratio':>15} {'worker':>9} {'sandboxed':>9}")
hz = os.sysconf("SC_CLK_TCK")
for photo, label in files:
    workers = {mode: start(mode, photo) for mode in ("off", "on")}
    try:
        time.sleep(1)
        for _ in range(2):  # what a worker does once (its zygote, its first job's heap) is left out
            for mode in ("off", "on"):
                one_job(*workers[mode][:2])
        rows = []
        for number in range(rounds):
            order = ("off", "on") if number % 2 == 0 else ("on", "off")
            got = {mode: one_job(*workers[mode][:2]) for mode in order}
            rows.append((got["off"], got["on"]))
    finally:
        for worker, _, database in workers.values():
            worker.terminate()
            worker.wait()
            psql(server, f"DROP DATABASE IF EXISTS {database} WITH (FORCE)")
        subprocess.run(["rm", "-rf", f"{work}/sandbox-turns"], check=True)

    def ratio(sample):
        return sum(on[0] for _, on in sample) / sum(off[0] for off, _ in sample)

    random.seed(1)
    resampled = sorted(ratio(random.choices(rows, k=len(rows))) for _ in range(2000))
    low, high = resampled[int(0.025 * len(resampled))], resampled[int(0.975 * len(resampled)) - 1]
    off_cpu = statistics.median(off[0] for off, _ in rows) / hz
    on_cpu = statistics.median(on[0] for _, on in rows) / hz
    off_faults = statistics.median(off[1] for off, _ in rows)
    on_faults = statistics.median(on[1] for _, on in rows)
    print(f"{label:<40} {off_cpu:9.3f} {on_cpu:9.3f} {ratio(rows):6.3f}x {low:6.3f}..{high:5.3f}x "
          f"{off_faults:9.0f} {on_faults:9.0f}")
