"""timeit: times a callable with the host's clock (`time.perf_counter`), as CPython's module
does. A statement given as a string other than "pass" would need exec(), which the
playground does not have: pass a callable (`timeit.timeit(lambda: f(x), number=10)`)."""

import time

__all__ = ["Timer", "timeit", "repeat", "default_timer"]

default_timer = time.perf_counter
default_number = 1000000
default_repeat = 5


def _callable(code, what):
    if isinstance(code, str):
        if code.strip() in ("", "pass"):
            return None
        raise NotImplementedError(
            f"timeit with the {what} as a string is not supported by the playground (it has no exec()): "
            "pass a callable instead"
        )
    if callable(code):
        return code
    raise ValueError(f"{what} is neither a string nor callable")


class Timer:
    def __init__(self, stmt="pass", setup="pass", timer=default_timer, globals=None):
        self.timer = timer
        self._stmt = _callable(stmt, "stmt")
        self._setup = _callable(setup, "setup")

    def timeit(self, number=default_number):
        if self._setup is not None:
            self._setup()
        stmt = self._stmt
        timer = self.timer
        start = timer()
        if stmt is None:
            for _ in range(number):
                pass
        else:
            for _ in range(number):
                stmt()
        return timer() - start

    def repeat(self, repeat=default_repeat, number=default_number):
        return [self.timeit(number) for _ in range(repeat)]

    def autorange(self, callback=None):
        i = 1
        while True:
            for j in 1, 2, 5:
                number = i * j
                time_taken = self.timeit(number)
                if callback:
                    callback(number, time_taken)
                if time_taken >= 0.2:
                    return (number, time_taken)
            i *= 10


def timeit(stmt="pass", setup="pass", timer=default_timer, number=default_number, globals=None):
    return Timer(stmt, setup, timer, globals).timeit(number)


def repeat(stmt="pass", setup="pass", timer=default_timer, repeat=default_repeat, number=default_number,
           globals=None):
    return Timer(stmt, setup, timer, globals).repeat(repeat, number)
