"""jax.sharding: meshes of the emulated slice's devices, partition specs and named shardings,
as JAX 0.10 prints them. `jax.shard_map` runs a function on each device of a mesh
(`_playground.shard_map`); these objects describe where the blocks go."""

from jax._devices import devices as _devices


class PartitionSpec:
    """How an array's axes are split over mesh axes: one entry per array axis, a mesh axis
    name, a tuple of names (split over all of them, the first major), or None (not split)."""

    def __init__(self, *parts):
        self._parts = tuple(tuple(p) if isinstance(p, list) else p for p in parts)

    def __iter__(self):
        return iter(self._parts)

    def __len__(self):
        return len(self._parts)

    def __getitem__(self, i):
        return self._parts[i]

    def __eq__(self, other):
        return isinstance(other, PartitionSpec) and self._parts == other._parts

    def __hash__(self):
        return hash(("PartitionSpec", self._parts))

    def __repr__(self):
        def one(p):
            if isinstance(p, tuple):
                inner = ", ".join(repr(q) for q in p)
                return f"({inner},)" if len(p) == 1 else f"({inner})"
            return repr(p)

        items = ", ".join(one(p) for p in self._parts)
        if len(self._parts) == 1:
            items += ","
        return f"P({items})"

    __str__ = __repr__


P = PartitionSpec


class _Devices:
    """A mesh's devices as an array of its shape (`mesh.devices.shape`, indexing, `.flat`)."""

    def __init__(self, flat, shape):
        self.flat = flat
        self.shape = tuple(shape)
        self.size = len(flat)
        self.ndim = len(shape)

    def tolist(self):
        def build(offset, dims):
            if not dims:
                return self.flat[offset]
            step = 1
            for d in dims[1:]:
                step *= d
            return [build(offset + i * step, dims[1:]) for i in range(dims[0])]

        return build(0, list(self.shape))

    def __repr__(self):
        return repr(self.tolist())

    def reshape(self, *shape):
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        shape = list(shape)
        if -1 in shape:
            known = 1
            for d in shape:
                if d != -1:
                    known *= d
            shape[shape.index(-1)] = self.size // known
        n = 1
        for d in shape:
            n *= d
        if n != self.size:
            raise ValueError(f"cannot reshape array of size {self.size} into shape {tuple(shape)}")
        return _Devices(self.flat, shape)

    def __len__(self):
        return self.shape[0]

    def __iter__(self):
        return iter(self.tolist())


def _device_array(devices):
    """`np.array(devices)`: the devices as an array of their nesting's shape."""
    flat, shape = _flatten_devices(devices)
    return _Devices(flat, shape)


def _flatten_devices(devices):
    """A (nested) list or array of devices: its devices in row-major order and its shape."""
    if isinstance(devices, _Devices):
        return list(devices.flat), list(devices.shape)
    if hasattr(devices, "tolist") and not isinstance(devices, (list, tuple)):
        devices = devices.tolist()
    if isinstance(devices, (list, tuple)):
        if len(devices) == 0:
            return [], [0]
        parts = [_flatten_devices(d) for d in devices]
        shape = parts[0][1]
        flat = []
        for f, s in parts:
            if s != shape:
                raise ValueError("a mesh's devices must form a rectangular array")
            flat.extend(f)
        return flat, [len(devices)] + shape
    return [devices], []


class Mesh:
    def __init__(self, devices, axis_names, axis_types=None):
        flat, shape = _flatten_devices(devices)
        if isinstance(axis_names, str):
            axis_names = (axis_names,)
        axis_names = tuple(axis_names)
        if len(axis_names) != len(shape):
            raise ValueError(
                f"Mesh requires the ndim of its first argument (`devices`) to equal the length of its "
                f"second argument (`axis_names`), but got devices.ndim == {len(shape)} and "
                f"len(axis_names) == {len(axis_names)}."
            )
        self.devices = _Devices(flat, shape)
        self.axis_names = axis_names
        self.axis_sizes = tuple(shape)
        self.axis_types = axis_types if axis_types is not None else ("Auto",) * len(shape)
        self.size = len(flat)
        self.device_ids = [d.id for d in flat]

    @property
    def shape(self):
        from collections import OrderedDict

        return OrderedDict(zip(self.axis_names, self.axis_sizes))

    def _types(self):
        return "(" + ", ".join(self.axis_types) + ("," if len(self.axis_types) == 1 else "") + ")"

    def _short(self):
        sizes = ", ".join(f"'{n}': {s}" for n, s in zip(self.axis_names, self.axis_sizes))
        return f"Mesh({sizes}, axis_types={self._types()})"

    def __repr__(self):
        sizes = ", ".join(str(s) for s in self.axis_sizes)
        names = ", ".join(repr(n) for n in self.axis_names)
        if len(self.axis_sizes) == 1:
            sizes += ","
            names += ","
        return f"Mesh(axis_sizes=({sizes}), axis_names=({names}), axis_types={self._types()})"

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def make_mesh(axis_shapes, axis_names, axis_types=None, *, devices=None):
    """A mesh of the first devices, in id order, with JAX 0.10's default Explicit axes."""
    n = 1
    for s in axis_shapes:
        n *= s
    available = list(devices) if devices is not None else _devices()
    if n > len(available):
        raise ValueError(
            f"Number of devices {len(available)} must be >= the product of mesh_shape {tuple(axis_shapes)}"
        )
    flat = available[:n]
    mesh = Mesh(_Devices(flat, axis_shapes), axis_names, axis_types or ("Explicit",) * len(axis_shapes))
    return mesh


class IndivisibleError(ValueError):
    """An array's axis does not split into the blocks its sharding asks for."""


class NamedSharding:
    def __init__(self, mesh, spec=None, *, memory_kind=None):
        if spec is None:
            spec = PartitionSpec()
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"NamedSharding's spec must be a PartitionSpec, got {spec!r}")
        self.mesh = mesh
        self.spec = spec
        self.memory_kind = memory_kind or "device"

    @property
    def device_set(self):
        return set(self.mesh.devices.flat)

    @property
    def addressable_devices(self):
        return self.device_set

    @property
    def num_devices(self):
        return self.mesh.size

    @property
    def is_fully_addressable(self):
        return True

    @property
    def is_fully_replicated(self):
        return all(p is None for p in self.spec)

    def _split(self, axis):
        """The mesh axes array axis `axis` is split over, the first major."""
        part = self.spec[axis] if axis < len(self.spec) else None
        return [n for n in (part if isinstance(part, tuple) else (part,)) if n is not None]

    def _blocks(self, rank):
        """How many blocks each of an array's `rank` axes is cut into."""
        sizes = dict(zip(self.mesh.axis_names, self.mesh.axis_sizes))
        counts = []
        for axis in range(rank):
            count = 1
            for name in self._split(axis):
                count *= sizes[name]
            counts.append(count)
        return counts

    def _check(self, shape):
        """JAX's IndivisibleError for an array this sharding cannot cut into equal blocks."""
        factors = self._blocks(len(shape))
        for axis, (n, count) in enumerate(zip(shape, factors)):
            if n % count:
                raise IndivisibleError(
                    f"Sharding {self!r} implies that array axis {axis} is partitioned {count} times, but the "
                    f"dimension size is {n} (full shape: {tuple(shape)}, per-dimension tiling factors: "
                    f"{factors} should evenly divide the shape)"
                )

    def _native(self):
        """What the native side reads: (mesh, axis names, sizes, device ids, spec parts)."""
        return (self.mesh, self.mesh.axis_names, self.mesh.axis_sizes, self.mesh.device_ids, _parts(self.spec))

    def devices_indices_map(self, global_shape):
        """Each device's block of an array of `global_shape`: a tuple of slices."""
        sizes = dict(zip(self.mesh.axis_names, self.mesh.axis_sizes))
        names = self.mesh.axis_names
        counts = self._blocks(len(global_shape))
        out = {}
        for position, device in enumerate(self.mesh.devices.flat):
            coords = []
            rest = position
            for size in reversed(self.mesh.axis_sizes):
                coords.append(rest % size)
                rest //= size
            coords = dict(zip(names, reversed(coords)))
            index = []
            for axis, n in enumerate(global_shape):
                split = self._split(axis)
                if not split:
                    index.append(slice(None))
                    continue
                block = 0
                for name in split:
                    block = block * sizes[name] + coords[name]
                length = n // counts[axis]
                index.append(slice(block * length, (block + 1) * length))
            out[device] = tuple(index)
        return out

    def __repr__(self):
        return f"NamedSharding(mesh={self.mesh._short()}, spec={self.spec!r}, memory_kind={self.memory_kind})"

    def __eq__(self, other):
        return isinstance(other, NamedSharding) and other.mesh is self.mesh and other.spec == self.spec

    def __hash__(self):
        return hash(("NamedSharding", id(self.mesh), self.spec))

    def shard_shape(self, global_shape):
        return tuple(n // c for n, c in zip(global_shape, self._blocks(len(global_shape))))


def _named(mesh, parts):
    """The sharding of a jitted call's result, as the partitioner laid it out."""
    return NamedSharding(mesh, PartitionSpec(*parts))


def _parts(spec):
    """A spec as the native side reads it: one entry per array axis, each None, a mesh axis
    name or a tuple of them."""
    if spec is None:
        return ()
    if not isinstance(spec, PartitionSpec):
        raise TypeError(f"shard_map specs must be PartitionSpecs (P(...)) or None, got {spec!r}")
    return tuple(spec)


def _broadcast(spec, tree, out, where):
    """`spec`, a prefix of `tree` whose leaves are PartitionSpecs, as one spec per leaf of
    `tree`, in the order `jax.tree_util.tree_leaves` gives them."""
    import jax

    if spec is None or isinstance(spec, PartitionSpec):
        out.extend([_parts(spec)] * len(jax.tree_util.tree_leaves(tree)))
    elif isinstance(spec, (tuple, list)) and isinstance(tree, (tuple, list)) and len(spec) == len(tree):
        for s, t in zip(spec, tree):
            _broadcast(s, t, out, where)
    elif isinstance(spec, dict) and isinstance(tree, dict) and sorted(spec) == sorted(tree):
        for k in sorted(tree):
            _broadcast(spec[k], tree[k], out, where)
    else:
        raise ValueError(f"shard_map {where} specs {spec!r} must be a tree prefix of the {where}s' structure")


def shard_map(f=None, /, *, out_specs, in_specs=None, mesh=None, axis_names=None, check_vma=True, check_rep=None):
    """`jax.shard_map`: `f` runs on every device of `mesh` on its blocks of the arguments (as
    `in_specs` split them), collectives over the mesh's axis names between them; its results'
    blocks are joined as `out_specs` say."""
    if f is None:
        return lambda g: shard_map(
            g, out_specs=out_specs, in_specs=in_specs, mesh=mesh, axis_names=axis_names, check_vma=check_vma
        )
    if mesh is None:
        raise ValueError("shard_map needs mesh= (the playground has no mesh set by jax.set_mesh)")
    if in_specs is None:
        raise NotImplementedError("shard_map without in_specs is not supported by the playground yet")
    from _playground import shard_map_run
    import jax

    name = getattr(f, "__name__", "f")

    def mapped(*args):
        leaves, treedef = jax.tree_util.tree_flatten(args)
        parts = []
        _broadcast(in_specs if len(args) != 1 or isinstance(in_specs, tuple) else (in_specs,), args, parts, "in")

        def call(*flat):
            return f(*jax.tree_util.tree_unflatten(treedef, list(flat)))

        def out_parts(out):
            found = []
            _broadcast(out_specs, out, found, "out")
            return found

        return shard_map_run(
            call, f"shard_map_{name}", mesh.axis_names, mesh.axis_sizes, mesh.device_ids, leaves, parts, out_parts
        )

    mapped.__name__ = name
    return mapped


def with_sharding_constraint(x, shardings):
    """`jax.lax.with_sharding_constraint`: each array of `x` laid out as its sharding says
    (one sharding for all, or a pytree of them matching `x`)."""
    import jax
    from _playground import constrain

    def one(leaf, sharding):
        if isinstance(sharding, PartitionSpec):
            raise ValueError(
                "with_sharding_constraint with a bare PartitionSpec needs a mesh set by jax.set_mesh, "
                "which the playground does not have yet: pass a NamedSharding"
            )
        if not isinstance(sharding, NamedSharding):
            return leaf
        return constrain(leaf, sharding.mesh._short(), sharding, *sharding._native())

    if isinstance(shardings, (NamedSharding, PartitionSpec)):
        return jax.tree_util.tree_map(lambda leaf: one(leaf, shardings), x)
    return jax.tree_util.tree_map(one, x, shardings)


def create_device_mesh(mesh_shape, devices=None, *, contiguous_submeshes=False, allow_split_physical_axes=False):
    """`jax.experimental.mesh_utils.create_device_mesh`: the devices in id order, in the mesh's
    shape. (On a real TPU JAX orders them along the torus's rings; the emulated slice keeps
    the ids' order.)"""
    available = list(devices) if devices is not None else _devices()
    n = 1
    for s in mesh_shape:  # an int is JAX's TypeError too: 'int' object is not iterable
        n *= s
    if n != len(available):
        raise ValueError(f"Number of devices {len(available)} must equal the product of mesh_shape {tuple(mesh_shape)}")
    return _Devices(available, mesh_shape)


def _device_label(device):
    return device.platform.upper()


def visualize_sharding(shape, sharding, *, use_color=True, scale=1.0, min_width=9, max_width=80, color_map=None):
    """`jax.debug.visualize_sharding`: which devices hold which block of a 1-D or 2-D array,
    drawn as JAX draws it with `rich` when the output is not a terminal (no colours): a box
    per block, sized by the block's share of the array, labelled with its devices."""
    shape = tuple(shape)
    if len(shape) > 2 or len(shape) < 1:
        raise ValueError("`visualize_sharding` only works for shapes with 1 and 2 dimensions.")
    base_height = int(10 * scale)
    aspect_ratio = (shape[1] if len(shape) == 2 else 1) / shape[0]
    base_width = int(base_height * aspect_ratio)
    height_to_width_ratio = 2.5
    indices = _indices_map(sharding, shape)
    kind = _device_label(next(iter(indices)))
    blocks, heights, widths = {}, {}, {}
    for device, slices in indices.items():
        slices = tuple(s if isinstance(s, slice) else slice(s, s + 1) for s in slices)
        chunk = tuple(_chunk_index(n, s) for n, s in zip(shape, slices))
        if len(slices) == 2:
            vert, horiz = slices
            vsize = (vert.stop - vert.start) if vert.stop is not None else shape[0]
            hsize = (horiz.stop - horiz.start) if horiz.stop is not None else shape[1]
            heights[chunk] = vsize / shape[0]
            widths[chunk] = hsize / shape[1]
        else:
            (horiz,) = slices
            hsize = (horiz.stop - horiz.start) if horiz.stop is not None else shape[0]
            chunk = (0,) + chunk
            heights[chunk] = None
            widths[chunk] = hsize / shape[0]
        blocks.setdefault(chunk, set()).add(device.id)
    rows = max(k[0] for k in blocks) + 1
    cols = max(k[1] for k in blocks) + 1
    # Each cell: its lines of text, padded as JAX pads them.
    cells = []
    for i in range(rows):
        row = []
        for j in range(cols):
            entry = f"{kind} " + ",".join(str(d) for d in sorted(blocks[i, j]))
            width = min(max(int(widths[i, j] * base_width * height_to_width_ratio), min_width), max_width)
            height = 1 if heights[i, j] is None else int(heights[i, j] * base_height)
            left, extra = divmod(width - len(entry) - 2, 2)
            right = left + extra
            top, extra = divmod(height - 2, 2)
            bottom = top + extra
            row.append((entry, max(top, 0), max(right, 0), max(bottom, 0), max(left, 0)))
        cells.append(row)
    # A table without a header, a line between rows: each column as wide as its widest cell,
    # each row as tall as its tallest; the text centred in what its padding leaves.
    col_widths = [max(c[4] + len(c[0]) + c[2] for c in (cells[i][j] for i in range(rows))) for j in range(cols)]
    lines = ["┌" + "┬".join("─" * w for w in col_widths) + "┐"]
    for i, row in enumerate(cells):
        height = max(c[1] + 1 + c[3] for c in row)
        rendered = []
        for j, (entry, top, right, bottom, left) in enumerate(row):
            inner = col_widths[j] - left - right
            text = _rich_center(entry, inner, left, right)
            column = [" " * col_widths[j]] * top + [text] + [" " * col_widths[j]] * (height - top - 1)
            rendered.append(column)
        for k in range(height):
            lines.append("│" + "│".join(r[k] for r in rendered) + "│")
        if i < rows - 1:
            lines.append("├" + "┼".join("─" * w for w in col_widths) + "┤")
    lines.append("└" + "┴".join("─" * w for w in col_widths) + "┘")
    print("\n".join(lines))


def _rich_center(entry, inner, left, right):
    """`entry` centred in `inner` columns between its paddings, as rich's Align centres (the
    odd column on the right)."""
    space = max(inner - len(entry), 0)
    before = space // 2
    return " " * left + " " * before + entry + " " * (space - before) + " " * right


def _chunk_index(n, s):
    if s.start is None or s.stop is None:
        return 0
    size = s.stop - s.start
    return s.start // size if size else 0


def _indices_map(sharding, shape):
    if hasattr(sharding, "devices_indices_map"):
        return sharding.devices_indices_map(shape)
    return {d: tuple(slice(None) for _ in shape) for d in sharding.device_set}


def visualize_array_sharding(arr, **kwargs):
    """`jax.debug.visualize_array_sharding`: `visualize_sharding` of the array's own sharding."""
    visualize_sharding(arr.shape, arr.sharding, **kwargs)


def inspect_array_sharding(value, *, callback):
    """`jax.debug.inspect_array_sharding` outside jit: `callback` with each array's sharding."""
    import jax

    jax.tree_util.tree_map(lambda x: callback(x.sharding), value)
