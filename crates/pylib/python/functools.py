"""functools: higher-order functions and operations on callables."""

from _playground import partial

WRAPPER_ASSIGNMENTS = ("__module__", "__name__", "__qualname__", "__doc__")
WRAPPER_UPDATES = ("__dict__",)


def update_wrapper(wrapper, wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    for attr in assigned:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            pass
        else:
            try:
                setattr(wrapper, attr, value)
            except (AttributeError, TypeError):
                pass
    try:
        wrapper.__wrapped__ = wrapped
    except (AttributeError, TypeError):
        pass
    return wrapper


def wraps(wrapped, assigned=WRAPPER_ASSIGNMENTS, updated=WRAPPER_UPDATES):
    return partial(update_wrapper, wrapped=wrapped, assigned=assigned, updated=updated)


def reduce(function, iterable, *initial):
    if len(initial) > 1:
        raise TypeError(f"reduce expected at most 3 arguments, got {2 + len(initial)}")
    it = iter(iterable)
    if initial:
        value = initial[0]
    else:
        try:
            value = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value") from None
    for element in it:
        value = function(value, element)
    return value


def cmp_to_key(mycmp):
    class K:
        def __init__(self, obj):
            self.obj = obj

        def __lt__(self, other):
            return mycmp(self.obj, other.obj) < 0

        def __gt__(self, other):
            return mycmp(self.obj, other.obj) > 0

        def __eq__(self, other):
            return mycmp(self.obj, other.obj) == 0

        def __le__(self, other):
            return mycmp(self.obj, other.obj) <= 0

        def __ge__(self, other):
            return mycmp(self.obj, other.obj) >= 0

        __hash__ = None

    return K


def total_ordering(cls):
    """Fills in the rich comparisons a class lacks from the one it defines (and `__eq__`)."""
    defined = [op for op in ("__lt__", "__le__", "__gt__", "__ge__") if op in cls.__dict__]
    if not defined:
        raise ValueError("must define at least one ordering operation: < > <= >=")
    root = defined[0]
    if root == "__lt__":
        fills = {
            "__gt__": lambda self, other: (not self < other) and self != other,
            "__le__": lambda self, other: self < other or self == other,
            "__ge__": lambda self, other: not self < other,
        }
    elif root == "__le__":
        fills = {
            "__ge__": lambda self, other: (not self <= other) or self == other,
            "__lt__": lambda self, other: self <= other and self != other,
            "__gt__": lambda self, other: not self <= other,
        }
    elif root == "__gt__":
        fills = {
            "__lt__": lambda self, other: (not self > other) and self != other,
            "__ge__": lambda self, other: self > other or self == other,
            "__le__": lambda self, other: not self > other,
        }
    else:
        fills = {
            "__le__": lambda self, other: (not self >= other) or self == other,
            "__gt__": lambda self, other: self >= other and self != other,
            "__lt__": lambda self, other: not self >= other,
        }
    for name, method in fills.items():
        if name not in defined:
            setattr(cls, name, method)
    return cls


class _CacheInfo(tuple):
    hits = property(lambda self: self[0])
    misses = property(lambda self: self[1])
    maxsize = property(lambda self: self[2])
    currsize = property(lambda self: self[3])

    def __repr__(self):
        return f"CacheInfo(hits={self[0]}, misses={self[1]}, maxsize={self[2]}, currsize={self[3]})"


def lru_cache(maxsize=128, typed=False):
    """Memoises a function on its (hashable) arguments, keeping the `maxsize` most recently
    used results (all of them for `None`)."""

    def decorating(user_function):
        cache = {}
        counts = [0, 0]

        def wrapper(*args, **kwargs):
            key = args
            if kwargs:
                key = args + (_KWD_MARK,) + tuple(kwargs.items())
            if key in cache:
                counts[0] += 1
                result = cache.pop(key)
                cache[key] = result
                return result
            counts[1] += 1
            result = user_function(*args, **kwargs)
            cache[key] = result
            if maxsize is not None and len(cache) > maxsize:
                del cache[next(iter(cache))]
            return result

        def cache_info():
            return _CacheInfo((counts[0], counts[1], maxsize, len(cache)))

        def cache_clear():
            cache.clear()
            counts[0] = 0
            counts[1] = 0

        wrapper.cache_info = cache_info
        wrapper.cache_clear = cache_clear
        return update_wrapper(wrapper, user_function)

    if callable(maxsize) and not isinstance(maxsize, int):
        user_function = maxsize
        maxsize = 128
        return decorating(user_function)
    if maxsize is not None and maxsize < 0:
        maxsize = 0
    return decorating


_KWD_MARK = object()


def cache(user_function):
    return lru_cache(maxsize=None)(user_function)


class cached_property:
    def __init__(self, func):
        self.func = func
        self.attrname = func.__name__
        self.__doc__ = func.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.attrname] = value
        return value


class partialmethod:
    def __init__(self, func, *args, **keywords):
        self.func = func
        self.args = args
        self.keywords = keywords

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        return partial(self.func, obj, *self.args, **self.keywords)


def singledispatch(func):
    registry = {object: func}

    def dispatch(cls):
        for klass in cls.__mro__:
            if klass in registry:
                return registry[klass]
        return func

    def register(cls, method=None):
        if method is None:
            if isinstance(cls, type):
                return lambda f: register(cls, f)
            annotations = getattr(cls, "__annotations__", {})
            method = cls
            cls = next(iter(annotations.values()))
        registry[cls] = method
        return method

    def wrapper(*args, **kw):
        return dispatch(type(args[0]))(*args, **kw)

    wrapper.register = register
    wrapper.dispatch = dispatch
    wrapper.registry = registry
    return update_wrapper(wrapper, func)
