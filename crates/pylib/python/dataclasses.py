"""dataclasses: classes whose `__init__`, `__repr__` and `__eq__` come from their annotated
fields, as CPython writes them (its messages too)."""

import copy as _copy


class _MISSING_TYPE:
    def __repr__(self):
        return "MISSING"


MISSING = _MISSING_TYPE()


class _KW_ONLY_TYPE:
    pass


KW_ONLY = _KW_ONLY_TYPE()


class FrozenInstanceError(AttributeError):
    pass


class InitVar:
    def __init__(self, type):
        self.type = type

    def __class_getitem__(cls, type):
        return InitVar(type)


class Field:
    def __init__(self, default, default_factory, init, repr, hash, compare, metadata, kw_only):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self.metadata = {} if metadata is None else metadata
        self.kw_only = kw_only

    def __repr__(self):
        return (
            f"Field(name={self.name!r},type={self.type!r},default={self.default!r},"
            f"default_factory={self.default_factory!r},init={self.init!r},repr={self.repr!r},"
            f"hash={self.hash!r},compare={self.compare!r},metadata={self.metadata!r},"
            f"kw_only={self.kw_only!r},_field_type=_FIELD)"
        )


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None, compare=True,
          metadata=None, kw_only=MISSING):
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


def _is_classvar(annotation):
    text = annotation if isinstance(annotation, str) else repr(annotation)
    return text.startswith("typing.ClassVar") or text.startswith("ClassVar")


def _listed(names):
    quoted = [f"'{n}'" for n in names]
    if len(quoted) == 1:
        return quoted[0]
    if len(quoted) == 2:
        return f"{quoted[0]} and {quoted[1]}"
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]


def _default_of(f):
    if f.default_factory is not MISSING:
        return f.default_factory()
    return f.default


def _process_class(cls, init, repr, eq, order, unsafe_hash, frozen, kw_only):
    fields = {}
    for base in cls.__mro__[-1:0:-1]:
        base_fields = base.__dict__.get("__dataclass_fields__")
        if base_fields is not None:
            for f in base_fields.values():
                fields[f.name] = f
    annotations = cls.__dict__.get("__annotations__", {})
    own_kw_only = kw_only
    for name, annotation in annotations.items():
        if annotation is KW_ONLY or (isinstance(annotation, _KW_ONLY_TYPE)):
            own_kw_only = True
            continue
        if _is_classvar(annotation):
            continue
        default = cls.__dict__.get(name, MISSING)
        if isinstance(default, Field):
            f = default
        else:
            f = field(default=default)
        f.name = name
        f.type = annotation
        if f.kw_only is MISSING:
            f.kw_only = own_kw_only
        if isinstance(f.default, (list, dict, set)):
            raise ValueError(
                f"mutable default {type(f.default)} for field {name} is not allowed: use default_factory"
            )
        fields[name] = f
        if isinstance(default, Field):
            if f.default is MISSING:
                delattr(cls, name)
            else:
                setattr(cls, name, f.default)
    all_fields = list(fields.values())
    cls.__dataclass_fields__ = fields
    cls.__dataclass_params__ = (init, repr, eq, order, unsafe_hash, frozen)
    name = cls.__qualname__

    init_fields = [f for f in all_fields if f.init]
    positional = [f for f in init_fields if not f.kw_only]
    keyword_only = [f for f in init_fields if f.kw_only]
    if "__match_args__" not in cls.__dict__:
        cls.__match_args__ = tuple(f.name for f in positional)
    seen_default = False
    for f in positional:
        if f.default is not MISSING or f.default_factory is not MISSING:
            seen_default = True
        elif seen_default:
            raise TypeError(f"non-default argument '{f.name}' follows default argument")

    def set_field(self, key, value):
        if frozen:
            object.__setattr__(self, key, value)
        else:
            setattr(self, key, value)

    if init and "__init__" not in cls.__dict__:
        def __init__(self, *args, **kwargs):
            required = sum(1 for f in positional if f.default is MISSING and f.default_factory is MISSING)
            if len(args) > len(positional):
                takes = str(len(positional) + 1) if required == len(positional) else f"from {required + 1} to {len(positional) + 1}"
                raise TypeError(
                    f"{name}.__init__() takes {takes} positional argument{'s' if len(positional) else ''} "
                    f"but {len(args) + 1} were given"
                )
            values = {}
            for f, value in zip(positional, args):
                values[f.name] = value
            for key, value in kwargs.items():
                if key not in fields or not fields[key].init:
                    raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{key}'")
                if key in values:
                    raise TypeError(f"{name}.__init__() got multiple values for argument '{key}'")
                values[key] = value
            missing = [f.name for f in positional if f.name not in values and f.default is MISSING and f.default_factory is MISSING]
            if missing:
                raise TypeError(
                    f"{name}.__init__() missing {len(missing)} required positional argument"
                    f"{'' if len(missing) == 1 else 's'}: {_listed(missing)}"
                )
            missing = [f.name for f in keyword_only if f.name not in values and f.default is MISSING and f.default_factory is MISSING]
            if missing:
                raise TypeError(
                    f"{name}.__init__() missing {len(missing)} required keyword-only argument"
                    f"{'' if len(missing) == 1 else 's'}: {_listed(missing)}"
                )
            for f in all_fields:
                if f.name in values:
                    set_field(self, f.name, values[f.name])
                elif f.default is not MISSING or f.default_factory is not MISSING:
                    set_field(self, f.name, _default_of(f))
            post_init = getattr(self, "__post_init__", None)
            if post_init is not None:
                post_init()

        __init__.__qualname__ = "__init__"
        cls.__init__ = __init__

    if repr and "__repr__" not in cls.__dict__:
        def __repr__(self):
            shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in all_fields if f.repr)
            return f"{self.__class__.__qualname__}({shown})"

        cls.__repr__ = __repr__

    compared = [f for f in all_fields if f.compare]

    def as_tuple(self):
        return tuple(getattr(self, f.name) for f in compared)

    if eq and "__eq__" not in cls.__dict__:
        def __eq__(self, other):
            if other.__class__ is self.__class__:
                return as_tuple(self) == as_tuple(other)
            return NotImplemented

        cls.__eq__ = __eq__

    if order:
        def comparison(op):
            def compare(self, other):
                if other.__class__ is self.__class__:
                    return op(as_tuple(self), as_tuple(other))
                return NotImplemented
            return compare

        cls.__lt__ = comparison(lambda a, b: a < b)
        cls.__le__ = comparison(lambda a, b: a <= b)
        cls.__gt__ = comparison(lambda a, b: a > b)
        cls.__ge__ = comparison(lambda a, b: a >= b)

    if frozen:
        def __setattr__(self, key, value):
            if type(self) is cls or key in fields:
                raise FrozenInstanceError(f"cannot assign to field '{key}'")
            object.__setattr__(self, key, value)

        def __delattr__(self, key):
            if type(self) is cls or key in fields:
                raise FrozenInstanceError(f"cannot delete field '{key}'")
            object.__delattr__(self, key)

        cls.__setattr__ = __setattr__
        cls.__delattr__ = __delattr__

    hashed = [f for f in all_fields if (f.compare if f.hash is None else f.hash)]
    if unsafe_hash or (eq and frozen):
        def __hash__(self):
            return hash(tuple(getattr(self, f.name) for f in hashed))

        cls.__hash__ = __hash__
    elif eq and "__hash__" not in cls.__dict__:
        cls.__hash__ = None

    cls.__match_args__ = tuple(f.name for f in positional)
    return cls


def dataclass(cls=None, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False, frozen=False,
              match_args=True, kw_only=False, slots=False, weakref_slot=False):
    def wrap(cls):
        return _process_class(cls, init, repr, eq, order, unsafe_hash, frozen, kw_only)

    if cls is None:
        return wrap
    return wrap(cls)


def fields(class_or_instance):
    try:
        found = class_or_instance.__dataclass_fields__
    except AttributeError:
        raise TypeError("must be called with a dataclass type or instance") from None
    return tuple(found.values())


def is_dataclass(obj):
    cls = obj if isinstance(obj, type) else type(obj)
    return hasattr(cls, "__dataclass_fields__")


def _is_dataclass_instance(obj):
    return hasattr(type(obj), "__dataclass_fields__")


def asdict(obj, *, dict_factory=dict):
    if not _is_dataclass_instance(obj):
        raise TypeError("asdict() should be called on dataclass instances")
    return _asdict_inner(obj, dict_factory)


def _asdict_inner(obj, dict_factory):
    if _is_dataclass_instance(obj):
        return dict_factory([(f.name, _asdict_inner(getattr(obj, f.name), dict_factory)) for f in fields(obj)])
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*[_asdict_inner(v, dict_factory) for v in obj])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_asdict_inner(v, dict_factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_asdict_inner(k, dict_factory), _asdict_inner(v, dict_factory)) for k, v in obj.items())
    return _copy.deepcopy(obj)


def astuple(obj, *, tuple_factory=tuple):
    if not _is_dataclass_instance(obj):
        raise TypeError("astuple() should be called on dataclass instances")
    return _astuple_inner(obj, tuple_factory)


def _astuple_inner(obj, tuple_factory):
    if _is_dataclass_instance(obj):
        return tuple_factory([_astuple_inner(getattr(obj, f.name), tuple_factory) for f in fields(obj)])
    if isinstance(obj, (list, tuple)):
        return type(obj)(_astuple_inner(v, tuple_factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_astuple_inner(k, tuple_factory), _astuple_inner(v, tuple_factory)) for k, v in obj.items())
    return _copy.deepcopy(obj)


def replace(obj, /, **changes):
    if not _is_dataclass_instance(obj):
        raise TypeError("replace() should be called on dataclass instances")
    for f in fields(obj):
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
            continue
        if f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)
