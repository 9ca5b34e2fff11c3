"""inspect: what kind of object a value is (source code is not available in the playground)."""

import types


def isclass(obj):
    return isinstance(obj, type)


def isfunction(obj):
    return isinstance(obj, types.FunctionType)


def ismethod(obj):
    return isinstance(obj, types.MethodType)


def isgenerator(obj):
    return isinstance(obj, types.GeneratorType)


def isbuiltin(obj):
    return callable(obj) and not isfunction(obj) and not ismethod(obj) and not isclass(obj)


def isroutine(obj):
    return isfunction(obj) or ismethod(obj) or isbuiltin(obj)


def getsource(obj):
    raise OSError("could not get source code (the playground does not keep it)")


def signature(obj):
    raise NotImplementedError("inspect.signature is not supported by the playground yet")
