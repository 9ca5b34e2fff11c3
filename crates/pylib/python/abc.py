"""abc: abstract base classes."""


def abstractmethod(funcobj):
    funcobj.__isabstractmethod__ = True
    return funcobj


class ABCMeta(type):
    def __call__(cls, *args, **kwargs):
        abstract = sorted(
            name
            for klass in cls.__mro__
            for name, value in klass.__dict__.items()
            if getattr(value, "__isabstractmethod__", False) and _still_abstract(cls, name)
        )
        if abstract:
            names = ", ".join(abstract)
            plural = "s" if len(abstract) > 1 else ""
            raise TypeError(
                f"Can't instantiate abstract class {cls.__name__} with abstract method{plural} {names}"
            )
        return super().__call__(*args, **kwargs)

    def register(cls, subclass):
        return subclass


def _still_abstract(cls, name):
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return getattr(klass.__dict__[name], "__isabstractmethod__", False)
    return False


class ABC(metaclass=ABCMeta):
    __slots__ = ()


def abstractproperty(func):
    return property(abstractmethod(func))


def abstractclassmethod(func):
    return classmethod(abstractmethod(func))


def abstractstaticmethod(func):
    return staticmethod(abstractmethod(func))
