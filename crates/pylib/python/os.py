"""os: the little of it scripts use. The playground runs in the page, without files or an
environment, so paths exist nowhere and the environment is empty."""

import os.path as path

name = "posix"
sep = "/"
pathsep = ":"
linesep = "\n"
curdir = "."
pardir = ".."
environ = {}


def getenv(key, default=None):
    return environ.get(key, default)


def getcwd():
    return "/"


def cpu_count():
    return 1


def getpid():
    return 1


def listdir(path="."):
    raise FileNotFoundError(f"[Errno 2] No such file or directory: {path!r}")


def makedirs(name, mode=0o777, exist_ok=False):
    """Nothing is written in the playground, so there is nothing to make."""


def mkdir(path, mode=0o777):
    """As `makedirs`."""


def remove(path):
    raise FileNotFoundError(f"[Errno 2] No such file or directory: {path!r}")
