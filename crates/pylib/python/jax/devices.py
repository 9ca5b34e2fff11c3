"""jax.devices() and friends: the emulated slice's chips, as JAX on a TPU host shows them (one
device per chip, numbered x fastest, all on process 0)."""

from _playground import device_kind, device_coords


class TpuDevice:
    def __init__(self, id, coords):
        self.id = id
        self.process_index = 0
        self.host_id = 0
        self.coords = coords
        self.core_on_chip = 0
        self.platform = "tpu"
        self.device_kind = device_kind()
        self.client = None

    def __repr__(self):
        x, y, z = self.coords
        return f"TpuDevice(id={self.id}, process_index=0, coords=({x},{y},{z}), core_on_chip=0)"

    def __str__(self):
        x, y, z = self.coords
        return f"TPU_{self.id}(process=0,({x},{y},{z},0))"


_DEVICES = [TpuDevice(i, c) for i, c in enumerate(device_coords())]


def _check_backend(backend):
    if backend is not None and backend not in ("tpu", "TPU"):
        raise RuntimeError(f"Unknown backend {backend}. Available: ['tpu']")


def devices(backend=None):
    _check_backend(backend)
    return list(_DEVICES)


def local_devices(process_index=None, backend=None, host_id=None):
    _check_backend(backend)
    return list(_DEVICES)


def device_count(backend=None):
    _check_backend(backend)
    return len(_DEVICES)


def local_device_count(backend=None):
    _check_backend(backend)
    return len(_DEVICES)


def process_index(backend=None):
    return 0


def process_count(backend=None):
    return 1


def default_backend():
    return "tpu"


def device_get(x):
    """The arrays in a pytree copied to the host, as NumPy arrays; other leaves as they are."""
    import jax
    import numpy as np

    return jax.tree_util.tree_map(lambda v: np.asarray(v) if isinstance(v, jax.Array) else v, x)


def device_of(x):
    """An array's `.device`: the one device."""
    return _DEVICES[0]


class SingleDeviceSharding:
    """An array's `.sharding` on the one device: all of it in one place."""

    def __init__(self, device, *, memory_kind="device"):
        self.device = device
        self.memory_kind = memory_kind
        self.device_set = {device}
        self.num_devices = 1
        self.is_fully_replicated = True
        self.is_fully_addressable = True

    def __repr__(self):
        return f"SingleDeviceSharding(device={self.device!r}, memory_kind={self.memory_kind})"

    def __eq__(self, other):
        return isinstance(other, SingleDeviceSharding) and other.device is self.device

    def __hash__(self):
        return hash(("SingleDeviceSharding", self.device.id))


_SHARDING = SingleDeviceSharding(_DEVICES[0])


def sharding_of(x):
    """An array's `.sharding`: where `jax.device_put` or a jitted call placed it, else the
    first device holds it whole."""
    from _playground import placement

    return placement(x) or _SHARDING


def devices_of(x):
    """An array's `.devices()`: the set of devices holding a part of it."""
    return set(sharding_of(x).device_set)


def device_put(x, device=None, *, src=None, donate=False, may_alias=None):
    """`x`'s arrays on `device`: laid out over a mesh for a `NamedSharding` (one for all, or a
    pytree of them matching `x`); otherwise on the one device (a Python number or list
    becomes an array)."""
    import jax
    import jax.numpy as jnp
    from jax.sharding import NamedSharding
    from _playground import place

    def one(leaf, where):
        leaf = jnp.asarray(leaf)
        if isinstance(where, NamedSharding):
            where._check(leaf.shape)
            return place(leaf, where, *where._native())
        return leaf

    if device is None or isinstance(device, (NamedSharding, TpuDevice, SingleDeviceSharding)):
        return jax.tree_util.tree_map(lambda leaf: one(leaf, device), x)
    return jax.tree_util.tree_map(one, x, device)
