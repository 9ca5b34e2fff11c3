"""enum: enumerations, their members made when the class is, as CPython makes them."""


class auto:
    _order = [0]

    def __init__(self):
        auto._order[0] += 1
        self._position = auto._order[0]

    def __repr__(self):
        return "auto()"


class EnumMeta(type):
    def __iter__(cls):
        return iter(cls.__dict__.get("_member_list_", []))

    def __reversed__(cls):
        return iter(list(cls.__dict__.get("_member_list_", []))[::-1])

    def __len__(cls):
        return len(cls.__dict__.get("_member_list_", []))

    def __getitem__(cls, name):
        return cls._member_map_[name]

    def __getattr__(cls, name):
        # CPython 3.11's message for a member that is not there: just the name.
        raise AttributeError(name) from None

    def __contains__(cls, member):
        if isinstance(member, cls):
            return True
        return any(m._value_ == member for m in cls.__dict__.get("_member_list_", []))

    def __call__(cls, value, names=None, *, module=None, qualname=None, type=None, start=1):
        if names is not None:
            return _functional(cls, value, names, start)
        if isinstance(value, cls):
            return value
        for member in cls.__dict__.get("_member_list_", []):
            if member._value_ == value:
                return member
        missing = cls._missing_(value)
        if missing is not None:
            return missing
        raise ValueError(f"{value!r} is not a valid {cls.__qualname__}")

    def __repr__(cls):
        return f"<enum {cls.__name__!r}>"

    @property
    def __members__(cls):
        return dict(cls._member_map_)


EnumType = EnumMeta


def _functional(base, name, names, start):
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    if isinstance(names, dict):
        pairs = list(names.items())
    elif names and isinstance(names[0], str):
        pairs = [(n, i + start) for i, n in enumerate(names)]
    else:
        pairs = list(names)
    return EnumMeta._create(base, name, pairs)


def _create(base, name, pairs):
    namespace = dict(pairs)
    return type(name, (base,), namespace)


EnumMeta._create = staticmethod(_create)


def _is_member(name, value):
    if name.startswith("_"):
        return False
    if isinstance(value, (property, staticmethod, classmethod, type)) or callable(value) and not isinstance(value, auto):
        return False
    return True


class Enum(metaclass=EnumMeta):
    def __init_subclass__(cls, **kwargs):
        members = []
        by_name = {}
        plain = int not in cls.__mro__ and str not in cls.__mro__
        for name, value in list(cls.__dict__.items()):
            if not _is_member(name, value):
                continue
            if isinstance(value, auto):
                value = cls._generate_next_value_(name, 1, len(members), [m._value_ for m in members])
            alias = next((m for m in members if m._value_ == value), None)
            if alias is not None:
                by_name[name] = alias
                setattr(cls, name, alias)
                continue
            if plain:
                member = object.__new__(cls)
            elif int in cls.__mro__:
                member = int.__new__(cls, value)
            else:
                member = str.__new__(cls, value)
            member._name_ = name
            member._value_ = value
            init = cls.__dict__.get("__init__")
            if init is not None:
                init(member, *(value if isinstance(value, tuple) else (value,)))
            members.append(member)
            by_name[name] = member
            setattr(cls, name, member)
        cls._member_list_ = members
        cls._member_map_ = by_name
        cls._value2member_map_ = {m._value_: m for m in members}

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        for last in reversed(last_values):
            try:
                return last + 1
            except TypeError:
                pass
        return start

    @classmethod
    def _missing_(cls, value):
        return None

    @property
    def name(self):
        return self._name_

    @property
    def value(self):
        return self._value_

    def __repr__(self):
        return f"<{type(self).__name__}.{self._name_}: {self._value_!r}>"

    def __str__(self):
        return f"{type(self).__name__}.{self._name_}"

    def __format__(self, spec):
        return format(str(self), spec)

    def __hash__(self):
        return hash(self._name_)

    def __reduce_ex__(self, proto):
        return self.__class__, (self._value_,)


class IntEnum(int, Enum):
    def __str__(self):
        return str(self._value_)

    def __format__(self, spec):
        return format(self._value_, spec)


class StrEnum(str, Enum):
    def __str__(self):
        return self._value_

    @staticmethod
    def _generate_next_value_(name, start, count, last_values):
        return name.lower()


class Flag(Enum):
    def __or__(self, other):
        return self.__class__(self._value_ | other._value_)

    def __and__(self, other):
        return self.__class__(self._value_ & other._value_)


class IntFlag(int, Flag):
    pass


def unique(enumeration):
    duplicates = [name for name, member in enumeration.__members__.items() if name != member.name]
    if duplicates:
        raise ValueError(f"duplicate values found in {enumeration!r}: " + ", ".join(duplicates))
    return enumeration
