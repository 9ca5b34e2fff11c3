//! Operations the machine has no instruction for, written as graphs of ones it has, as XLA
//! expands them: `pow`, `atan2`, `argmax`/`argmin`, `cumsum`, `exp2`. Every op here is exact IEEE arithmetic or
//! one of the vector unit's functions, so the CPU and GPU backends agree to the bit.

use crate::hlo::{Elem, Graph, Op, ValueId};
use isa::ReduceOp;
use jaxlite::{BinaryOp, CompareOp, UnaryOp};
use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};

/// Adds elementwise instructions over one shape (rank-0 operands broadcast).
struct Builder<'g> {
    g: &'g mut Graph,
    shape: Vec<usize>,
}

impl Builder<'_> {
    fn constant(&mut self, x: f32) -> ValueId {
        self.g.add(Op::Constant(x), vec![], vec![])
    }
    fn unary(&mut self, op: UnaryOp, x: ValueId) -> ValueId {
        self.g.add(Op::Unary(op), vec![x], self.shape.clone())
    }
    fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        self.g.add(Op::Binary(op), vec![a, b], self.shape.clone())
    }
    /// `x op a` with a constant `x`.
    fn with_first(&mut self, op: BinaryOp, x: f32, a: ValueId) -> ValueId {
        let c = self.constant(x);
        self.binary(op, c, a)
    }
    /// `a op x` with a constant `x`.
    fn with(&mut self, op: BinaryOp, a: ValueId, x: f32) -> ValueId {
        let c = self.constant(x);
        self.binary(op, a, c)
    }
    fn compare(&mut self, op: CompareOp, a: ValueId, b: ValueId) -> ValueId {
        let v = self.g.add(Op::Compare(op), vec![a, b], self.shape.clone());
        self.g.instrs[v].elem = Elem::Pred;
        v
    }
    fn compare_with(&mut self, op: CompareOp, a: ValueId, x: f32) -> ValueId {
        let c = self.constant(x);
        self.compare(op, a, c)
    }
    /// Logical and / or of predicates (1.0 or 0.0): min and max.
    fn and(&mut self, a: ValueId, b: ValueId) -> ValueId {
        let v = self.binary(BinaryOp::Min, a, b);
        self.g.instrs[v].elem = Elem::Pred;
        v
    }
    fn or(&mut self, a: ValueId, b: ValueId) -> ValueId {
        let v = self.binary(BinaryOp::Max, a, b);
        self.g.instrs[v].elem = Elem::Pred;
        v
    }
    fn not(&mut self, a: ValueId) -> ValueId {
        self.compare_with(CompareOp::Eq, a, 0.0)
    }
    /// `pred ? on_true : on_false`.
    fn select(&mut self, pred: ValueId, on_true: ValueId, on_false: ValueId) -> ValueId {
        self.g.add(Op::Select, vec![pred, on_false, on_true], self.shape.clone())
    }
    fn select_constant(&mut self, pred: ValueId, x: f32, on_false: ValueId) -> ValueId {
        let c = self.constant(x);
        self.select(pred, c, on_false)
    }
    /// Whether `x` is negative, -0.0 and -inf included (`1 / -0.0` is -inf).
    fn sign_bit(&mut self, x: ValueId) -> ValueId {
        let below = self.compare_with(CompareOp::Lt, x, 0.0);
        let one = self.constant(1.0);
        let inverse = self.binary(BinaryOp::Div, one, x);
        let negative_zero = self.compare_with(CompareOp::Lt, inverse, 0.0);
        self.or(below, negative_zero)
    }
}

/// `x ** y` with C's `pow` special cases: `exp(y · log|x|)`, negated for a negative `x` and an
/// odd integer `y`, NaN for a finite negative `x` and a non-integer `y`, and 1 when `y` is 0,
/// `x` is 1, or `|x|` is 1 and `y` infinite. Within a few ulp of the exact power while
/// `|y · log x|` is small; the error grows with it (docs/compiler.md). An integer `y` below 8
/// in magnitude is a power by squaring instead (`1 / x^|y|` for a negative one): at most four
/// roundings, so within 2 ulp, and exact where the power is representable, as libm's pow is:
/// `10.0 ** 2.0` is 100, not 100.00001. (Where `x^|y|` overflows for a negative `y`, the
/// logarithm's tiny result stands; larger exponents stay with the logarithm, whose error near
/// `x = 1` is smaller than a longer chain of products.)
pub fn pow(g: &mut Graph, x: ValueId, y: ValueId, shape: Vec<usize>) -> ValueId {
    let b = &mut Builder { g, shape };
    let ax = b.unary(UnaryOp::Abs, x);
    let log = b.unary(UnaryOp::Log, ax);
    let product = b.binary(BinaryOp::Mul, y, log);
    let magnitude = b.unary(UnaryOp::Exp, product);
    // y is an integer, and an odd one (y/2 is not an integer).
    let floor = b.unary(UnaryOp::Floor, y);
    let integer = b.compare(CompareOp::Eq, floor, y);
    let half = b.with(BinaryOp::Mul, y, 0.5);
    let half_floor = b.unary(UnaryOp::Floor, half);
    let half_fractional = b.compare(CompareOp::Ne, half_floor, half);
    let odd = b.and(integer, half_fractional);
    let negative = b.sign_bit(x);
    let flip = b.and(negative, odd);
    let flipped = b.unary(UnaryOp::Neg, magnitude);
    let signed = b.select(flip, flipped, magnitude);
    // A finite negative base to a fractional power has no real value.
    let below = b.compare_with(CompareOp::Lt, x, 0.0);
    let finite = b.compare_with(CompareOp::Gt, x, f32::NEG_INFINITY);
    let fractional = b.not(integer);
    let finite_negative = b.and(below, finite);
    let no_value = b.and(finite_negative, fractional);
    let result = b.select_constant(no_value, f32::NAN, signed);
    let ay = b.unary(UnaryOp::Abs, y);
    let (squared, _) = power_by_squaring(b, x, ay, 3);
    let reciprocal = b.with_first(BinaryOp::Div, 1.0, squared);
    let negative_y = b.compare_with(CompareOp::Lt, y, 0.0);
    let exact = b.select(negative_y, reciprocal, squared);
    let below_8 = b.compare_with(CompareOp::Lt, ay, 8.0);
    let small_integer = b.and(integer, below_8);
    let overflowed = b.compare_with(CompareOp::Eq, squared, f32::INFINITY);
    let ax_finite = b.compare_with(CompareOp::Lt, ax, f32::INFINITY);
    let lost = b.and(negative_y, overflowed);
    let lost = b.and(lost, ax_finite);
    let kept = b.not(lost);
    let by_squaring = b.and(small_integer, kept);
    let result = b.select(by_squaring, exact, result);
    let y_zero = b.compare_with(CompareOp::Eq, y, 0.0);
    let x_one = b.compare_with(CompareOp::Eq, x, 1.0);
    let unit = b.compare_with(CompareOp::Eq, ax, 1.0);
    let infinite = b.compare_with(CompareOp::Eq, ay, f32::INFINITY);
    let unit_infinite = b.and(unit, infinite);
    let trivial = b.or(y_zero, x_one);
    let one = b.or(trivial, unit_infinite);
    b.select_constant(one, 1.0, result)
}

/// `x^e` for an integer `e` in 0..2^bits, by squaring: the exponent's bits from the lowest,
/// `x` squared at each and multiplied in where the bit is set (each product rounded once, so
/// exact while the power is representable). Also whether `e` is odd.
fn power_by_squaring(b: &mut Builder, x: ValueId, e: ValueId, bits: i32) -> (ValueId, ValueId) {
    let bit = |b: &mut Builder, k: i32| {
        let shifted = b.with(BinaryOp::Mul, e, 0.5f32.powi(k));
        let whole = b.unary(UnaryOp::Floor, shifted);
        let half = b.with(BinaryOp::Mul, whole, 0.5);
        let half_floor = b.unary(UnaryOp::Floor, half);
        b.compare(CompareOp::Ne, half_floor, half)
    };
    let odd = bit(b, 0);
    let mut power = b.constant(1.0);
    let mut square = x;
    for k in 0..bits {
        let set = if k == 0 { odd } else { bit(b, k) };
        let times = b.binary(BinaryOp::Mul, power, square);
        power = b.select(set, times, power);
        if k < bits - 1 {
            square = b.binary(BinaryOp::Mul, square, square);
        }
    }
    (power, odd)
}

/// `x ** y` for int32 `x` and `y` (their words hold the integers' float32 values), by
/// squaring: the exponent's bits from the lowest, `x` squared at each and multiplied in where
/// the bit is set; every product is exact while the result is within ±2^24, as every int32
/// the machine holds. Five bits cover `y < 32`; beyond that only the bases 0, 1 and −1 stay
/// in range (the others give +∞, which the runtime refuses as an int32 out of range, rather
/// than wrapping silently). A negative power is 0, but 1 for the base 1 and ±1 for −1, as in
/// the reference evaluator.
pub fn int_pow(g: &mut Graph, x: ValueId, y: ValueId, shape: Vec<usize>) -> ValueId {
    let b = &mut Builder { g, shape };
    let (power, odd) = power_by_squaring(b, x, y, 5);
    // The bases whose powers stay in range whatever the exponent: 1, and −1 by parity.
    let one = b.constant(1.0);
    let parity = b.select_constant(odd, -1.0, one);
    let minus_one = b.compare_with(CompareOp::Eq, x, -1.0);
    let unit = b.select(minus_one, parity, one);
    let x_one = b.compare_with(CompareOp::Eq, x, 1.0);
    let zero = b.constant(0.0);
    let fraction = b.select(x_one, one, zero);
    let negative_power = b.select(minus_one, unit, fraction);
    let ax = b.unary(UnaryOp::Abs, x);
    let large_base = b.compare_with(CompareOp::Gt, ax, 1.0);
    let x_zero = b.compare_with(CompareOp::Eq, x, 0.0);
    let small = b.select_constant(x_zero, 0.0, unit);
    let large_power = b.select_constant(large_base, f32::INFINITY, small);
    let large = b.compare_with(CompareOp::Ge, y, 32.0);
    let power = b.select(large, large_power, power);
    let negative = b.compare_with(CompareOp::Lt, y, 0.0);
    b.select(negative, negative_power, power)
}

/// `atan(t)` for `t` in [0, 1] (or NaN), Cephes' `atanf`: above tan(π/8), `π/4 + atan((t-1)/(t+1))`;
/// then an odd polynomial of degree 9 (relative error about 1e-7).
fn atan_unit(b: &mut Builder, t: ValueId) -> ValueId {
    let big = b.compare_with(CompareOp::Gt, t, 0.414_213_57);
    let below = b.with(BinaryOp::Sub, t, 1.0);
    let above = b.with(BinaryOp::Add, t, 1.0);
    let reduced = b.binary(BinaryOp::Div, below, above);
    let u = b.select(big, reduced, t);
    let zero = b.constant(0.0);
    let quarter = b.constant(FRAC_PI_4);
    let base = b.select(big, quarter, zero);
    let z = b.binary(BinaryOp::Mul, u, u);
    let mut p = b.with(BinaryOp::Mul, z, 8.053_744_5e-2);
    for c in [-1.387_768_6e-1, 1.997_771_1e-1, -3.333_295e-1] {
        p = b.with(BinaryOp::Add, p, c);
        p = b.binary(BinaryOp::Mul, p, z);
    }
    let pu = b.binary(BinaryOp::Mul, p, u);
    let series = b.binary(BinaryOp::Add, pu, u);
    b.binary(BinaryOp::Add, base, series)
}

/// `atan2(y, x)` with C's special cases: the angle of `min(|x|,|y|) / max(|x|,|y|)` (0 when both
/// are 0, π/4 when both are infinite), reflected about π/4 when `|y| > |x|`, about π/2 when `x`
/// is negative (or -0.0), and given `y`'s sign (-0.0 included). NaN in, NaN out.
pub fn atan2(g: &mut Graph, y: ValueId, x: ValueId, shape: Vec<usize>) -> ValueId {
    let b = &mut Builder { g, shape };
    let ax = b.unary(UnaryOp::Abs, x);
    let ay = b.unary(UnaryOp::Abs, y);
    let small = b.binary(BinaryOp::Min, ax, ay);
    let large = b.binary(BinaryOp::Max, ax, ay);
    let ratio = b.binary(BinaryOp::Div, small, large);
    let angle = atan_unit(b, ratio);
    let both_zero = b.compare_with(CompareOp::Eq, large, 0.0);
    let angle = b.select_constant(both_zero, 0.0, angle);
    let small_infinite = b.compare_with(CompareOp::Eq, small, f32::INFINITY);
    let angle = b.select_constant(small_infinite, FRAC_PI_4, angle);
    let steep = b.compare(CompareOp::Gt, ay, ax);
    let complement = b.constant(FRAC_PI_2);
    let complement = b.binary(BinaryOp::Sub, complement, angle);
    let angle = b.select(steep, complement, angle);
    let left = b.sign_bit(x);
    let pi = b.constant(PI);
    let supplement = b.binary(BinaryOp::Sub, pi, angle);
    let angle = b.select(left, supplement, angle);
    let down = b.sign_bit(y);
    let negated = b.unary(UnaryOp::Neg, angle);
    b.select(down, negated, angle)
}

/// `argmax`/`argmin` along `axis`, as XLA expands it: the extreme value `m` (NaN if any
/// element is NaN, since max and min propagate it), then the smallest index whose element is
/// `m` or NaN: `min over axis of select(x == m or x != x, iota, n)`.
pub fn arg_reduce(g: &mut Graph, x: ValueId, axis: usize, is_max: bool, out: Vec<usize>) -> ValueId {
    let shape = g.instrs[x].shape.clone();
    let op = if is_max { ReduceOp::Max } else { ReduceOp::Min };
    let m = crate::hlo::reduce(g, x, op, &[axis], out.clone());
    let kept: Vec<usize> = (0..shape.len()).filter(|&d| d != axis).collect();
    let m = g.add(Op::Broadcast { dims: kept }, vec![m], shape.clone());
    let b = &mut Builder { g, shape: shape.clone() };
    let hit = b.compare(CompareOp::Eq, x, m);
    let nan = b.compare(CompareOp::Ne, x, x);
    let found = b.or(hit, nan);
    let index = b.g.add(Op::Iota { dimension: axis }, vec![], shape.clone());
    let none = b.constant(shape[axis] as f32);
    let candidate = b.select(found, index, none);
    for v in [index, none, candidate] {
        b.g.instrs[v].elem = Elem::S32;
    }
    crate::hlo::reduce(g, candidate, ReduceOp::Min, &[axis], out)
}

/// A 1-D iota reshaped to `shape` (`jnp.arange(n).reshape(a, b)`): the sum over the axes of
/// an iota along each, times the axis's row-major stride. Kernels generate iotas by rows or
/// by columns, never whole, and each of these is one or the other. The values are whole
/// numbers below the array's size, exact in f32 arithmetic as in s32.
pub fn reshaped_iota(g: &mut Graph, shape: Vec<usize>, elem: Elem) -> ValueId {
    let b = &mut Builder { g, shape: shape.clone() };
    let mut sum: Option<ValueId> = None;
    let mut stride = 1;
    for axis in (0..shape.len()).rev() {
        if shape[axis] > 1 {
            let mut term = b.g.add(Op::Iota { dimension: axis }, vec![], shape.clone());
            if stride > 1 {
                b.g.instrs[term].elem = elem;
                term = b.with(BinaryOp::Mul, term, stride as f32);
            }
            if let Some(s) = sum {
                b.g.instrs[term].elem = elem;
                term = b.binary(BinaryOp::Add, term, s);
            }
            b.g.instrs[term].elem = elem;
            sum = Some(term);
        }
        stride *= shape[axis];
    }
    // Every axis of size 1 (or none: a scalar, `random_bits` of one word per key): the one
    // value is 0, an iota over one element shaped as asked.
    sum.unwrap_or_else(|| {
        let zero = b.g.add(Op::Iota { dimension: 0 }, vec![], vec![1; shape.len().max(1)]);
        b.g.instrs[zero].elem = elem;
        if shape.is_empty() {
            let scalar = b.g.add(Op::Reshape, vec![zero], shape);
            b.g.instrs[scalar].elem = elem;
            return scalar;
        }
        zero
    })
}

/// `cumsum` along `axis` by doubling (Hillis and Steele): log2(n) rounds of `x + x shifted by
/// k` for k = 1, 2, 4, …, each shift a slice padded with zeros at the front (at the back when
/// `reverse`). The sums associate as a tree, not left to right: within a few ulp of JAX's
/// sequential sums.
pub fn cumsum(g: &mut Graph, x: ValueId, axis: usize, reverse: bool) -> ValueId {
    let shape = g.instrs[x].shape.clone();
    let n = shape[axis];
    let zero = g.add(Op::Constant(0.0), vec![], vec![]);
    let mut sum = x;
    let mut k = 1;
    while k < n {
        let mut start = vec![0; shape.len()];
        let mut kept = shape.clone();
        kept[axis] = n - k;
        let mut low = vec![0i64; shape.len()];
        if reverse {
            start[axis] = k;
        } else {
            low[axis] = k as i64;
        }
        let strides = vec![1; shape.len()];
        let part = g.add(Op::Slice { start, strides }, vec![sum], kept);
        let shifted = g.add(Op::Pad { low, interior: vec![0; shape.len()] }, vec![part, zero], shape.clone());
        sum = g.add(Op::Binary(BinaryOp::Add), vec![sum, shifted], shape.clone());
        k *= 2;
    }
    if sum == x {
        // A length-1 axis: the sum is x itself, as a value of its own.
        return g.add(Op::Binary(BinaryOp::Add), vec![x, zero], shape);
    }
    sum
}

/// `2^x` as `exp(x · ln 2)`: the product's rounding adds about |x| ulp.
pub fn exp2(g: &mut Graph, x: ValueId, shape: Vec<usize>) -> ValueId {
    let b = &mut Builder { g, shape };
    let scaled = b.with(BinaryOp::Mul, x, std::f32::consts::LN_2);
    b.unary(UnaryOp::Exp, scaled)
}

/// Builds uint32 values (`Elem::U32`) over one shape, with the vector unit's uint32 operations.
struct Words<'g> {
    g: &'g mut Graph,
    shape: Vec<usize>,
}

impl Words<'_> {
    fn add(&mut self, op: Op, operands: Vec<ValueId>, shape: Vec<usize>) -> ValueId {
        let v = self.g.add(op, operands, shape);
        self.g.instrs[v].elem = Elem::U32;
        v
    }
    fn constant(&mut self, bits: u32) -> ValueId {
        self.add(Op::Constant(f32::from_bits(bits)), vec![], vec![])
    }
    fn binary(&mut self, op: BinaryOp, a: ValueId, b: ValueId) -> ValueId {
        let shape = self.shape.clone();
        self.add(Op::Binary(op), vec![a, b], shape)
    }
    fn with(&mut self, op: BinaryOp, a: ValueId, bits: u32) -> ValueId {
        let c = self.constant(bits);
        self.binary(op, a, c)
    }
    fn rotate_left(&mut self, x: ValueId, r: u32) -> ValueId {
        let high = self.with(BinaryOp::ShiftLeft, x, r);
        let low = self.with(BinaryOp::ShiftRightLogical, x, 32 - r);
        self.binary(BinaryOp::Or, high, low)
    }
    /// `v` (over a prefix of this shape's axes) spread over the whole shape.
    fn spread(&mut self, v: ValueId) -> ValueId {
        let rank = self.g.instrs[v].shape.len();
        if rank == self.shape.len() {
            return v;
        }
        let shape = self.shape.clone();
        self.add(Op::Broadcast { dims: (0..rank).collect() }, vec![v], shape)
    }
}

/// Word `w` (0 or 1) of each key: `keys` is `K + [2]` uint32 words, the result `K`.
fn key_word(g: &mut Graph, keys: ValueId, w: usize) -> ValueId {
    let mut shape = g.instrs[keys].shape.clone();
    let rank = shape.len();
    shape[rank - 1] = 1;
    let mut start = vec![0; rank];
    start[rank - 1] = w;
    let b = &mut Words { g, shape: vec![] };
    let word = b.add(Op::Slice { start, strides: vec![1; rank] }, vec![keys], shape.clone());
    shape.pop();
    b.add(Op::Reshape, vec![word], shape)
}

/// Threefry-2x32 with 20 rounds (`jaxlite::random::threefry2x32`, as XLA expands JAX's
/// `threefry2x32`) of the counters `(0, count)` under `keys` (`K + [2]` words), over `shape`
/// (`K` followed by the draw's axes; `count` is over `shape` or a scalar). The key schedule
/// and the constants it adds are computed once per key, before being spread over the draw;
/// per element it is 2 + 20·5 + 5·2 uint32 operations, the rotations each a shift left, a
/// shift right and an or.
fn threefry(g: &mut Graph, keys: ValueId, count: ValueId, shape: Vec<usize>) -> [ValueId; 2] {
    const ROTATIONS: [[u32; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    let k0 = key_word(g, keys, 0);
    let k1 = key_word(g, keys, 1);
    let key_shape = g.instrs[k0].shape.clone();
    let b = &mut Words { g, shape: key_shape };
    let mixed = b.binary(BinaryOp::Xor, k0, k1);
    let k2 = b.with(BinaryOp::Xor, mixed, 0x1BD1_1BDA);
    let ks = [k0, k1, k2];
    // What each of the five injections adds to the second word: a key word plus the round.
    let injections: Vec<ValueId> = (0..5).map(|i| b.with(BinaryOp::Add, ks[(i + 2) % 3], i as u32 + 1)).collect();
    b.shape = shape;
    let ks: Vec<ValueId> = ks.iter().map(|&k| b.spread(k)).collect();
    // x = (0 + ks0, count + ks1).
    let mut x = [ks[0], b.binary(BinaryOp::Add, count, ks[1])];
    for (i, &injection) in injections.iter().enumerate() {
        for &r in &ROTATIONS[i % 2] {
            x[0] = b.binary(BinaryOp::Add, x[0], x[1]);
            let rotated = b.rotate_left(x[1], r);
            x[1] = b.binary(BinaryOp::Xor, rotated, x[0]);
        }
        let k = b.spread(ks[(i + 1) % 3]);
        x[0] = b.binary(BinaryOp::Add, x[0], k);
        let injection = b.spread(injection);
        x[1] = b.binary(BinaryOp::Add, x[1], injection);
    }
    x
}

/// The row-major index of each element over the draw's axes `draw` (after the keys' axes
/// `keys`), as uint32 counters.
fn counters(g: &mut Graph, keys: &[usize], draw: &[usize]) -> ValueId {
    let flat = reshaped_iota(g, draw.to_vec(), Elem::S32);
    let b = &mut Words { g, shape: keys.iter().chain(draw).copied().collect() };
    let count = b.add(Op::ToU32, vec![flat], draw.to_vec());
    let shape = b.shape.clone();
    if keys.is_empty() {
        return count;
    }
    b.add(Op::Broadcast { dims: (keys.len()..shape.len()).collect() }, vec![count], shape)
}

/// The keys' axes: all but the last (the two words).
fn key_axes(g: &Graph, keys: ValueId) -> Vec<usize> {
    let shape = &g.instrs[keys].shape;
    shape[..shape.len().saturating_sub(1)].to_vec()
}

/// `random_bits`: per key, the two Threefry words of the counter `(0, i)` XORed, for each
/// element i of the draw.
pub fn random_bits(g: &mut Graph, keys: ValueId, draw: &[usize]) -> ValueId {
    let axes = key_axes(g, keys);
    let count = counters(g, &axes, draw);
    let shape: Vec<usize> = axes.iter().chain(draw).copied().collect();
    let [a, b] = threefry(g, keys, count, shape.clone());
    Words { g, shape }.binary(BinaryOp::Xor, a, b)
}

/// The two words of new keys over `shape` side by side: `shape + [2]`.
fn key_of_words(g: &mut Graph, words: [ValueId; 2], shape: Vec<usize>) -> ValueId {
    let mut one = shape.clone();
    one.push(1);
    let b = &mut Words { g, shape: vec![] };
    let [a, c] = words.map(|w| b.add(Op::Reshape, vec![w], one.clone()));
    let mut both = shape;
    both.push(2);
    let rank = both.len();
    b.add(Op::Concatenate { dimension: rank - 1 }, vec![a, c], both)
}

/// `random_seed`: each 32-bit seed's key, the words `(0, seed as uint32)`.
pub fn random_seed(g: &mut Graph, seeds: ValueId) -> ValueId {
    let shape = g.instrs[seeds].shape.clone();
    let unsigned = g.instrs[seeds].elem == Elem::U32;
    let b = &mut Words { g, shape: shape.clone() };
    let low = if unsigned { seeds } else { b.add(Op::ToU32, vec![seeds], shape.clone()) };
    let zero = b.constant(0);
    let high = if shape.is_empty() { zero } else { b.add(Op::Broadcast { dims: vec![] }, vec![zero], shape.clone()) };
    key_of_words(g, [high, low], shape)
}

/// `random_split`: per key, the Threefry encryptions of `(0, i)` for each new key i.
pub fn random_split(g: &mut Graph, keys: ValueId, draw: &[usize]) -> ValueId {
    let axes = key_axes(g, keys);
    let count = counters(g, &axes, draw);
    let shape: Vec<usize> = axes.iter().chain(draw).copied().collect();
    let words = threefry(g, keys, count, shape.clone());
    key_of_words(g, words, shape)
}

/// `random_fold_in`: each key encrypting `(0, data)`.
pub fn random_fold_in(g: &mut Graph, keys: ValueId, data: ValueId) -> ValueId {
    let shape = key_axes(g, keys);
    let words = threefry(g, keys, data, shape.clone());
    key_of_words(g, words, shape)
}

/// `erf_inv` as XLA writes it for float32 (Giles' approximation, `ErfInv32`):
/// `w = -log1p(-x²)`, a polynomial of degree 8 in `w - 2.5` below 5 and in `√w - 3` above,
/// times `x`; `±1` give `±f32::MAX`. The Horner steps are a multiply and an add (XLA's CPU
/// backend fuses them, so results can differ from JAX's on the CPU in the last bits).
pub fn erf_inv(g: &mut Graph, x: ValueId, shape: Vec<usize>) -> ValueId {
    use jaxlite::random::{ERF_INV_ABOVE_5 as ABOVE_5, ERF_INV_BELOW_5 as BELOW_5};
    let b = &mut Builder { g, shape };
    let square = b.binary(BinaryOp::Mul, x, x);
    let minus = b.unary(UnaryOp::Neg, square);
    let log = b.unary(UnaryOp::Log1p, minus);
    let w = b.unary(UnaryOp::Neg, log);
    let below = b.compare_with(CompareOp::Lt, w, 5.0);
    let near = b.with(BinaryOp::Sub, w, 2.5);
    let root = b.unary(UnaryOp::Sqrt, w);
    let far = b.with(BinaryOp::Sub, root, 3.0);
    let w = b.select(below, near, far);
    let coefficient = |b: &mut Builder, k: usize| {
        let above = b.constant(ABOVE_5[k]);
        b.select_constant(below, BELOW_5[k], above)
    };
    let mut p = coefficient(b, 0);
    for k in 1..9 {
        let c = coefficient(b, k);
        let pw = b.binary(BinaryOp::Mul, p, w);
        p = b.binary(BinaryOp::Add, c, pw);
    }
    let result = b.binary(BinaryOp::Mul, p, x);
    let magnitude = b.unary(UnaryOp::Abs, x);
    let unit = b.compare_with(CompareOp::Eq, magnitude, 1.0);
    let edge = b.with(BinaryOp::Mul, x, f32::MAX);
    b.select(unit, edge, result)
}
