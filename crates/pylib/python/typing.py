"""typing: the names annotations use. They are accepted and shown; nothing checks them
(as in CPython)."""

import collections as _collections

TYPE_CHECKING = False


def _type_repr(obj):
    if isinstance(obj, type):
        if obj.__module__ == "builtins":
            return obj.__qualname__
        return f"{obj.__module__}.{obj.__qualname__}"
    if obj is ...:
        return "..."
    if obj is None or obj is type(None):
        return "None"
    return repr(obj)


class _GenericAlias:
    def __init__(self, origin, args, name):
        self.__origin__ = origin
        self.__args__ = args
        self._name = name

    def __getitem__(self, params):
        if not isinstance(params, tuple):
            params = (params,)
        return _GenericAlias(self.__origin__, params, self._name)

    def __call__(self, *args, **kwargs):
        return self.__origin__(*args, **kwargs)

    def __repr__(self):
        if not self.__args__:
            return f"typing.{self._name}"
        # Optional[X] is Union[X, None], printed as CPython prints it.
        if self._name == "Optional":
            return f"typing.Optional[{_type_repr(self.__args__[0])}]"
        args = ", ".join(_type_repr(a) for a in self.__args__)
        return f"typing.{self._name}[{args}]"

    def __eq__(self, other):
        return isinstance(other, _GenericAlias) and self.__origin__ == other.__origin__ and self.__args__ == other.__args__

    def __hash__(self):
        return hash((self._name, self.__args__))

    def __mro_entries__(self, bases):
        return (self.__origin__,)


class _SpecialForm:
    def __init__(self, name):
        self._name = name

    def __getitem__(self, params):
        if not isinstance(params, tuple):
            params = (params,)
        if self._name == "Optional":
            return _GenericAlias(None, (params[0], type(None)), "Optional")
        return _GenericAlias(None, params, self._name)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"Cannot instantiate typing.{self._name}")

    def __repr__(self):
        return f"typing.{self._name}"


Any = _SpecialForm("Any")
Union = _SpecialForm("Union")
Optional = _SpecialForm("Optional")
Literal = _SpecialForm("Literal")
ClassVar = _SpecialForm("ClassVar")
Final = _SpecialForm("Final")
Annotated = _SpecialForm("Annotated")
NoReturn = _SpecialForm("NoReturn")
Never = _SpecialForm("Never")
Self = _SpecialForm("Self")
TypeAlias = _SpecialForm("TypeAlias")
Concatenate = _SpecialForm("Concatenate")
TypeGuard = _SpecialForm("TypeGuard")

List = _GenericAlias(list, (), "List")
Dict = _GenericAlias(dict, (), "Dict")
Set = _GenericAlias(set, (), "Set")
FrozenSet = _GenericAlias(frozenset, (), "FrozenSet")
Tuple = _GenericAlias(tuple, (), "Tuple")
Type = _GenericAlias(type, (), "Type")
Callable = _GenericAlias(None, (), "Callable")
Iterable = _GenericAlias(None, (), "Iterable")
Iterator = _GenericAlias(None, (), "Iterator")
Generator = _GenericAlias(None, (), "Generator")
Sequence = _GenericAlias(list, (), "Sequence")
MutableSequence = _GenericAlias(list, (), "MutableSequence")
Mapping = _GenericAlias(dict, (), "Mapping")
MutableMapping = _GenericAlias(dict, (), "MutableMapping")
Collection = _GenericAlias(None, (), "Collection")
Container = _GenericAlias(None, (), "Container")
Hashable = _GenericAlias(None, (), "Hashable")
Sized = _GenericAlias(None, (), "Sized")
AbstractSet = _GenericAlias(set, (), "AbstractSet")
DefaultDict = _GenericAlias(_collections.defaultdict, (), "DefaultDict")
OrderedDict = _GenericAlias(_collections.OrderedDict, (), "OrderedDict")
Counter = _GenericAlias(_collections.Counter, (), "Counter")
Deque = _GenericAlias(_collections.deque, (), "Deque")
Text = str
AnyStr = str


class TypeVar:
    def __init__(self, name, *constraints, bound=None, covariant=False, contravariant=False):
        self.__name__ = name
        self.__constraints__ = constraints
        self.__bound__ = bound
        self.__covariant__ = covariant
        self.__contravariant__ = contravariant

    def __repr__(self):
        prefix = "+" if self.__covariant__ else "-" if self.__contravariant__ else "~"
        return prefix + self.__name__


class ParamSpec(TypeVar):
    args = None
    kwargs = None


class Generic:
    def __class_getitem__(cls, params):
        return cls


class Protocol(Generic):
    pass


def cast(typ, val):
    return val


def overload(func):
    return func


def final(f):
    return f


def no_type_check(arg):
    return arg


def runtime_checkable(cls):
    return cls


def get_type_hints(obj, globalns=None, localns=None, include_extras=False):
    return dict(getattr(obj, "__annotations__", {}))


def get_origin(tp):
    return getattr(tp, "__origin__", None)


def get_args(tp):
    return getattr(tp, "__args__", ())


def NewType(name, tp):
    def new_type(x):
        return x

    new_type.__name__ = name
    new_type.__supertype__ = tp
    return new_type


def _make_namedtuple(cls):
    annotations = cls.__dict__.get("__annotations__", {})
    fields = list(annotations)
    defaults = []
    for name in fields:
        if name in cls.__dict__:
            defaults.append(cls.__dict__[name])
        elif defaults:
            raise TypeError(
                f"Non-default namedtuple field {name} cannot follow default field{'s' if len(defaults) > 1 else ''} "
                + ", ".join(fields[fields.index(name) - len(defaults):fields.index(name)])
            )
    base = _collections.namedtuple(cls.__name__, fields, defaults=defaults)
    for name in ("__new__", "_make", "_replace", "__repr__", "_asdict", "__getnewargs__", "_fields", "_field_defaults", "__match_args__"):
        setattr(cls, name, base.__dict__[name])
    for name in fields:
        setattr(cls, name, base.__dict__[name])
    cls.__annotations__ = dict(annotations)


class NamedTuple(tuple):
    """`class P(NamedTuple): x: int; y: int = 0`, or `NamedTuple('P', [('x', int)])`."""

    def __init_subclass__(cls, **kwargs):
        _make_namedtuple(cls)

    def __new__(cls, typename=None, fields=None, **kwargs):
        if cls is not NamedTuple:
            raise TypeError(f"{cls.__name__}() takes its fields")
        if fields is None:
            fields = list(kwargs.items())
        return _collections.namedtuple(typename, [name for name, _ in fields])


class _TypedDictMeta(type):
    def __call__(cls, *args, **kwargs):
        return dict(*args, **kwargs)


class TypedDict(metaclass=_TypedDictMeta):
    pass
