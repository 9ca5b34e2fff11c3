# Exceptions: try/except/else/finally, raise from, custom types, assert.


class AppError(Exception):
    def __init__(self, code, msg="app failed"):
        super().__init__(msg)
        self.code = code


class NetError(AppError):
    pass


def risky(n):
    if n == 0:
        raise ValueError("zero")
    if n == 1:
        raise NetError(404, "not found")
    if n == 2:
        return 1 / 0
    if n == 3:
        return [][1]
    if n == 4:
        return {}["k"]
    if n == 5:
        return int("x")
    if n == 6:
        return None.foo
    return n


for n in range(8):
    try:
        r = risky(n)
    except (ValueError, ZeroDivisionError) as e:
        print(n, "value/zero:", type(e).__name__, e, e.args)
    except AppError as e:
        print(n, "app:", e.code, str(e), repr(e), isinstance(e, Exception))
    except LookupError as e:
        print(n, "lookup:", type(e).__name__, repr(e))
    except Exception as e:
        print(n, "other:", type(e).__name__, e)
    else:
        print(n, "ok", r)
    finally:
        print(n, "finally")


def order():
    try:
        return "try"
    finally:
        print("finally runs before return")


print(order())


def nested():
    try:
        try:
            raise KeyError("inner")
        except KeyError as e:
            raise RuntimeError("outer") from e
    except RuntimeError as e:
        print(e, repr(e.__cause__))
    try:
        try:
            raise KeyError("a")
        finally:
            print("cleanup")
    except KeyError:
        print("re-raised through finally")
    try:
        try:
            1 / 0
        except ZeroDivisionError:
            raise
    except ArithmeticError as e:
        print("bare raise:", e)


nested()

for i in range(3):
    try:
        if i == 1:
            continue
        print("body", i)
    finally:
        print("finally", i)

try:
    assert 1 + 1 == 3, "math is broken"
except AssertionError as e:
    print("assert:", e)
try:
    assert False
except AssertionError as e:
    print("assert without message:", repr(e))

e = ValueError("a", 2)
print(e.args, str(e), repr(e), str(ValueError()), repr(KeyError("k")), str(KeyError("k")))
print(issubclass(KeyError, LookupError), issubclass(ZeroDivisionError, ArithmeticError))
print(isinstance(StopIteration(), Exception), BaseException, Exception.__mro__)

try:
    raise TypeError
except TypeError as e:
    print("class raised:", repr(e))

x = 5
try:
    del x
    print(x)
except NameError as e:
    print(e)


def f():
    return undefined_name


try:
    f()
except NameError as e:
    print(e)

try:
    "a" + 1
except TypeError as e:
    print(e)
try:
    [1, 2].index(5)
except ValueError as e:
    print(e)
try:
    (1, 2)[5]
except IndexError as e:
    print(e)
try:
    int(3.5) + "x"
except TypeError as e:
    print(e)
raise AppError(7, "final failure")
