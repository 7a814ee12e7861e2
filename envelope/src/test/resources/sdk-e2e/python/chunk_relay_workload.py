"""The profiled work of chunk-relay's Python SDK test.

Every span is opened by ``in_span`` around one call of a named function, and its description is that function's
qualified name (``module.Class.method``), each span some tens of milliseconds (sentry-sdk keeps at most 1000 spans
a transaction): so a sample whose innermost such function is F was taken inside a span
named F on the same thread, which is what the test checks the relay's links against. The main thread restocks
(with nested counting spans), one worker crunches primes (with nested Fibonacci spans) and one waits for a delivery.
"""
import threading
import time

import sentry_sdk

SPAN_OP = "chunk_relay.workload"


def in_span(function, *args):
    """Calls ``function(*args)`` inside a child span named after the function, the call wholly inside the span."""
    name = "{}.{}".format(function.__module__, function.__qualname__)
    with sentry_sdk.start_span(op=SPAN_OP, name=name):
        return function(*args)


def fibonacci(n):
    return n if n < 2 else fibonacci(n - 1) + fibonacci(n - 2)


def sieve(limit):
    composite = bytearray(limit + 1)
    primes = 0
    for i in range(2, limit + 1):
        if not composite[i]:
            primes += 1
            for j in range(i * i, limit + 1, i):
                composite[j] = 1
    return primes


def fibonacci_batch(rounds):
    return sum(fibonacci(20) for _ in range(rounds))


def crunch_primes(deadline):
    """A worker's span: sieves on its own, with nested spans of Fibonacci batches."""
    checksum = 0
    while time.monotonic() < deadline:
        checksum += sieve(200000)
        checksum += in_span(fibonacci_batch, 30)
    return checksum


class Inventory:
    def __init__(self):
        self.delivered = threading.Event()

    def restock(self, deadline):
        """The main thread's span: sieves on its own, with nested counting spans."""
        checksum = 0
        while time.monotonic() < deadline:
            checksum += sieve(150000)
            checksum += in_span(self.count_stock, 40)
        return checksum

    def count_stock(self, rounds):
        return sum(fibonacci(20) for _ in range(rounds))

    def await_delivery(self):
        """A waiting thread's span: blocked until the main thread has restocked."""
        if not self.delivered.wait(timeout=120):
            raise RuntimeError("no delivery within 120 s")


class Workload:
    """Runs the threads; its own time (starting and joining them) is the transaction's."""

    def run(self, seconds):
        deadline = time.monotonic() + seconds
        inventory = Inventory()
        results = []
        workers = [
            threading.Thread(name="chunk-relay-primes", target=lambda: results.append(in_span(crunch_primes, deadline))),
            threading.Thread(name="chunk-relay-waiter", target=lambda: in_span(inventory.await_delivery)),
        ]
        for worker in workers:
            worker.start()
        results.append(in_span(inventory.restock, deadline))
        inventory.delivered.set()
        for worker in workers:
            worker.join()
        return sum(results)
