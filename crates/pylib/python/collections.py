"""collections: namedtuple, defaultdict, OrderedDict, Counter and deque, with CPython's
behaviour (and reprs)."""

from operator import itemgetter as _itemgetter


def _count_args(n):
    return f"{n} positional argument" + ("" if n == 1 else "s")


def namedtuple(typename, field_names, *, rename=False, defaults=None, module=None):
    """A tuple subclass whose items are also attributes."""
    if isinstance(field_names, str):
        field_names = field_names.replace(",", " ").split()
    field_names = tuple(map(str, field_names))
    if rename:
        seen = set()
        renamed = []
        for index, name in enumerate(field_names):
            if not name.isidentifier() or name.startswith("_") or name in seen:
                name = f"_{index}"
            seen.add(name)
            renamed.append(name)
        field_names = tuple(renamed)
    for name in (typename,) + field_names:
        if not isinstance(name, str):
            raise TypeError("Type names and field names must be strings")
        if not name.isidentifier():
            raise ValueError(f"Type names and field names must be valid identifiers: {name!r}")
    seen = set()
    for name in field_names:
        if name.startswith("_") and not rename:
            raise ValueError(f"Field names cannot start with an underscore: {name!r}")
        if name in seen:
            raise ValueError(f"Encountered duplicate field name: {name!r}")
        seen.add(name)
    num_fields = len(field_names)
    if defaults is not None:
        defaults = tuple(defaults)
        if len(defaults) > num_fields:
            raise TypeError("Got more default values than field names")
    else:
        defaults = ()
    field_defaults = dict(zip(field_names[num_fields - len(defaults):], defaults))

    def __new__(_cls, *args, **kwargs):
        if len(args) > num_fields:
            raise TypeError(
                f"{typename}.__new__() takes {'from ' + str(num_fields - len(defaults) + 1) + ' to ' if defaults else ''}"
                f"{num_fields + 1} positional arguments but {len(args) + 1} were given"
            )
        values = list(args)
        missing = []
        for name in field_names[len(args):]:
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif name in field_defaults:
                values.append(field_defaults[name])
            else:
                missing.append(name)
        for name in field_names[:len(args)]:
            if name in kwargs:
                raise TypeError(f"{typename}.__new__() got multiple values for argument '{name}'")
        if kwargs:
            raise TypeError(f"{typename}.__new__() got an unexpected keyword argument '{next(iter(kwargs))}'")
        if missing:
            quoted = [f"'{m}'" for m in missing]
            listed = quoted[0] if len(quoted) == 1 else (
                " and ".join(quoted) if len(quoted) == 2 else ", ".join(quoted[:-1]) + ", and " + quoted[-1])
            raise TypeError(
                f"{typename}.__new__() missing {len(missing)} required positional argument"
                f"{'' if len(missing) == 1 else 's'}: {listed}"
            )
        return tuple.__new__(_cls, values)

    def _make(cls, iterable):
        result = tuple.__new__(cls, iterable)
        if len(result) != num_fields:
            raise TypeError(f"Expected {num_fields} arguments, got {len(result)}")
        return result

    def _replace(self, **kwds):
        values = [kwds.pop(name, value) for name, value in zip(field_names, self)]
        if kwds:
            raise ValueError(f"Got unexpected field names: {list(kwds)!r}")
        return self._make(values)

    def __repr__(self):
        return self.__class__.__name__ + "(" + ", ".join(
            f"{name}={value!r}" for name, value in zip(field_names, self)) + ")"

    def _asdict(self):
        return dict(zip(self._fields, self))

    def __getnewargs__(self):
        return tuple(self)

    namespace = {
        "__doc__": f"{typename}({', '.join(field_names)})",
        "__slots__": (),
        "_fields": field_names,
        "_field_defaults": field_defaults,
        "__new__": staticmethod(__new__),
        "_make": classmethod(_make),
        "_replace": _replace,
        "__repr__": __repr__,
        "_asdict": _asdict,
        "__getnewargs__": __getnewargs__,
        "__match_args__": field_names,
        "__module__": "__main__" if module is None else module,
    }
    for index, name in enumerate(field_names):
        namespace[name] = property(_itemgetter(index), doc=f"Alias for field number {index}")
    return type(typename, (tuple,), namespace)


class defaultdict(dict):
    def __init__(self, default_factory=None, *args, **kwargs):
        if default_factory is not None and not callable(default_factory):
            raise TypeError("first argument must be callable or None")
        super().__init__(*args, **kwargs)
        self.default_factory = default_factory

    def __missing__(self, key):
        if self.default_factory is None:
            raise KeyError(key)
        value = self.default_factory()
        self[key] = value
        return value

    def copy(self):
        return defaultdict(self.default_factory, self)

    __copy__ = copy

    def __repr__(self):
        return f"defaultdict({self.default_factory!r}, {dict.__repr__(self)})"


class OrderedDict(dict):
    def move_to_end(self, key, last=True):
        value = self.pop(key)
        if last:
            self[key] = value
        else:
            items = list(self.items())
            self.clear()
            self[key] = value
            for k, v in items:
                self[k] = v

    def popitem(self, last=True):
        if not self:
            raise KeyError("dictionary is empty")
        key = next(reversed(list(self.keys()))) if last else next(iter(self))
        return key, self.pop(key)

    def copy(self):
        return OrderedDict(self)

    __copy__ = copy

    def __repr__(self):
        if not self:
            return f"{self.__class__.__name__}()"
        return f"{self.__class__.__name__}({list(self.items())!r})"

    def __eq__(self, other):
        if isinstance(other, OrderedDict):
            return list(self.items()) == list(other.items())
        return dict.__eq__(self, other)


class Counter(dict):
    def __init__(self, iterable=None, /, **kwds):
        super().__init__()
        self.update(iterable, **kwds)

    def __missing__(self, key):
        return 0

    def total(self):
        return sum(self.values())

    def most_common(self, n=None):
        items = sorted(self.items(), key=_itemgetter(1), reverse=True)
        return items if n is None else items[:n]

    def elements(self):
        for elem, count in self.items():
            for _ in range(count):
                yield elem

    def update(self, iterable=None, /, **kwds):
        if iterable is not None:
            if isinstance(iterable, dict):
                for elem, count in iterable.items():
                    self[elem] = count + self.get(elem, 0)
            else:
                for elem in iterable:
                    self[elem] = self.get(elem, 0) + 1
        if kwds:
            self.update(kwds)

    def subtract(self, iterable=None, /, **kwds):
        if iterable is not None:
            if isinstance(iterable, dict):
                for elem, count in iterable.items():
                    self[elem] = self.get(elem, 0) - count
            else:
                for elem in iterable:
                    self[elem] = self.get(elem, 0) - 1
        if kwds:
            self.subtract(kwds)

    def copy(self):
        return Counter(self)

    __copy__ = copy

    def __repr__(self):
        if not self:
            return f"{self.__class__.__name__}()"
        inner = ", ".join(f"{k!r}: {v!r}" for k, v in self.most_common())
        return f"{self.__class__.__name__}({{{inner}}})"

    def __add__(self, other):
        result = Counter()
        for elem, count in self.items():
            newcount = count + other[elem]
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count > 0:
                result[elem] = count
        return result

    def __sub__(self, other):
        result = Counter()
        for elem, count in self.items():
            newcount = count - other[elem]
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count < 0:
                result[elem] = 0 - count
        return result

    def __or__(self, other):
        result = Counter()
        for elem, count in self.items():
            other_count = other[elem]
            newcount = other_count if count < other_count else count
            if newcount > 0:
                result[elem] = newcount
        for elem, count in other.items():
            if elem not in self and count > 0:
                result[elem] = count
        return result

    def __and__(self, other):
        result = Counter()
        for elem, count in self.items():
            other_count = other[elem]
            newcount = count if count < other_count else other_count
            if newcount > 0:
                result[elem] = newcount
        return result


class deque:
    def __init__(self, iterable=(), maxlen=None):
        if maxlen is not None and maxlen < 0:
            raise ValueError("maxlen must be non-negative")
        self._items = []
        self.maxlen = maxlen
        self.extend(iterable)

    def append(self, x):
        self._items.append(x)
        if self.maxlen is not None and len(self._items) > self.maxlen:
            del self._items[0]

    def appendleft(self, x):
        self._items.insert(0, x)
        if self.maxlen is not None and len(self._items) > self.maxlen:
            self._items.pop()

    def pop(self):
        if not self._items:
            raise IndexError("pop from an empty deque")
        return self._items.pop()

    def popleft(self):
        if not self._items:
            raise IndexError("pop from an empty deque")
        return self._items.pop(0)

    def extend(self, iterable):
        for x in list(iterable):
            self.append(x)

    def extendleft(self, iterable):
        for x in list(iterable):
            self.appendleft(x)

    def rotate(self, n=1):
        if self._items:
            n = n % len(self._items)
            if n:
                self._items = self._items[-n:] + self._items[:-n]

    def clear(self):
        self._items.clear()

    def copy(self):
        return deque(self._items, self.maxlen)

    def count(self, x):
        return self._items.count(x)

    def index(self, x, *args):
        return self._items.index(x, *args)

    def remove(self, value):
        self._items.remove(value)

    def reverse(self):
        self._items.reverse()

    def insert(self, i, x):
        if self.maxlen is not None and len(self._items) >= self.maxlen:
            raise IndexError("deque already at its maximum size")
        self._items.insert(i, x)

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        return iter(list(self._items))

    def __reversed__(self):
        return iter(self._items[::-1])

    def __getitem__(self, i):
        if isinstance(i, slice):
            raise TypeError("sequence index must be integer, not 'slice'")
        return self._items[i]

    def __setitem__(self, i, x):
        self._items[i] = x

    def __delitem__(self, i):
        del self._items[i]

    def __contains__(self, x):
        return x in self._items

    def __bool__(self):
        return bool(self._items)

    def __eq__(self, other):
        return isinstance(other, deque) and self._items == other._items

    def __add__(self, other):
        return deque(self._items + list(other), self.maxlen)

    def __repr__(self):
        if self.maxlen is None:
            return f"deque({self._items!r})"
        return f"deque({self._items!r}, maxlen={self.maxlen})"


class ChainMap:
    def __init__(self, *maps):
        self.maps = list(maps) or [{}]

    def __getitem__(self, key):
        for mapping in self.maps:
            if key in mapping:
                return mapping[key]
        raise KeyError(key)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def __contains__(self, key):
        return any(key in m for m in self.maps)

    def __setitem__(self, key, value):
        self.maps[0][key] = value

    def __len__(self):
        return len(set().union(*self.maps))

    def __iter__(self):
        seen = {}
        for mapping in reversed(self.maps):
            for key in mapping:
                seen[key] = None
        return iter(seen)

    def keys(self):
        return list(self)

    def items(self):
        return [(k, self[k]) for k in self]

    def values(self):
        return [self[k] for k in self]

    def new_child(self, m=None):
        return ChainMap({} if m is None else m, *self.maps)

    def __repr__(self):
        return f"ChainMap({', '.join(map(repr, self.maps))})"
