"""Worker threads running transactions, continuous profiling in the trace lifecycle, and a process that ends before
its profiler sends.

The two ways a profiler session of sentry-sdk 2.75 sends chunks or stays silent (sentry_sdk/profiler/
continuous_profiler.py: the scheduler stops on the first tick with no transaction, flushes its buffer and takes a new
profiler id when a transaction starts it again; the buffer is otherwise flushed only every 60 s):
- rounds of transactions on three threads with all threads idle in between: each round is a session of its own, and
  its chunk is sent when the scheduler stops in the idle gap;
- then a round whose session never stops: one transaction stays open while the workers finish theirs, the
  transactions are sent (sentry_sdk.flush) and the process ends at once (os._exit, as a killed or recycled worker
  does), so their session's chunk is never sent.
Runs for CHUNK_RELAY_BUSY_MILLIS against SENTRY_DSN.
"""
import os
import sys
import threading
import time

import sentry_sdk

from chunk_relay_workload import fibonacci_batch, in_span

WORKERS = 3
ROUND_SECONDS = 2.0
# longer than the scheduler's tick (100 Hz), so that it sees no transaction and stops
IDLE_SECONDS = 0.5
LAST_ROUND_SECONDS = 3.0


def busy(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        with sentry_sdk.start_transaction(op="task", name="silent_sessions.worker"):
            until = time.monotonic() + 0.2
            while time.monotonic() < until:
                in_span(fibonacci_batch, 5)


def round_on_workers(seconds):
    threads = [threading.Thread(target=busy, args=(seconds,), name="worker-{}".format(i)) for i in range(WORKERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


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
    while time.monotonic() < deadline:
        round_on_workers(ROUND_SECONDS)
        time.sleep(IDLE_SECONDS)

    held = threading.Event()
    released = threading.Event()

    def hold_a_transaction():
        with sentry_sdk.start_transaction(op="task", name="silent_sessions.held"):
            held.set()
            released.wait()

    holder = threading.Thread(target=hold_a_transaction, name="holder", daemon=True)
    holder.start()
    held.wait()
    round_on_workers(LAST_ROUND_SECONDS)
    sentry_sdk.flush(timeout=10)
    print("chunk-relay silent sessions driver: done", flush=True)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
