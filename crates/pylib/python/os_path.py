"""os.path: path arithmetic (POSIX rules); no path exists in the playground."""

sep = "/"


def join(a, *p):
    path = a
    for b in p:
        if b.startswith("/"):
            path = b
        elif not path or path.endswith("/"):
            path += b
        else:
            path += "/" + b
    return path


def split(p):
    i = p.rfind("/") + 1
    head, tail = p[:i], p[i:]
    if head and head != "/" * len(head):
        head = head.rstrip("/")
    return head, tail


def basename(p):
    return p[p.rfind("/") + 1:]


def dirname(p):
    return split(p)[0]


def splitext(p):
    dot = p.rfind(".")
    slash = p.rfind("/")
    if dot > slash + 1 and p[slash + 1:dot].strip("."):
        return p[:dot], p[dot:]
    return p, ""


def exists(path):
    return False


def isfile(path):
    return False


def isdir(path):
    return False


def isabs(s):
    return s.startswith("/")


def abspath(path):
    return path if path.startswith("/") else join("/", path)


def expanduser(path):
    return path


def normpath(path):
    parts = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and parts and parts[-1] != "..":
            parts.pop()
        else:
            parts.append(part)
    result = "/".join(parts)
    return ("/" + result if path.startswith("/") else result) or "."
