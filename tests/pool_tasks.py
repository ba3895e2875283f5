"""Functions for worker-pool tests (importable by spawned worker processes)."""
import os
import time


HANG = 999


def square_or_die(n: int) -> int:
    if n < 0:
        os._exit(1)  # what a segfault in a native parser looks like to the pool
    if n == HANG:
        time.sleep(3600)  # what a native parser stuck in a loop looks like to the pool
    time.sleep(0.05)
    return n * n


def large_result(megabytes: int) -> bytes:
    """A result that takes the pool many pipe writes to send back (a page batch's text and words can)."""
    return os.urandom(megabytes << 20)


def ocr_session_threads(_: int) -> int:
    """The intra-op threads of the sessions the OCR engine makes in this process."""
    from docqa_desktop.index import ocr

    ocr._engine.cache_clear()
    return ocr._engine("cpu").text_det.infer.session.get_session_options().intra_op_num_threads
