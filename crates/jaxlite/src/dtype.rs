//! Element types and JAX's type promotion for the dtypes the playground supports.

use std::fmt;

/// An array element type. bf16 is stored with `half::bf16`; everything the emulator moves is a
/// 32-bit word, so bf16 values travel widened or packed as the consumer needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    /// The words of `jax.random`: raw keys (`uint32[..., 2]`) and random bits.
    U32,
    I32,
    /// NumPy's default integer, on the host only (the TPU has no 64-bit words; JAX without
    /// x64 narrows it to int32 at the boundary).
    I64,
    BF16,
    F32,
    /// NumPy's default float, on the host only (narrowed to float32 at the boundary).
    F64,
    /// A typed key of the Threefry generator (`key<fry>`): one element is a whole key, two
    /// uint32 words. Only the `random_*` primitives take or make these; `random_wrap` and
    /// `random_unwrap` convert from and to raw `uint32[..., 2]` keys.
    Key,
}

impl DType {
    /// NumPy's name, as `x.dtype` prints it.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U32 => "uint32",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
            DType::Key => "key<fry>",
        }
    }

    /// The short name a Jaxpr uses (`f32[3,4]`).
    pub fn short_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U32 => "u32",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::Key => "key<fry>",
        }
    }

    /// A float type's exponent and fraction widths in bits (what `reduce_precision` to the
    /// type itself keeps); `None` for the others.
    pub fn float_bits(self) -> Option<(u32, u32)> {
        match self {
            DType::BF16 => Some((8, 7)),
            DType::F32 => Some((8, 23)),
            DType::F64 => Some((11, 52)),
            _ => None,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::BF16 | DType::F32 | DType::F64)
    }

    /// The integer dtypes (what may index an array).
    pub fn is_integer(self) -> bool {
        matches!(self, DType::I32 | DType::U32 | DType::I64)
    }

    /// Only the host has it: NumPy's 64-bit types.
    pub fn is_host_only(self) -> bool {
        matches!(self, DType::I64 | DType::F64)
    }

    /// What a host dtype becomes on the device, as JAX converts a NumPy array without x64.
    pub fn on_device(self) -> DType {
        match self {
            DType::I64 => DType::I32,
            DType::F64 => DType::F32,
            other => other,
        }
    }

    pub fn size_bytes(self) -> usize {
        match self {
            DType::Bool => 1,
            DType::BF16 => 2,
            DType::U32 | DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 | DType::Key => 8,
        }
    }

    pub fn from_name(name: &str) -> Option<DType> {
        Some(match name {
            "bool" | "bool_" => DType::Bool,
            "uint32" | "u32" => DType::U32,
            "int32" | "i32" => DType::I32,
            "bfloat16" | "bf16" => DType::BF16,
            "float32" | "f32" => DType::F32,
            "int64" | "i64" => DType::I64,
            "float64" | "f64" => DType::F64,
            _ => return None,
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The dtype of a binary operation's result under JAX's promotion lattice, restricted to our
/// dtypes. A weakly typed operand (a Python scalar) defers to the other operand's dtype within
/// its kind, as in JAX: `bf16_array * 2.0` stays bfloat16, `int_array * 2.0` becomes float32.
/// uint32 meeting int32 is int32 (JAX's int64, narrowed without x64). Keys do not promote:
/// `Primitive::abstract_eval` refuses them to every operation but the random ones.
pub fn promote(a: DType, a_weak: bool, b: DType, b_weak: bool) -> (DType, bool) {
    promote_with(a, a_weak, b, b_weak, defer, |lo, hi| match (lo, hi) {
        (DType::Bool, other) => other,
        (DType::I32, other) => other,
        (DType::BF16, DType::F32) => DType::F32,
        _ => hi,
    })
}

/// NumPy 2's promotion (NEP 50) on the host: a Python scalar defers to the array within its
/// kind as in JAX (`float32_array * 2.0` is float32), but a Python float meeting integers is
/// float64, and mixed strong types widen until both fit: int32 with float32 is float64,
/// uint32 with int32 is int64.
pub fn promote_numpy(a: DType, a_weak: bool, b: DType, b_weak: bool) -> (DType, bool) {
    promote_with(a, a_weak, b, b_weak, defer_numpy, |lo, hi| match (lo, hi) {
        (DType::Bool, other) => other,
        (DType::U32 | DType::I32, DType::I32 | DType::I64) => DType::I64,
        (DType::U32 | DType::I32 | DType::I64, DType::BF16 | DType::F32 | DType::F64) => DType::F64,
        (DType::BF16, DType::F32) => DType::F32,
        _ => hi,
    })
}

/// What JAX's and NumPy's promotions share: equal types stay, a weak operand defers to a
/// strong one (`defer`), two strong ones (or two weak) meet in the lattice (`join`, given the
/// lower and the higher of the two in `DType`'s order).
fn promote_with(
    a: DType,
    a_weak: bool,
    b: DType,
    b_weak: bool,
    defer: fn(DType, DType) -> DType,
    join: fn(DType, DType) -> DType,
) -> (DType, bool) {
    if a == b {
        return (a, a_weak && b_weak);
    }
    match (a_weak, b_weak) {
        (true, false) => (defer(b, a), false),
        (false, true) => (defer(a, b), false),
        _ => {
            let (lo, hi) = if a < b { (a, b) } else { (b, a) };
            (join(lo, hi), a_weak && b_weak)
        }
    }
}

/// `strong` combined with a weak scalar of dtype `weak`, as NumPy combines them.
fn defer_numpy(strong: DType, weak: DType) -> DType {
    if weak.is_float() && !strong.is_float() {
        DType::F64
    } else if !weak.is_float() && weak != DType::Bool && strong == DType::Bool {
        DType::I64
    } else {
        strong
    }
}

/// `strong` combined with a weak scalar of dtype `weak`.
fn defer(strong: DType, weak: DType) -> DType {
    if weak.is_float() && !strong.is_float() {
        DType::F32
    } else if weak == DType::I32 && strong == DType::Bool {
        DType::I32
    } else {
        strong
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weak_scalars_defer_to_arrays() {
        assert_eq!(promote(DType::BF16, false, DType::F32, true), (DType::BF16, false));
        assert_eq!(promote(DType::I32, false, DType::F32, true), (DType::F32, false));
        assert_eq!(promote(DType::F32, true, DType::I32, false), (DType::F32, false));
        assert_eq!(promote(DType::Bool, false, DType::I32, true), (DType::I32, false));
        assert_eq!(promote(DType::U32, false, DType::I32, true), (DType::U32, false));
        assert_eq!(promote(DType::U32, false, DType::F32, true), (DType::F32, false));
    }

    #[test]
    fn strong_types_widen() {
        assert_eq!(promote(DType::BF16, false, DType::F32, false), (DType::F32, false));
        assert_eq!(promote(DType::I32, false, DType::BF16, false), (DType::BF16, false));
        assert_eq!(promote(DType::F32, true, DType::F32, true), (DType::F32, true));
        assert_eq!(promote(DType::U32, false, DType::I32, false), (DType::I32, false));
        assert_eq!(promote(DType::Bool, false, DType::U32, false), (DType::U32, false));
    }

    #[test]
    fn numpy_widens_where_jax_narrows() {
        assert_eq!(promote_numpy(DType::I32, false, DType::F32, false), (DType::F64, false));
        assert_eq!(promote_numpy(DType::I64, false, DType::F32, false), (DType::F64, false));
        assert_eq!(promote_numpy(DType::U32, false, DType::I32, false), (DType::I64, false));
        assert_eq!(promote_numpy(DType::F32, false, DType::F64, false), (DType::F64, false));
        assert_eq!(promote_numpy(DType::F32, false, DType::F64, true), (DType::F32, false));
        assert_eq!(promote_numpy(DType::I64, false, DType::F64, true), (DType::F64, false));
        assert_eq!(promote_numpy(DType::I32, false, DType::I64, true), (DType::I32, false));
        assert_eq!(promote_numpy(DType::Bool, false, DType::I64, true), (DType::I64, false));
    }
}
