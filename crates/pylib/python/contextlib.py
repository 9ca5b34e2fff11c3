"""contextlib: context managers from generators, and small ones scripts use."""

from functools import wraps


class _GeneratorContextManager:
    def __init__(self, func, args, kwds):
        self.gen = func(*args, **kwds)

    def __enter__(self):
        try:
            return next(self.gen)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None

    def __exit__(self, typ, value, traceback):
        if typ is None:
            try:
                next(self.gen)
            except StopIteration:
                return False
            raise RuntimeError("generator didn't stop")
        try:
            self.gen.throw(value)
        except StopIteration as exc:
            return exc is not value
        except BaseException as exc:
            if exc is value:
                return False
            raise
        raise RuntimeError("generator didn't stop after throw()")

    def __call__(self, func):
        @wraps(func)
        def inner(*args, **kwds):
            with self:
                return func(*args, **kwds)
        return inner


def contextmanager(func):
    @wraps(func)
    def helper(*args, **kwds):
        return _GeneratorContextManager(func, args, kwds)
    return helper


class suppress:
    def __init__(self, *exceptions):
        self._exceptions = exceptions

    def __enter__(self):
        pass

    def __exit__(self, exctype, excinst, exctb):
        return exctype is not None and issubclass(exctype, self._exceptions)


class nullcontext:
    def __init__(self, enter_result=None):
        self.enter_result = enter_result

    def __enter__(self):
        return self.enter_result

    def __exit__(self, *excinfo):
        return False


class closing:
    def __init__(self, thing):
        self.thing = thing

    def __enter__(self):
        return self.thing

    def __exit__(self, *exc_info):
        self.thing.close()
        return False


class redirect_stdout:
    def __init__(self, new_target):
        self._new_target = new_target

    def __enter__(self):
        return self._new_target

    def __exit__(self, *exc_info):
        return False


class ExitStack:
    def __init__(self):
        self._exits = []

    def enter_context(self, cm):
        result = cm.__enter__()
        self._exits.append(cm.__exit__)
        return result

    def callback(self, callback, *args, **kwds):
        self._exits.append(lambda *exc: callback(*args, **kwds))
        return callback

    def push(self, exit):
        self._exits.append(exit.__exit__ if hasattr(exit, "__exit__") else exit)
        return exit

    def close(self):
        self.__exit__(None, None, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc_details):
        suppressed = False
        while self._exits:
            callback = self._exits.pop()
            if callback(*exc_details):
                suppressed = True
                exc_details = (None, None, None)
        return suppressed


class ContextDecorator:
    def __call__(self, func):
        @wraps(func)
        def inner(*args, **kwds):
            with self:
                return func(*args, **kwds)
        return inner
