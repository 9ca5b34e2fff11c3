"""collections.abc: the abstract container types, for subclassing and annotations."""

from abc import ABC


class Hashable(ABC):
    pass


class Iterable(ABC):
    pass


class Iterator(Iterable):
    def __iter__(self):
        return self


class Reversible(Iterable):
    pass


class Generator(Iterator):
    pass


class Sized(ABC):
    pass


class Container(ABC):
    pass


class Callable(ABC):
    pass


class Collection(Sized, Iterable, Container):
    pass


class Sequence(Reversible, Collection):
    def __contains__(self, value):
        for v in self:
            if v is value or v == value:
                return True
        return False

    def __iter__(self):
        i = 0
        try:
            while True:
                v = self[i]
                yield v
                i += 1
        except IndexError:
            return

    def index(self, value):
        for i, v in enumerate(self):
            if v is value or v == value:
                return i
        raise ValueError

    def count(self, value):
        return sum(1 for v in self if v is value or v == value)


class MutableSequence(Sequence):
    pass


class Set(Collection):
    pass


class MutableSet(Set):
    pass


class Mapping(Collection):
    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default

    def __contains__(self, key):
        try:
            self[key]
        except KeyError:
            return False
        return True

    def keys(self):
        return list(self)

    def items(self):
        return [(key, self[key]) for key in self]

    def values(self):
        return [self[key] for key in self]


class MutableMapping(Mapping):
    def update(self, other=(), **kwds):
        if isinstance(other, dict) or hasattr(other, "keys"):
            for key in other.keys():
                self[key] = other[key]
        else:
            for key, value in other:
                self[key] = value
        for key, value in kwds.items():
            self[key] = value

    def setdefault(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            self[key] = default
        return default

    def pop(self, key, *default):
        try:
            value = self[key]
        except KeyError:
            if default:
                return default[0]
            raise
        del self[key]
        return value
