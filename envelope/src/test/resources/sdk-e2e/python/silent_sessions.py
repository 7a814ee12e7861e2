"""Three worker threads running transactions back to back, continuous profiling in the trace lifecycle.

The way issue 50 met silent profiler sessions: sentry-sdk starts and stops its profiler with the transactions, and a
profiler session whose samples never fill a chunk before it stops sends no chunk, while its transactions name it.
Runs for CHUNK_RELAY_BUSY_MILLIS against SENTRY_DSN, then flushes.
"""
import os
import sys
import threading
import time

import sentry_sdk

from chunk_relay_workload import fibonacci_batch, in_span

WORKERS = 3
# The thread sentry-sdk 2.75 samples from (sentry_sdk/profiler/continuous_profiler.py, ThreadContinuousScheduler).
PROFILER_THREAD = "sentry.profiler.ThreadContinuousScheduler"


def worker(deadline):
    while time.monotonic() < deadline:
        with sentry_sdk.start_transaction(op="task", name="silent_sessions.worker"):
            end = time.monotonic() + 0.2
            while time.monotonic() < end:
                in_span(fibonacci_batch, 5)


def main():
    dsn = os.environ.get("SENTRY_DSN")
    if not dsn:
        print("chunk-relay silent sessions driver: SENTRY_DSN is not set", file=sys.stderr)
        return 2
    seconds = int(os.environ.get("CHUNK_RELAY_BUSY_MILLIS", "20000")) / 1000.0
    sentry_sdk.init(
        dsn=dsn,
        release="chunk-relay-e2e-python@1.0.0",
        environment="e2e",
        debug=os.environ.get("CHUNK_RELAY_SENTRY_DEBUG") == "1",
        traces_sample_rate=1.0,
        profile_session_sample_rate=1.0,
        profile_lifecycle="trace",
    )
    deadline = time.monotonic() + seconds
    threads = [threading.Thread(target=worker, args=(deadline,), name="worker-{}".format(i)) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # the profiler stops on its next tick after the last transaction, then sends what it holds
    for thread in threading.enumerate():
        if thread.name == PROFILER_THREAD:
            thread.join(timeout=10)
    sentry_sdk.flush(timeout=10)
    print("chunk-relay silent sessions driver: done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
