"""Runs sentry-sdk with continuous profiling against the relay named by SENTRY_DSN.

Usage: python driver.py trace|manual. ``trace`` profiles while a transaction runs (profile_lifecycle="trace"),
``manual`` between start_profiler() and stop_profiler(). Either way one transaction runs the workload of
chunk_relay_workload for CHUNK_RELAY_BUSY_MILLIS, then an error and the session are sent and the SDK flushed.
"""
import os
import sys
import threading

import sentry_sdk
import sentry_sdk.profiler

from chunk_relay_workload import Workload

# The thread sentry-sdk 2.75 samples from (sentry_sdk/profiler/continuous_profiler.py, ThreadContinuousScheduler).
PROFILER_THREAD = "sentry.profiler.ThreadContinuousScheduler"


def main():
    lifecycle = sys.argv[1] if len(sys.argv) > 1 else ""
    if lifecycle not in ("trace", "manual"):
        print("usage: driver.py trace|manual", file=sys.stderr)
        return 2
    dsn = os.environ.get("SENTRY_DSN")
    if not dsn:
        print("chunk-relay python driver: SENTRY_DSN is not set", file=sys.stderr)
        return 2
    seconds = int(os.environ.get("CHUNK_RELAY_BUSY_MILLIS", "4000")) / 1000.0

    sentry_sdk.init(
        dsn=dsn,
        release=os.environ.get("CHUNK_RELAY_RELEASE", "chunk-relay-e2e-python@1.0.0"),
        environment=os.environ.get("CHUNK_RELAY_ENVIRONMENT", "e2e"),
        debug=os.environ.get("CHUNK_RELAY_SENTRY_DEBUG") == "1",
        traces_sample_rate=1.0,
        profile_session_sample_rate=1.0,
        profile_lifecycle=lifecycle,
    )
    sentry_sdk.start_session(session_mode="application")
    if lifecycle == "manual":
        sentry_sdk.profiler.start_profiler()
    workload = Workload()
    with sentry_sdk.start_transaction(op="task", name="chunk_relay_workload.Workload.run"):
        checksum = workload.run(seconds)
    if lifecycle == "manual":
        # joins the profiler's thread, which sends the last chunk
        sentry_sdk.profiler.stop_profiler()
    else:
        # the trace lifecycle stops on the profiler's next tick after the transaction ends, then sends the chunk
        for thread in threading.enumerate():
            if thread.name == PROFILER_THREAD:
                thread.join(timeout=10)
                if thread.is_alive():
                    print("chunk-relay python driver: the profiler did not stop", file=sys.stderr)
                    return 3
    sentry_sdk.capture_exception(RuntimeError("chunk-relay e2e error"))
    sentry_sdk.end_session()
    sentry_sdk.flush(timeout=10)
    print("chunk-relay python driver: lifecycle {}, checksum {}".format(lifecycle, checksum))
    return 0


if __name__ == "__main__":
    sys.exit(main())
