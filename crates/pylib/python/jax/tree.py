"""jax.tree_util's key paths: the key classes, keystr, and the *_with_path functions, over
the interpreter's tree walk (`_playground.tree_paths`, which runs the script's flatten
functions and gives each leaf's steps as (kind, value) pairs)."""

import jax
from _playground import tree_paths


class _Key:
    """What the key classes share: one named field, shown by repr, compared and hashed."""

    _field = ""

    def _value(self):
        return getattr(self, self._field)

    def __repr__(self):
        return f"{type(self).__name__}({self._field}={self._value()!r})"

    def __eq__(self, other):
        return type(other) is type(self) and other._value() == self._value()

    def __hash__(self):
        return hash((type(self).__name__, self._value()))


class SequenceKey(_Key):
    _field = "idx"

    def __init__(self, idx):
        self.idx = idx

    def __str__(self):
        return f"[{self.idx!r}]"


class DictKey(_Key):
    _field = "key"

    def __init__(self, key):
        self.key = key

    def __str__(self):
        return f"[{self.key!r}]"


class GetAttrKey(_Key):
    _field = "name"

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f".{self.name}"


class FlattenedIndexKey(_Key):
    _field = "key"

    def __init__(self, key):
        self.key = key

    def __str__(self):
        return f"[<flat index {self.key}>]"


_KINDS = {"sequence": SequenceKey, "dict": DictKey, "attr": GetAttrKey, "flattened": FlattenedIndexKey}


def _path(steps):
    return tuple(value if kind == "given" else _KINDS[kind](value) for kind, value in steps)


def _simple(key):
    return str(key._value()) if isinstance(key, _Key) else str(key)


def keystr(keys, *, simple=False, separator=None):
    return ("" if separator is None else separator).join(_simple(k) if simple else str(k) for k in keys)


def tree_flatten_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    entries, treedef = tree_paths(tree, is_leaf)
    return [(_path(steps), leaf) for steps, leaf in entries], treedef


def tree_leaves_with_path(tree, is_leaf=None, is_leaf_takes_path=False):
    return tree_flatten_with_path(tree, is_leaf)[0]


def tree_map_with_path(f, tree, *rest, is_leaf=None, is_leaf_takes_path=False):
    entries, treedef = tree_paths(tree, is_leaf, *rest)
    return jax.tree_util.tree_unflatten(treedef, [f(_path(e[0]), *e[1:]) for e in entries])


def tree_transpose(outer_treedef, inner_treedef, pytree_to_transpose):
    """A tree of `outer_treedef` whose leaves are trees of `inner_treedef` turned into a tree
    of `inner_treedef` of trees of `outer_treedef`."""
    flat, treedef = jax.tree_util.tree_flatten(pytree_to_transpose)
    if inner_treedef is None:
        # The subtree at the outer structure's first leaf, as JAX's flatten_up_to finds it.
        outer = jax.tree_util.tree_unflatten(outer_treedef, [0] * outer_treedef.num_leaves)
        inner_treedef = jax.tree_util.tree_structure(tree_paths(outer, None, pytree_to_transpose)[0][0][2])
    inner_size = inner_treedef.num_leaves
    outer_size = outer_treedef.num_leaves
    if treedef.num_leaves != inner_size * outer_size:
        raise TypeError(f"Mismatch\n{treedef}\n != \n{outer_treedef} of {inner_treedef}")
    flat = iter(flat)
    rows = [[next(flat) for _ in range(inner_size)] for _ in range(outer_size)]
    subtrees = [jax.tree_util.tree_unflatten(outer_treedef, list(column)) for column in zip(*rows)]
    return jax.tree_util.tree_unflatten(inner_treedef, subtrees)


transpose = tree_transpose
flatten_with_path = tree_flatten_with_path
leaves_with_path = tree_leaves_with_path
map_with_path = tree_map_with_path
