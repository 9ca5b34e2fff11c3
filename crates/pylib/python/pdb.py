"""pdb: the playground has no interactive debugger (a script runs to its end in one go, in a
page or in CI). Importing the module works, so that a program which only defines a debugging
hook runs; entering the debugger is NotImplementedError, as CPython's is impossible here."""


def _no_debugger(name):
    raise NotImplementedError(
        f"pdb.{name} is not supported by the playground: it has no interactive debugger "
        "(print the values you want to inspect, or use jax.debug.print inside jit)"
    )


def set_trace(*args, **kwargs):
    _no_debugger("set_trace")


def post_mortem(*args, **kwargs):
    _no_debugger("post_mortem")


def pm():
    _no_debugger("pm")


def run(*args, **kwargs):
    _no_debugger("run")


def runcall(*args, **kwargs):
    _no_debugger("runcall")
