"""time: the host's clock, as Python's `time` module reads it. (The emulated TPU's own time
is in its counters, never here.)"""

import _playground


def time():
    return _playground.clock()


def time_ns():
    return int(_playground.clock() * 1e9)


def perf_counter():
    return _playground.perf_counter()


def perf_counter_ns():
    return int(_playground.perf_counter() * 1e9)


def monotonic():
    return _playground.monotonic()


def monotonic_ns():
    return int(_playground.monotonic() * 1e9)


def process_time():
    return _playground.perf_counter()


def process_time_ns():
    return int(_playground.perf_counter() * 1e9)


def sleep(secs):
    """Returns at once: a script in the page cannot block, and waiting would change nothing
    the emulator measures."""
    if secs < 0:
        raise ValueError("sleep length must be non-negative")
