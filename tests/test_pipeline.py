import os
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from docqa_desktop.index.pipeline import OrderedPool, Task
from pool_tasks import HANG, square_or_die


def _results_in_order(values: list[int], **options) -> list:
    """Each value squared by a worker, one task per value; a negative value kills its worker, HANG holds it."""
    pool = OrderedPool(square_or_die, [Task(i, (v,)) for i, v in enumerate(values)], workers=2,
                       on_crash=lambda: "crashed", **options)
    try:
        return [pool.result(i) for i in range(len(values))]
    finally:
        pool.close()


def test_results_come_back_in_order_and_a_crash_is_blamed_on_its_own_task_only():
    assert _results_in_order([1, 2, -1, 3, 4, 5]) == [1, 4, "crashed", 9, 16, 25]


@pytest.mark.parametrize("values", [[-1, 2, 3], [1, 2, -1, 3, 4, 5], [1, -1, -2, 3]])
@pytest.mark.slow
def test_a_worker_dying_while_the_pool_starts_another_is_blamed_on_its_task_only(monkeypatch, values):
    """Submitting may start a worker; a worker dying meanwhile closes the pool's pipes under the submit
    ("OSError: handle is closed", the rare flake of the test above). Slowing every start makes it certain."""
    start_worker = ProcessPoolExecutor._spawn_process

    def slow_start(executor):
        time.sleep(0.4)  # the submitting thread descheduled on a busy machine
        return start_worker(executor)

    monkeypatch.setattr(ProcessPoolExecutor, "_spawn_process", slow_start)
    assert _results_in_order(values) == [v * v if v >= 0 else "crashed" for v in values]


@pytest.mark.slow
def test_a_task_stuck_past_the_timeout_fails_alone_and_the_rest_go_on():
    results = _results_in_order([1, HANG, 2, -1, 3], timeout=3, on_timeout=lambda: "timed out")
    assert results == [1, "timed out", 4, "crashed", 9]


def test_skipped_jobs_do_not_spoil_later_results():
    tasks = [Task(0, (1,)), Task(1, (-1,)), Task(1, (-2,)), Task(2, (3,))]
    pool = OrderedPool(square_or_die, tasks, workers=1, on_crash=lambda: "crashed")
    try:
        first = pool.result(0)
        pool.skip_job(1)  # its tasks would crash the worker
        last = pool.result(3)
    finally:
        pool.close()
    assert (first, last) == (1, 9)


def test_workers_exit_when_their_parent_is_killed(tmp_path):
    import signal
    import subprocess
    import sys
    import textwrap
    import time

    script = textwrap.dedent("""
        import sys, time
        sys.path.insert(0, sys.argv[1])
        from docqa_desktop.index.pipeline import OrderedPool, Task
        from pool_tasks import square_or_die
        pool = OrderedPool(square_or_die, [Task(0, (2,))], workers=2, on_crash=lambda: None)
        pool.result(0)
        print(" ".join(str(p) for p in pool._pool._processes), flush=True)
        time.sleep(300)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script, os.path.dirname(__file__)],
                              stdout=subprocess.PIPE, text=True)
    workers = [int(p) for p in parent.stdout.readline().split()]
    assert workers
    parent.send_signal(signal.SIGKILL)
    parent.wait()
    deadline = time.monotonic() + 60
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.5)
        alive = [p for p in workers if _running(p)]
    assert alive == [], f"orphaned workers still running: {alive}"


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.mark.slow
def test_killing_workers_while_they_send_results_lets_the_process_exit():
    """A worker killed halfway through sending a large result used to leave the pool's manager thread waiting for
    the rest of the message, and interpreter exit waiting for it: CI hung past its timeout after the tests passed."""
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        import random, sys, time
        sys.path.insert(0, sys.argv[1])
        from docqa_desktop.index.pipeline import OrderedPool, Task
        from pool_tasks import large_result
        if __name__ == "__main__":
            random.seed(0)
            for attempt in range(8):
                pool = OrderedPool(large_result, [Task(i, (150,)) for i in range(2)], workers=2,
                                   on_crash=lambda: None)
                pool._fill()
                time.sleep(random.uniform(0.5, 1.5))  # the workers are drawing or sending their results
                pool.close(kill=True)
            print("closed", flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script, os.path.dirname(__file__)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "closed", done.stderr[-2000:]
