"""copy: shallow and deep copies. JAX arrays are immutable, so copies share them."""


class Error(Exception):
    pass


_IMMUTABLE = (int, float, bool, str, type(None), frozenset, range, type)


def copy(x):
    cls = type(x)
    if isinstance(x, _IMMUTABLE) and cls in _IMMUTABLE:
        return x
    copier = getattr(cls, "__copy__", None)
    if copier is not None:
        return copier(x)
    if cls is list:
        return list(x)
    if cls is dict:
        return dict(x)
    if cls is set:
        return set(x)
    if cls is tuple:
        return x
    if callable(x) and not hasattr(x, "__dict__"):
        return x
    return _reconstruct(x, lambda v: v)


def deepcopy(x, memo=None):
    if memo is None:
        memo = {}
    key = id(x)
    if key in memo:
        return memo[key]
    cls = type(x)
    if isinstance(x, _IMMUTABLE) and cls in _IMMUTABLE:
        return x
    copier = getattr(x, "__deepcopy__", None)
    if copier is not None and not isinstance(x, type):
        y = copier(memo)
    elif cls is list:
        y = []
        memo[key] = y
        for item in x:
            y.append(deepcopy(item, memo))
    elif cls is dict:
        y = {}
        memo[key] = y
        for k, v in x.items():
            y[deepcopy(k, memo)] = deepcopy(v, memo)
    elif cls is tuple:
        y = tuple(deepcopy(item, memo) for item in x)
    elif cls is set:
        y = set(deepcopy(item, memo) for item in x)
    elif callable(x) and not hasattr(x, "__dict__"):
        y = x
    elif not hasattr(x, "__dict__") and not isinstance(x, (list, dict, set, tuple)):
        y = x
    else:
        y = _reconstruct(x, lambda v: deepcopy(v, memo), memo, key)
    memo[key] = y
    return y


def _reconstruct(x, copy_value, memo=None, key=None):
    cls = type(x)
    if isinstance(x, tuple):
        items = [copy_value(v) for v in x]
        y = cls(*items) if hasattr(x, "_fields") else tuple.__new__(cls, items)
    else:
        y = object.__new__(cls)
        if memo is not None:
            memo[key] = y
        if isinstance(x, dict):
            for k, v in x.items():
                y[copy_value(k)] = copy_value(v)
        elif isinstance(x, list):
            for v in x:
                y.append(copy_value(v))
        elif isinstance(x, set):
            for v in x:
                y.add(copy_value(v))
    state = getattr(x, "__dict__", None)
    if state:
        for k, v in state.items():
            object.__setattr__(y, k, copy_value(v))
    return y


def replace(obj, /, **changes):
    return obj.__replace__(**changes)
