//! Concrete arrays on the host: what the user's program sees as values.

use crate::dtype::DType;
use half::bf16;

/// The abstract value of an array: what tracing and shape rules see.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Aval {
    pub shape: Vec<usize>,
    pub dtype: DType,
    /// A weakly typed value came from a Python scalar and defers to other operands' dtypes.
    pub weak_type: bool,
}

impl Aval {
    pub fn new(shape: Vec<usize>, dtype: DType) -> Aval {
        Aval { shape, dtype, weak_type: false }
    }

    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// Same shape and dtype (weak typing aside).
    pub fn same_type(&self, other: &Aval) -> bool {
        self.shape == other.shape && self.dtype == other.dtype
    }

    /// `f32[3,4]`, as a Jaxpr writes a type.
    pub fn short(&self) -> String {
        let dims: Vec<String> = self.shape.iter().map(|d| d.to_string()).collect();
        format!("{}[{}]", self.dtype.short_name(), dims.join(","))
    }
}

/// Element storage, one variant per dtype.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Bool(Vec<bool>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    BF16(Vec<bf16>),
    F32(Vec<f32>),
    /// NumPy's 64-bit types, on the host only.
    I64(Vec<i64>),
    F64(Vec<f64>),
    /// Typed keys, each its two words.
    Key(Vec<[u32; 2]>),
}

impl Data {
    pub fn len(&self) -> usize {
        match self {
            Data::Bool(v) => v.len(),
            Data::U32(v) => v.len(),
            Data::Key(v) => v.len(),
            Data::I32(v) => v.len(),
            Data::BF16(v) => v.len(),
            Data::F32(v) => v.len(),
            Data::I64(v) => v.len(),
            Data::F64(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Elements `range` (a run of rows, in row-major order).
    fn elements(&self, range: std::ops::Range<usize>) -> Data {
        match self {
            Data::Bool(v) => Data::Bool(v[range].to_vec()),
            Data::U32(v) => Data::U32(v[range].to_vec()),
            Data::Key(v) => Data::Key(v[range].to_vec()),
            Data::I32(v) => Data::I32(v[range].to_vec()),
            Data::BF16(v) => Data::BF16(v[range].to_vec()),
            Data::F32(v) => Data::F32(v[range].to_vec()),
            Data::I64(v) => Data::I64(v[range].to_vec()),
            Data::F64(v) => Data::F64(v[range].to_vec()),
        }
    }

    /// `other`'s elements after this one's (both of one dtype: `Array::stack` converts).
    fn extend(&mut self, other: &Data) {
        match (self, other) {
            (Data::Bool(a), Data::Bool(b)) => a.extend_from_slice(b),
            (Data::U32(a), Data::U32(b)) => a.extend_from_slice(b),
            (Data::Key(a), Data::Key(b)) => a.extend_from_slice(b),
            (Data::I32(a), Data::I32(b)) => a.extend_from_slice(b),
            (Data::BF16(a), Data::BF16(b)) => a.extend_from_slice(b),
            (Data::F32(a), Data::F32(b)) => a.extend_from_slice(b),
            (Data::I64(a), Data::I64(b)) => a.extend_from_slice(b),
            (Data::F64(a), Data::F64(b)) => a.extend_from_slice(b),
            _ => unreachable!("Array::stack converts every row to one dtype first"),
        }
    }

    /// No elements, of `dtype`.
    fn empty(dtype: DType) -> Data {
        match dtype {
            DType::Bool => Data::Bool(vec![]),
            DType::U32 => Data::U32(vec![]),
            DType::Key => Data::Key(vec![]),
            DType::I32 => Data::I32(vec![]),
            DType::BF16 => Data::BF16(vec![]),
            DType::F32 => Data::F32(vec![]),
            DType::I64 => Data::I64(vec![]),
            DType::F64 => Data::F64(vec![]),
        }
    }

    pub fn dtype(&self) -> DType {
        match self {
            Data::Bool(_) => DType::Bool,
            Data::U32(_) => DType::U32,
            Data::Key(_) => DType::Key,
            Data::I32(_) => DType::I32,
            Data::BF16(_) => DType::BF16,
            Data::F32(_) => DType::F32,
            Data::I64(_) => DType::I64,
            Data::F64(_) => DType::F64,
        }
    }
}

/// A concrete array: an abstract value plus its elements in row-major order.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub aval: Aval,
    pub data: Data,
}

impl Array {
    /// Builds an array; `data` must hold exactly `shape.product()` elements.
    pub fn new(shape: Vec<usize>, data: Data) -> Array {
        debug_assert_eq!(shape.iter().product::<usize>(), data.len());
        Array { aval: Aval::new(shape, data.dtype()), data }
    }

    pub fn from_f32(shape: Vec<usize>, values: Vec<f32>) -> Array {
        Array::new(shape, Data::F32(values))
    }

    /// A weakly typed scalar, the array form of a Python number.
    pub fn weak_scalar_f32(value: f32) -> Array {
        let mut a = Array::from_f32(vec![], vec![value]);
        a.aval.weak_type = true;
        a
    }

    pub fn weak_scalar_i32(value: i32) -> Array {
        let mut a = Array::new(vec![], Data::I32(vec![value]));
        a.aval.weak_type = true;
        a
    }

    pub fn shape(&self) -> &[usize] {
        &self.aval.shape
    }

    pub fn dtype(&self) -> DType {
        self.aval.dtype
    }

    pub fn size(&self) -> usize {
        self.data.len()
    }

    /// Every element widened to f64 (exact for all our dtypes), for formatting and comparison.
    /// A key is two words, no number: keys never reach here (`Primitive::abstract_eval` lets
    /// only the random primitives take them), and read as NaN if they did.
    pub fn to_f64_vec(&self) -> Vec<f64> {
        match &self.data {
            Data::Bool(v) => v.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect(),
            Data::U32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::Key(v) => vec![f64::NAN; v.len()],
            Data::I32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::BF16(v) => v.iter().map(|x| x.to_f64()).collect(),
            Data::F32(v) => v.iter().map(|&x| x as f64).collect(),
            Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
            Data::F64(v) => v.clone(),
        }
    }

    /// The elements as f32 (booleans as 0/1), the form the emulator computes on: a uint32 is
    /// its bits (`f32::from_bits`), not its value.
    pub fn to_f32_vec(&self) -> Vec<f32> {
        match &self.data {
            Data::Bool(v) => v.iter().map(|&b| if b { 1.0 } else { 0.0 }).collect(),
            Data::U32(v) => v.iter().map(|&x| f32::from_bits(x)).collect(),
            Data::Key(v) => v.iter().flatten().map(|&x| f32::from_bits(x)).collect(),
            Data::I32(v) => v.iter().map(|&x| x as f32).collect(),
            Data::BF16(v) => v.iter().map(|x| x.to_f32()).collect(),
            Data::F32(v) => v.clone(),
            Data::I64(v) => v.iter().map(|&x| x as f32).collect(),
            Data::F64(v) => v.iter().map(|&x| x as f32).collect(),
        }
    }

    /// Every element as i64, exactly for the integer dtypes (floats truncate toward zero,
    /// saturating, as NumPy's casts do on the values a program meets).
    pub fn to_i64_vec(&self) -> Vec<i64> {
        match &self.data {
            Data::I64(v) => v.clone(),
            Data::I32(v) => v.iter().map(|&x| x as i64).collect(),
            Data::U32(v) => v.iter().map(|&x| x as i64).collect(),
            _ => self.to_f64_vec().into_iter().map(|x| x as i64).collect(),
        }
    }

    /// Converts element-wise to `dtype` with JAX's rules (float→int truncates toward zero,
    /// float→bf16 rounds to nearest even).
    pub fn astype(&self, dtype: DType) -> Array {
        let n = self.size();
        let f = self.to_f64_vec();
        let data = match dtype {
            DType::F32 => match &self.data {
                Data::F32(v) => Data::F32(v.clone()),
                _ => Data::F32(f.iter().map(|&x| x as f32).collect()),
            },
            DType::BF16 => Data::BF16(self.to_f32_vec().iter().map(|&x| bf16::from_f32(x)).collect()),
            DType::I32 => match &self.data {
                Data::I32(v) => Data::I32(v.clone()),
                // Same width: the bits wrap.
                Data::U32(v) => Data::I32(v.iter().map(|&x| x as i32).collect()),
                // Wider integers wrap to their low word, as NumPy's and XLA's casts do.
                Data::I64(v) => Data::I32(v.iter().map(|&x| x as i32).collect()),
                _ => Data::I32(f.iter().map(|&x| x as i32).collect()),
            },
            DType::I64 => Data::I64(self.to_i64_vec()),
            DType::F64 => Data::F64(match &self.data {
                Data::I64(v) => v.iter().map(|&x| x as f64).collect(),
                _ => f,
            }),
            DType::U32 => match &self.data {
                Data::I32(v) => Data::U32(v.iter().map(|&x| x as u32).collect()),
                Data::I64(v) => Data::U32(v.iter().map(|&x| x as u32).collect()),
                // XLA's float to unsigned conversion saturates (NaN to 0), as Rust's `as`.
                _ => Data::U32(f.iter().map(|&x| x as u32).collect()),
            },
            DType::Bool => Data::Bool(f.iter().map(|&x| x != 0.0).collect()),
            DType::Key => self.data.clone(),
        };
        debug_assert_eq!(data.len(), n);
        let mut out = Array::new(self.aval.shape.clone(), data);
        out.aval.weak_type = self.aval.weak_type && dtype == self.dtype();
        out
    }

    /// Row `i` along the leading axis (a `scan` step's slice of an `xs`).
    pub fn row(&self, i: usize) -> Array {
        let mut out = self.rows(i, 1);
        out.aval.shape.remove(0);
        out
    }

    /// Rows `first..first + count` along the leading axis.
    pub fn rows(&self, first: usize, count: usize) -> Array {
        let mut shape = self.aval.shape.clone();
        shape[0] = count;
        let n: usize = shape[1..].iter().product();
        let mut out = Array::new(shape, self.data.elements(first * n..(first + count) * n));
        out.aval.weak_type = self.aval.weak_type;
        out
    }

    /// `rows`, each of type `row`, stacked along a new leading axis (a `scan`'s `ys`).
    pub fn stack(rows: &[Array], row: &Aval) -> Array {
        let mut data = Data::empty(row.dtype);
        for r in rows {
            match r.dtype() == row.dtype {
                true => data.extend(&r.data),
                false => data.extend(&r.astype(row.dtype).data),
            }
        }
        let mut out = Array::new(crate::control::stacked(row, rows.len()).shape, data);
        out.aval.weak_type = row.weak_type;
        out
    }

    /// The single element of a size-1 array as f64.
    pub fn scalar_f64(&self) -> Option<f64> {
        (self.size() == 1).then(|| self.to_f64_vec()[0])
    }
}
