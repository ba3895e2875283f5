"""Functions for worker-pool tests (importable by spawned worker processes)."""
import os
import time


def square_or_die(n: int) -> int:
    if n < 0:
        os._exit(1)  # what a segfault in a native parser looks like to the pool
    time.sleep(0.05)
    return n * n
