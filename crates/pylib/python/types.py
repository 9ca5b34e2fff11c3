"""types: names for built-in types, and SimpleNamespace."""


def _f():
    pass


def _g():
    yield 1


class _C:
    def _m(self):
        pass


FunctionType = type(_f)
LambdaType = FunctionType
GeneratorType = type(_g())
MethodType = type(_C()._m)
BuiltinFunctionType = type(len)
import sys as _sys
ModuleType = type(_sys)


class SimpleNamespace:
    def __init__(self, mapping_or_iterable=(), /, **kwargs):
        self.__dict__.update(dict(mapping_or_iterable))
        self.__dict__.update(kwargs)

    def __repr__(self):
        items = (f"{k}={v!r}" for k, v in self.__dict__.items())
        name = "namespace" if type(self) is SimpleNamespace else type(self).__name__
        return f"{name}({', '.join(items)})"

    def __eq__(self, other):
        if isinstance(self, SimpleNamespace) and isinstance(other, SimpleNamespace):
            return self.__dict__ == other.__dict__
        return NotImplemented


class MappingProxyType:
    def __init__(self, mapping):
        self._mapping = mapping

    def __getitem__(self, key):
        return self._mapping[key]

    def __iter__(self):
        return iter(self._mapping)

    def __len__(self):
        return len(self._mapping)

    def __contains__(self, key):
        return key in self._mapping

    def get(self, key, default=None):
        return self._mapping.get(key, default)

    def keys(self):
        return self._mapping.keys()

    def values(self):
        return self._mapping.values()

    def items(self):
        return self._mapping.items()

    def __repr__(self):
        return f"mappingproxy({self._mapping!r})"


class UnionType:
    """`int | str`: what `|` between types makes (PEP 604); `isinstance` and `issubclass` take it."""

    def __init__(self, args):
        self.__args__ = args

    def __or__(self, other):
        return _union(self, other)

    def __ror__(self, other):
        return _union(other, self)

    def __eq__(self, other):
        return isinstance(other, UnionType) and set(self.__args__) == set(other.__args__)

    def __hash__(self):
        return hash(frozenset(self.__args__))

    def __repr__(self):
        return " | ".join("None" if a is type(None) else a.__qualname__ if isinstance(a, type) else repr(a)
                          for a in self.__args__)


def _union(left, right):
    """`left | right` for types (and None, and unions): their members, each once, in order."""
    members = []
    for side in (left, right):
        side = type(None) if side is None else side
        for member in side.__args__ if isinstance(side, UnionType) else (side,):
            if member not in members:
                members.append(member)
    return members[0] if len(members) == 1 else UnionType(tuple(members))
