//! Pass 1: Jaxpr → an HLO-like graph.
//!
//! One instruction per value, named and printed as XLA prints HLO, so a user who has read XLA
//! dumps recognises it. Scalar literals become `constant`s; dots are canonicalised to
//! `(M,K)·(K,N)` with explicit reshapes and transposes, so later passes see one kind of
//! matmul; float32 → float32 conversions disappear.

use crate::{expand, CompileError};
use isa::ReduceOp;
use jaxlite::{Atom, BinaryOp, CompareOp, DType, Jaxpr, Precision, Primitive, UnaryOp, Var};
use std::collections::HashMap;
use std::fmt;

pub type ValueId = usize;

#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Parameter(usize),
    /// A scalar constant.
    Constant(f32),
    Unary(UnaryOp),
    /// A rank-0 operand broadcasts over the other.
    Binary(BinaryOp),
    /// An elementwise comparison, giving a boolean (a `pred`: 1.0 or 0.0 in memory).
    Compare(CompareOp),
    /// `select(pred, on_false, on_true)`: operands in that order (JAX's `select_n`).
    Select,
    /// A boolean read as float32: the same words, so a view.
    Convert,
    /// `(M,K)·(K,N)`, or batched, `(B,M,K)·(B,K,N)`.
    Dot {
        precision: Precision,
    },
    /// `broadcast_in_dim`: operand dimension i becomes output dimension `dims[i]`.
    Broadcast {
        dims: Vec<usize>,
    },
    Reshape,
    Transpose {
        permutation: Vec<usize>,
    },
    Reduce {
        op: ReduceOp,
        axes: Vec<usize>,
    },
    /// `0, 1, 2, …` along `dimension` (no operands; kernels generate it where they read it).
    Iota {
        dimension: usize,
    },
    /// The operands side by side along `dimension`.
    Concatenate {
        dimension: usize,
    },
    /// Elements `start + i·stride` along each axis (the result's shape says how many).
    Slice {
        start: Vec<usize>,
        strides: Vec<usize>,
    },
    /// The elements in reverse order along each of `dims`.
    Reverse {
        dims: Vec<usize>,
    },
    /// `(x, value)`: XLA's pad. Along each axis x's elements land `interior + 1` apart from
    /// `low` on (a negative `low` or a short result crops them) in a result filled with the
    /// scalar `value`.
    Pad {
        low: Vec<i64>,
        interior: Vec<usize>,
    },
    /// `(x, update)`: x with `update` written over it from `start` (a dynamic_update_slice
    /// whose indices are constants).
    UpdateSlice {
        start: Vec<usize>,
    },
    /// A float32 rounded to bfloat16 (XLA's `convert` to bf16): the vector unit computes a
    /// bfloat16 op in float32 and rounds what it writes.
    ToBf16,
    /// An int32 (or boolean) as the uint32 of its two's complement bits (XLA's `convert` to
    /// u32): the word changes from a float32 value to bits.
    ToU32,
    /// A uint32's bits as the int32 with those bits (XLA's `convert` from u32 to s32): the word
    /// changes from bits to a float32 value.
    FromU32,
}
/// Row-major strides (in elements) of an array of `shape`.
pub fn row_major(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

#[derive(Clone, Debug, PartialEq)]
pub struct Instruction {
    pub op: Op,
    pub operands: Vec<ValueId>,
    pub shape: Vec<usize>,
    /// What the value's words hold (every word is a float32).
    pub elem: Elem,
}
impl Instruction {
    pub fn size(&self) -> usize {
        self.shape.iter().product()
    }

    /// XLA's opcode name.
    pub fn opcode(&self) -> &'static str {
        match &self.op {
            Op::Parameter(_) => "parameter",
            Op::Constant(_) => "constant",
            Op::Unary(u) => match u {
                UnaryOp::Neg => "negate",
                UnaryOp::Exp => "exponential",
                UnaryOp::Log => "log",
                UnaryOp::Tanh => "tanh",
                UnaryOp::Logistic => "logistic",
                UnaryOp::Sqrt => "sqrt",
                UnaryOp::Rsqrt => "rsqrt",
                UnaryOp::Abs => "abs",
                other => other.name(),
            },
            Op::Binary(b) => match b {
                BinaryOp::Add => "add",
                BinaryOp::Sub => "subtract",
                BinaryOp::Mul => "multiply",
                BinaryOp::Div => "divide",
                BinaryOp::Max => "maximum",
                BinaryOp::Min => "minimum",
                BinaryOp::ShiftLeft => "shift-left",
                BinaryOp::ShiftRightArithmetic => "shift-right-arithmetic",
                BinaryOp::ShiftRightLogical => "shift-right-logical",
                other => other.name(),
            },
            Op::Compare(_) => "compare",
            Op::Select => "select",
            Op::Convert => "convert",
            Op::Dot { .. } => "dot",
            Op::Broadcast { .. } => "broadcast",
            Op::Reshape => "reshape",
            Op::Transpose { .. } => "transpose",
            Op::Reduce { .. } => "reduce",
            Op::Iota { .. } => "iota",
            Op::Concatenate { .. } => "concatenate",
            Op::Slice { .. } => "slice",
            Op::Reverse { .. } => "reverse",
            Op::Pad { .. } => "pad",
            Op::ToU32 | Op::FromU32 => "convert",
            Op::UpdateSlice { .. } => "dynamic-update-slice",
            Op::ToBf16 => "convert",
        }
    }

    /// Views change how an array is indexed, not its values: they cost nothing until a
    /// kernel reads through them.
    pub fn is_view(&self) -> bool {
        matches!(self.op, Op::Broadcast { .. } | Op::Reshape | Op::Convert)
    }

    pub fn is_elementwise(&self) -> bool {
        matches!(
            self.op,
            Op::Unary(_) | Op::Binary(_) | Op::Compare(_) | Op::Select | Op::ToBf16 | Op::ToU32 | Op::FromU32
        )
    }
}

/// A program as a graph of instructions in topological order.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub name: String,
    pub instrs: Vec<Instruction>,
    pub params: Vec<ValueId>,
    pub outputs: Vec<ValueId>,
}

impl Graph {
    /// How many instructions use each value (each program output counts as a use).
    pub fn users(&self) -> Vec<usize> {
        let mut users = vec![0; self.instrs.len()];
        for i in &self.instrs {
            for &o in &i.operands {
                users[o] += 1;
            }
        }
        for &o in &self.outputs {
            users[o] += 1;
        }
        users
    }

    /// The scalar a value is made of, if it is a constant or a view of one (a splat).
    pub fn constant_value(&self, v: ValueId) -> Option<f32> {
        match &self.instrs[v].op {
            Op::Constant(x) => Some(*x),
            Op::Broadcast { .. } | Op::Reshape => self.constant_value(self.instrs[v].operands[0]),
            _ => None,
        }
    }

    /// XLA-style names: `p0` for parameters, `opcode.N` otherwise.
    pub fn value_name(&self, v: ValueId) -> String {
        match self.instrs[v].op {
            Op::Parameter(i) => format!("p{i}"),
            _ => format!("{}.{v}", self.instrs[v].opcode()),
        }
    }

    pub(crate) fn add(&mut self, op: Op, operands: Vec<ValueId>, shape: Vec<usize>) -> ValueId {
        self.instrs.push(Instruction { op, operands, shape, elem: Elem::F32 });
        self.instrs.len() - 1
    }
}

pub fn shape_text(elem: Elem, shape: &[usize]) -> String {
    format!("{}[{}]", elem.name(), list(shape))
}

// Every dtype compiles: float32; bfloat16 stored as the float32 of the value (computed in
// float32, rounded to bfloat16 after every op that can leave it, as the TPU's vector unit
// does); booleans stored as 1.0 / 0.0; and int32 stored as the float32 of the integer (exact
// up to ±2^24, which the runtime checks at the program's inputs and outputs; docs/compiler.md).

/// Whether a primitive with a bfloat16 result can compute a value bfloat16 does not hold (so
/// its result is rounded): not the data movement, not the sign operations, not picking one of
/// the operands (max, min, select), not rounding to an integer.
fn may_leave_bf16(prim: &Primitive) -> bool {
    match prim {
        Primitive::Unary(u) => !matches!(
            u,
            UnaryOp::Copy
                | UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Sign
                | UnaryOp::Floor
                | UnaryOp::Ceil
                | UnaryOp::Round
                | UnaryOp::RoundEven
        ),
        Primitive::Binary(b) => !matches!(b, BinaryOp::Max | BinaryOp::Min),
        Primitive::DotGeneral { .. }
        | Primitive::ReduceSum { .. }
        | Primitive::IntegerPow { .. }
        | Primitive::Cumsum { .. }
        | Primitive::Iota { .. } => true,
        _ => false,
    }
}

/// A float rounded toward zero, as XLA converts float to int: ceil below zero, floor above,
/// then + 0.0 (ceil(-0.5) is -0.0, which no integer is).
fn toward_zero(g: &mut Graph, v: ValueId, shape: Vec<usize>) -> ValueId {
    let zero = g.add(Op::Constant(0.0), vec![], vec![]);
    let negative = g.add(Op::Compare(CompareOp::Lt), vec![v, zero], shape.clone());
    g.instrs[negative].elem = Elem::Pred;
    let floor = g.add(Op::Unary(UnaryOp::Floor), vec![v], shape.clone());
    let ceil = g.add(Op::Unary(UnaryOp::Ceil), vec![v], shape.clone());
    let trunc = g.add(Op::Select, vec![negative, floor, ceil], shape.clone());
    g.add(Op::Binary(BinaryOp::Add), vec![trunc, zero], shape)
}

/// `v` over `shape` when it is a scalar there (a select's operands share its shape).
fn broadcast_scalar(g: &mut Graph, v: ValueId, shape: &[usize]) -> ValueId {
    if g.instrs[v].shape == shape {
        return v;
    }
    let elem = g.instrs[v].elem;
    let b = g.add(Op::Broadcast { dims: vec![] }, vec![v], shape.to_vec());
    g.instrs[b].elem = elem;
    b
}

/// `v` rounded to bfloat16: a constant folded, anything else an [`Op::ToBf16`].
fn to_bf16(g: &mut Graph, v: ValueId) -> ValueId {
    if let Some(x) = g.constant_value(v).filter(|_| g.instrs[v].shape.is_empty()) {
        let rounded = jaxlite::Array::from_f32(vec![], vec![x]).astype(DType::BF16).to_f32_vec()[0];
        return g.add(Op::Constant(rounded), vec![], vec![]);
    }
    let shape = g.instrs[v].shape.clone();
    g.add(Op::ToBf16, vec![v], shape)
}

/// An element type as XLA prints it. Every element is one 32-bit word holding a float32: a
/// `pred` is 1.0 or 0.0, an `s32` the integer's exact float32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    F32,
    Bf16,
    Pred,
    S32,
    /// The bits of a uint32 (keys, whose last axis of two words the machine stores, and
    /// random bits): only moved and combined by the vector unit's uint32 operations.
    U32,
}

impl Elem {
    pub fn of(dtype: DType) -> Elem {
        match dtype {
            DType::Bool => Elem::Pred,
            DType::I32 => Elem::S32,
            DType::BF16 => Elem::Bf16,
            DType::F32 => Elem::F32,
            DType::U32 | DType::Key => Elem::U32,
            // Never reached: `compile_stages` refuses the host's 64-bit types.
            DType::I64 => Elem::S32,
            DType::F64 => Elem::F32,
        }
    }

    /// How HBM holds it: bf16 packed two to a word, every other type a word each.
    pub fn in_hbm(self) -> isa::ElemType {
        match self {
            Elem::Bf16 => isa::ElemType::Bf16,
            _ => isa::ElemType::F32,
        }
    }

    /// Bytes per element as JAX counts them (the machine holds every element in a word).
    pub fn bytes(self) -> usize {
        match self {
            Elem::Pred => 1,
            Elem::Bf16 => 2,
            Elem::F32 | Elem::S32 | Elem::U32 => 4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::Bf16 => "bf16",
            Elem::Pred => "pred",
            Elem::S32 => "s32",
            Elem::U32 => "u32",
        }
    }
}

fn list(v: &[usize]) -> String {
    v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",")
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "HloModule {}", self.name)?;
        for (v, i) in self.instrs.iter().enumerate() {
            let operands: Vec<String> = i.operands.iter().map(|&o| format!("%{}", self.value_name(o))).collect();
            let args = match &i.op {
                Op::Parameter(n) => n.to_string(),
                Op::Constant(x) if i.elem == Elem::U32 => format!("{}", x.to_bits()),
                Op::Constant(x) => format!("{x}"),
                _ => operands.join(", "),
            };
            let attrs = match &i.op {
                Op::Dot { precision } => {
                    format!(", lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}, precision={}", precision.name())
                }
                Op::Broadcast { dims } => format!(", dimensions={{{}}}", list(dims)),
                Op::Compare(c) => format!(", direction={}", c.name().to_uppercase()),
                Op::Transpose { permutation } => format!(", dimensions={{{}}}", list(permutation)),
                Op::Reduce { op, axes } => {
                    let f = ["add", "maximum", "minimum"][*op as usize];
                    format!(", dimensions={{{}}}, to_apply={f}", list(axes))
                }
                Op::Concatenate { dimension } => format!(", dimensions={{{dimension}}}"),
                Op::Reverse { dims } => format!(", dimensions={{{}}}", list(dims)),
                Op::Iota { dimension } => format!(", iota_dimension={dimension}"),
                Op::UpdateSlice { start } => format!(", start={{{}}}", list(start)),
                Op::Slice { start, strides } => {
                    let axes: Vec<String> = (0..i.shape.len())
                        .map(|d| format!("[{}:{}:{}]", start[d], start[d] + i.shape[d] * strides[d], strides[d]))
                        .collect();
                    format!(", slice={{{}}}", axes.join(", "))
                }
                Op::Pad { low, interior } => {
                    let src = &self.instrs[i.operands[0]].shape;
                    let axes: Vec<String> = (0..i.shape.len())
                        .map(|d| {
                            // The elements span (n - 1)·(interior + 1) + 1 positions.
                            let span = if src[d] == 0 { 0 } else { (src[d] as i64 - 1) * (interior[d] as i64 + 1) + 1 };
                            let high = i.shape[d] as i64 - low[d] - span;
                            match interior[d] {
                                0 => format!("{}_{high}", low[d]),
                                k => format!("{}_{high}_{k}", low[d]),
                            }
                        })
                        .collect();
                    format!(", padding={}", axes.join("x"))
                }
                _ => String::new(),
            };
            let root = if self.outputs.contains(&v) { "ROOT " } else { "" };
            writeln!(
                f,
                "  {root}%{} = {} {}({args}){attrs}",
                self.value_name(v),
                shape_text(i.elem, &i.shape),
                i.opcode()
            )?;
        }
        Ok(())
    }
}

/// Builds the graph of `jaxpr` (inputs: constvars then invars).
pub fn from_jaxpr(name: &str, jaxpr: &Jaxpr, default_precision: Precision) -> Result<Graph, CompileError> {
    let mut g = Graph { name: name.to_string(), instrs: vec![], params: vec![], outputs: vec![] };
    let mut values: HashMap<Var, ValueId> = HashMap::new();
    for (i, v) in jaxpr.all_inputs().enumerate() {
        let aval = jaxpr.aval(v);
        // A typed key is passed as its two words.
        let mut shape = aval.shape.clone();
        if aval.dtype == DType::Key {
            shape.push(2);
        }
        let id = g.add(Op::Parameter(i), vec![], shape);
        g.instrs[id].elem = Elem::of(aval.dtype);
        g.params.push(id);
        values.insert(v, id);
    }
    for (index, eqn) in jaxpr.eqns.iter().enumerate() {
        let at = |m: String| CompileError { message: format!("equation {index} ({}): {m}", eqn.prim.name()) };
        let mut ins = Vec::new();
        for a in &eqn.inputs {
            ins.push(match a {
                Atom::Var(v) => values[v],
                Atom::Literal(l) => literal(&mut g, l),
            });
        }
        let out_aval = jaxpr.aval(eqn.outputs[0]);
        let shape = out_aval.shape.clone();
        let first_new = g.instrs.len();
        let words = |d: DType| matches!(d, DType::U32 | DType::Key);
        let first = eqn.inputs.first().map_or(out_aval.dtype, |a| jaxpr.atom_aval(a).dtype);
        if (words(out_aval.dtype) || eqn.inputs.iter().any(|a| words(jaxpr.atom_aval(a).dtype)))
            && !moves_or_makes_bits(&eqn.prim, first)
        {
            return Err(at(format!("{} of uint32 values is not supported by the compiler yet", eqn.prim.name())));
        }
        let id = match &eqn.prim {
            // A typed key is its two words, as the raw key it wraps.
            Primitive::RandomWrap | Primitive::RandomUnwrap => ins[0],
            Primitive::RandomSeed => expand::random_seed(&mut g, ins[0]),
            Primitive::RandomBits { shape: draw } => expand::random_bits(&mut g, ins[0], draw),
            Primitive::RandomSplit { shape: draw } => expand::random_split(&mut g, ins[0], draw),
            Primitive::RandomFoldIn => expand::random_fold_in(&mut g, ins[0], ins[1]),
            // uint32 bits read as float32, and float32 as its bits: the same words.
            Primitive::BitcastConvertType { new_dtype: DType::F32 | DType::U32 }
                if matches!((first, out_aval.dtype), (DType::U32, DType::F32) | (DType::F32, DType::U32)) =>
            {
                g.add(Op::Convert, ins, shape)
            }
            Primitive::BitcastConvertType { .. } => {
                return Err(at("only bitcasts between uint32 and float32 are supported by the compiler yet".into()));
            }
            Primitive::ConvertElementType { new_dtype: DType::U32, .. } => g.add(Op::ToU32, ins, shape),
            Primitive::ConvertElementType { new_dtype: DType::I32, .. } if first == DType::U32 => {
                g.add(Op::FromU32, ins, shape)
            }
            Primitive::Unary(UnaryOp::ErfInv) => expand::erf_inv(&mut g, ins[0], shape),
            // The vector unit compares uint32 bits for equality and order; the rest swap the
            // operands or negate (x == 0 of the 1.0/0.0 result).
            Primitive::Compare(c) if first == DType::U32 => {
                let (op, swap, negate) = match c {
                    CompareOp::Eq => (CompareOp::Eq, false, false),
                    CompareOp::Ne => (CompareOp::Eq, false, true),
                    CompareOp::Lt => (CompareOp::Lt, false, false),
                    CompareOp::Gt => (CompareOp::Lt, true, false),
                    CompareOp::Le => (CompareOp::Lt, true, true),
                    CompareOp::Ge => (CompareOp::Lt, false, true),
                };
                let operands = if swap { vec![ins[1], ins[0]] } else { ins };
                let v = g.add(Op::Compare(op), operands, shape.clone());
                if negate {
                    g.instrs[v].elem = Elem::Pred;
                    let zero = g.add(Op::Constant(0.0), vec![], vec![]);
                    g.add(Op::Compare(CompareOp::Eq), vec![v, zero], shape)
                } else {
                    v
                }
            }
            Primitive::Compare(c) => g.add(Op::Compare(*c), ins, shape),
            Primitive::SelectN if ins.len() == 3 && jaxpr.atom_aval(&eqn.inputs[0]).dtype == DType::Bool => {
                g.add(Op::Select, ins, shape)
            }
            Primitive::ConvertElementType { new_dtype, .. } => {
                let from = jaxpr.atom_aval(&eqn.inputs[0]).dtype;
                match (from, *new_dtype) {
                    (a, b) if a == b => ins[0],
                    // The words already hold the value: a view, or the same constant (a view of
                    // a constant would be an output with nothing behind it).
                    (DType::Bool | DType::I32 | DType::BF16, DType::F32) | (DType::Bool, DType::I32 | DType::BF16) => {
                        let x = &g.instrs[ins[0]];
                        match (&x.op, x.operands.first().map(|&o| &g.instrs[o].op)) {
                            (Op::Constant(c), _) => g.add(Op::Constant(*c), vec![], vec![]),
                            // A constant broadcast (`jnp.full` inside a trace, then promoted):
                            // the same broadcast of the same constant, which kernels read as
                            // a scalar where they could not read it through a view.
                            (Op::Broadcast { dims }, Some(Op::Constant(c))) => {
                                let (dims, c) = (dims.clone(), *c);
                                let c = g.add(Op::Constant(c), vec![], vec![]);
                                g.add(Op::Broadcast { dims }, vec![c], shape)
                            }
                            _ => g.add(Op::Convert, ins, shape),
                        }
                    }
                    (DType::F32 | DType::I32, DType::BF16) => to_bf16(&mut g, ins[0]),
                    (DType::F32 | DType::BF16, DType::I32) => toward_zero(&mut g, ins[0], shape),
                    // x != 0, as XLA converts to pred.
                    _ => {
                        let zero = g.add(Op::Constant(0.0), vec![], vec![]);
                        g.add(Op::Compare(CompareOp::Ne), vec![ins[0], zero], shape)
                    }
                }
            }
            // Bitwise not of an int32: exclusive or with -1, on the vector unit's integer ops.
            Primitive::Unary(UnaryOp::Not) if out_aval.dtype == DType::I32 => {
                let ones = g.add(Op::Constant(-1.0), vec![], vec![]);
                let ones = broadcast_scalar(&mut g, ones, &shape);
                g.add(Op::Binary(BinaryOp::Xor), vec![ins[0], ones], shape)
            }
            Primitive::Unary(u)
                if out_aval.dtype == DType::I32
                    && !matches!(u, UnaryOp::Neg | UnaryOp::Abs | UnaryOp::Sign | UnaryOp::Square | UnaryOp::Copy) =>
            {
                return Err(at(format!("int32 {} is not supported by the compiler yet", u.name())));
            }
            // XLA elides a copy: the value is its operand's.
            Primitive::Unary(UnaryOp::Copy) => ins[0],
            Primitive::Unary(UnaryOp::Exp2) => expand::exp2(&mut g, ins[0], shape),
            Primitive::Unary(UnaryOp::Square) => g.add(Op::Binary(BinaryOp::Mul), vec![ins[0], ins[0]], shape),
            Primitive::Unary(u) => match fold(&g, Op::Unary(*u), &ins) {
                Some(x) => g.add(Op::Constant(x), vec![], vec![]),
                None => g.add(Op::Unary(*u), ins, shape),
            },
            // Logical and/or of booleans (1.0 / 0.0) are min and max.
            Primitive::Binary(BinaryOp::And) if out_aval.dtype == DType::Bool => {
                g.add(Op::Binary(BinaryOp::Min), ins, shape)
            }
            Primitive::Binary(BinaryOp::Or) if out_aval.dtype == DType::Bool => {
                g.add(Op::Binary(BinaryOp::Max), ins, shape)
            }
            Primitive::Binary(BinaryOp::Xor) if out_aval.dtype == DType::Bool => {
                g.add(Op::Compare(CompareOp::Ne), ins, shape)
            }
            // Integer division and remainder, as XLA defines them: the quotient truncated toward
            // zero (the float quotient of integers within ±2^24 never rounds across an integer:
            // it is at least 1/|b| from the next one), -1 when dividing by zero; the remainder
            // exact (fmod), the dividend itself for a zero divisor.
            Primitive::Binary(op @ (BinaryOp::Div | BinaryOp::Rem)) if out_aval.dtype == DType::I32 => {
                let value = g.add(Op::Binary(*op), ins.clone(), shape.clone());
                let value = if *op == BinaryOp::Div { toward_zero(&mut g, value, shape.clone()) } else { value };
                let zero = g.add(Op::Constant(0.0), vec![], vec![]);
                let by_zero = g.add(Op::Compare(CompareOp::Eq), vec![ins[1], zero], g.instrs[ins[1]].shape.clone());
                g.instrs[by_zero].elem = Elem::Pred;
                let by_zero = broadcast_scalar(&mut g, by_zero, &shape);
                let instead = if *op == BinaryOp::Div { g.add(Op::Constant(-1.0), vec![], vec![]) } else { ins[0] };
                let instead = broadcast_scalar(&mut g, instead, &shape);
                g.add(Op::Select, vec![by_zero, value, instead], shape)
            }
            Primitive::Binary(BinaryOp::Pow) if out_aval.dtype == DType::I32 => {
                expand::int_pow(&mut g, ins[0], ins[1], shape)
            }
            // Integer arithmetic is float arithmetic on exact values, for the ops whose float
            // result is the integer result (within ±2^24).
            Primitive::Binary(b)
                if out_aval.dtype == DType::I32
                    && !b.is_bitwise()
                    && !matches!(b, BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::Max | BinaryOp::Min) =>
            {
                return Err(at(format!("int32 {} is not supported by the compiler yet", b.name())));
            }
            Primitive::Iota { dimension, .. } => g.add(Op::Iota { dimension: *dimension }, vec![], shape),
            Primitive::ArgReduce { axis, is_max, .. } => expand::arg_reduce(&mut g, ins[0], *axis, *is_max, shape),
            Primitive::Binary(BinaryOp::Pow) => expand::pow(&mut g, ins[0], ins[1], shape),
            Primitive::Cumsum { axis, reverse } => expand::cumsum(&mut g, ins[0], *axis, *reverse),
            Primitive::Binary(BinaryOp::Atan2) => expand::atan2(&mut g, ins[0], ins[1], shape),
            // XLA's algebraic simplifier (on every backend, TPU included) divides by a
            // constant or a broadcast as a multiplication by its reciprocal: `A / C` is
            // `A * (1/C)` and `A / broadcast(B)` is `A * broadcast(1/B)`, the reciprocals taken
            // once, before the broadcast. So JAX prints 0.90000004 for `9 / 10`, and softmax and
            // normalisations (divided by a broadcast sum or norm) round as it does. float32
            // only: bfloat16 divisions reach the simplifier as float32 ones of converted
            // operands, and JAX divides them truly.
            Primitive::Binary(BinaryOp::Div) if out_aval.dtype == DType::F32 && g.constant_value(ins[0]).is_none() => {
                match spread(&g, ins[1], &shape) {
                    Some((source, dims)) => {
                        let one = g.add(Op::Constant(1.0), vec![], vec![]);
                        let source_shape = g.instrs[source].shape.clone();
                        let reciprocal = match fold(&g, Op::Binary(BinaryOp::Div), &[one, source]) {
                            Some(r) => g.add(Op::Constant(r), vec![], vec![]),
                            None => g.add(Op::Binary(BinaryOp::Div), vec![one, source], source_shape.clone()),
                        };
                        let reciprocal = if source_shape.is_empty() {
                            reciprocal
                        } else {
                            g.add(Op::Broadcast { dims }, vec![reciprocal], shape.clone())
                        };
                        g.add(Op::Binary(BinaryOp::Mul), vec![ins[0], reciprocal], shape)
                    }
                    None => g.add(Op::Binary(BinaryOp::Div), ins, shape),
                }
            }
            Primitive::Binary(b) => match fold(&g, Op::Binary(*b), &ins) {
                Some(x) => g.add(Op::Constant(x), vec![], vec![]),
                None => g.add(Op::Binary(*b), ins, shape),
            },
            Primitive::DotGeneral { dims, precision, .. } => {
                // Canonical form: lhs (B,M,K), rhs (B,K,N) (no B without batch dimensions):
                // transpose each operand to batch, free, contracting order (rhs: batch,
                // contracting, free), then reshape, multiply, and reshape to JAX's result
                // shape (batch, lhs free, rhs free), which is (B,M,N)'s row-major order.
                let lhs = canonical_operand(&mut g, ins[0], &dims.lhs_batch, &dims.lhs_contracting, true);
                let rhs = canonical_operand(&mut g, ins[1], &dims.rhs_batch, &dims.rhs_contracting, false);
                let (ls, rs) = (&g.instrs[lhs].shape, &g.instrs[rhs].shape);
                let mut out = ls[..ls.len() - 1].to_vec();
                out.push(rs[rs.len() - 1]);
                // bfloat16 operands need one pass whatever the precision asks: they are their
                // own bfloat16 part (as on a TPU).
                let bf16 = eqn.inputs.iter().all(|a| jaxpr.atom_aval(a).dtype == DType::BF16);
                let precision = if bf16 { Precision::Default } else { precision.unwrap_or(default_precision) };
                let dot = g.add(Op::Dot { precision }, vec![lhs, rhs], out.clone());
                if shape != out {
                    g.add(Op::Reshape, vec![dot], shape)
                } else {
                    dot
                }
            }
            // `arange(n).reshape(…)`: an iota kernels can generate (see `reshaped_iota`).
            Primitive::Reshape { .. } | Primitive::Squeeze { .. }
                if matches!(g.instrs[ins[0]].op, Op::Iota { .. })
                    && g.instrs[ins[0]].shape.len() == 1
                    && shape.len() > 1 =>
            {
                let elem = g.instrs[ins[0]].elem;
                expand::reshaped_iota(&mut g, shape, elem)
            }
            // Squeezing size-1 dimensions is a reshape; stop_gradient is the identity here
            // (it only matters to differentiation, which happened before).
            Primitive::Reshape { .. } | Primitive::Squeeze { .. } => g.add(Op::Reshape, ins, shape),
            Primitive::StopGradient | Primitive::ShardingConstraint { .. } => ins[0],
            Primitive::BroadcastInDim { broadcast_dimensions, .. } => {
                g.add(Op::Broadcast { dims: broadcast_dimensions.clone() }, ins, shape)
            }

            Primitive::Transpose { permutation } => transpose(&mut g, ins[0], permutation),
            Primitive::ReduceSum { axes } => reduce(&mut g, ins[0], ReduceOp::Sum, axes, shape),
            Primitive::ReduceMax { axes } => reduce(&mut g, ins[0], ReduceOp::Max, axes, shape),
            Primitive::ReduceMin { axes } => reduce(&mut g, ins[0], ReduceOp::Min, axes, shape),
            Primitive::Concatenate { dimension } => g.add(Op::Concatenate { dimension: *dimension }, ins, shape),
            Primitive::Rev { dimensions } => g.add(Op::Reverse { dims: dimensions.clone() }, ins, shape),
            Primitive::Slice { start_indices, strides, .. } => {
                let strides = strides.clone().unwrap_or_else(|| vec![1; shape.len()]);
                g.add(Op::Slice { start: start_indices.clone(), strides }, ins, shape)
            }
            // With constant indices (clamped into range, as XLA does) these are a slice and a
            // copy; traced indices would need addresses computed at run time.
            Primitive::DynamicSlice { .. } | Primitive::DynamicUpdateSlice => {
                let (data, indices) = if matches!(eqn.prim, Primitive::DynamicSlice { .. }) { (1, 1) } else { (2, 2) };
                let x = &g.instrs[ins[0]].shape;
                let window = if data == 1 { shape.clone() } else { g.instrs[ins[1]].shape.clone() };
                let mut start = Vec::new();
                for (axis, &i) in ins[indices..].iter().enumerate() {
                    let Some(at) = g.constant_value(i) else {
                        return Err(at(format!(
                            "{} with an index computed at run time is not supported by the compiler yet (the emulated TPU has no computed addresses yet)",
                            eqn.prim.name()
                        )));
                    };
                    start.push((at.max(0.0) as usize).min(x[axis] - window[axis]));
                }
                if data == 1 {
                    g.add(Op::Slice { start, strides: vec![1; shape.len()] }, vec![ins[0]], shape)
                } else {
                    g.add(Op::UpdateSlice { start }, vec![ins[0], ins[1]], shape)
                }
            }
            Primitive::Pad { config } => {
                let (low, interior) = config.iter().map(|&(lo, _, interior)| (lo, interior)).unzip();
                g.add(Op::Pad { low, interior }, ins, shape)
            }
            // Squares and small integer powers are multiplications (as XLA expands them).
            Primitive::IntegerPow { y } => integer_pow(&mut g, ins[0], *y, shape).map_err(at)?,
            #[allow(unreachable_patterns)]
            other => return Err(at(format!("{} is not supported by the compiler yet", other.name()))),
        };
        let id = if out_aval.dtype == DType::BF16 && may_leave_bf16(&eqn.prim) && id >= first_new {
            to_bf16(&mut g, id)
        } else {
            id
        };
        if id >= first_new {
            g.instrs[id].elem = Elem::of(out_aval.dtype);
        }
        values.insert(eqn.outputs[0], id);
    }
    for a in &jaxpr.outvars {
        let id = match a {
            Atom::Var(v) => values[v],
            Atom::Literal(l) => literal(&mut g, l),
        };
        g.outputs.push(id);
    }
    Ok(g)
}

/// A literal's constant: a uint32 one holds its bits.
fn literal(g: &mut Graph, l: &jaxlite::Literal) -> ValueId {
    if l.aval.dtype == DType::U32 {
        let c = g.add(Op::Constant(f32::from_bits(l.value as i64 as u32)), vec![], vec![]);
        g.instrs[c].elem = Elem::U32;
        return c;
    }
    g.add(Op::Constant(l.value as f32), vec![], vec![])
}

/// Whether the compiler lowers `prim` when uint32 words or keys are among its operands or
/// results (`first` is its first operand's dtype): the random primitives, data movement,
/// the uint32 operations the vector unit has, and conversions between uint32 and int32 and out
/// by bitcast.
/// Anything else would treat bits as float32 values.
fn moves_or_makes_bits(prim: &Primitive, first: DType) -> bool {
    match prim {
        Primitive::RandomWrap
        | Primitive::RandomUnwrap
        | Primitive::RandomSeed
        | Primitive::RandomBits { .. }
        | Primitive::RandomSplit { .. }
        | Primitive::RandomFoldIn
        | Primitive::BitcastConvertType { .. }
        | Primitive::SelectN
        | Primitive::Reshape { .. }
        | Primitive::Squeeze { .. }
        | Primitive::BroadcastInDim { .. }
        | Primitive::Transpose { .. }
        | Primitive::Concatenate { .. }
        | Primitive::Slice { .. }
        | Primitive::Rev { .. }
        | Primitive::StopGradient
        | Primitive::Compare(_) => true,
        Primitive::ConvertElementType { new_dtype, .. } => {
            *new_dtype == first
                || (*new_dtype == DType::U32 && matches!(first, DType::I32 | DType::Bool))
                || (*new_dtype == DType::I32 && first == DType::U32)
        }
        Primitive::Binary(b) => matches!(
            b,
            BinaryOp::Add
                | BinaryOp::Mul
                | BinaryOp::Rem
                | BinaryOp::Or
                | BinaryOp::Xor
                | BinaryOp::ShiftLeft
                | BinaryOp::ShiftRightLogical
        ),
        _ => false,
    }
}

/// A dot operand in canonical form: the lhs as (M,K) or (B,M,K), the rhs as (K,N) or (B,K,N),
/// by a transpose to batch, free, contracting order (batch, contracting, free for the rhs)
/// when the axes are not in it already, then a reshape that merges each group.
fn canonical_operand(g: &mut Graph, v: ValueId, batch: &[usize], contracting: &[usize], is_lhs: bool) -> ValueId {
    let shape = g.instrs[v].shape.clone();
    let free: Vec<usize> = (0..shape.len()).filter(|d| !batch.contains(d) && !contracting.contains(d)).collect();
    let mut order = batch.to_vec();
    if is_lhs {
        order.extend(&free);
        order.extend(contracting);
    } else {
        order.extend(contracting);
        order.extend(&free);
    }
    let size = |axes: &[usize]| axes.iter().map(|&d| shape[d]).product::<usize>();
    let (b, k, f) = (size(batch), size(contracting), size(&free));
    let mut target = if batch.is_empty() { vec![] } else { vec![b] };
    target.extend(if is_lhs { [f, k] } else { [k, f] });
    let mut v = v;
    if order.iter().enumerate().any(|(i, &d)| i != d) {
        v = transpose(g, v, &order);
    }
    if g.instrs[v].shape != target {
        v = g.add(Op::Reshape, vec![v], target);
    }
    v
}

/// A reduction in a form the kernels take: over the last axis, all leading axes, or all. Other
/// axes are reduced one contiguous run at a time, last run first: a trailing run merges into
/// one last axis and a leading run into one leading axis (reshapes, free); a run in the middle
/// moves to the end first (`(A, X, Y) → (A, Y, X)`, a transpose on the XLU).
pub(crate) fn reduce(g: &mut Graph, x: ValueId, op: ReduceOp, axes: &[usize], out: Vec<usize>) -> ValueId {
    // Reducing no axes (`jnp.sum` of a scalar) is the value itself (the jit fuzzer found that
    // it was refused).
    if axes.is_empty() {
        return x;
    }
    let shape = g.instrs[x].shape.clone();
    let rank = shape.len();
    let mut sorted = axes.to_vec();
    sorted.sort_unstable();
    let direct = sorted.len() == rank || sorted == [rank - 1] || sorted == (0..rank - 1).collect::<Vec<_>>();
    if rank <= 2 || direct {
        return g.add(Op::Reduce { op, axes: axes.to_vec() }, vec![x], out);
    }
    // Contiguous runs of reduced axes.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &d in &sorted {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == d => run.1 = d,
            _ => runs.push((d, d)),
        }
    }
    let mut v = x;
    let mut dims = shape;
    for &(first, last) in runs.iter().rev() {
        let size = |range: std::ops::Range<usize>, dims: &[usize]| dims[range].iter().product::<usize>();
        let (before, run, after) =
            (size(0..first, &dims), size(first..last + 1, &dims), size(last + 1..dims.len(), &dims));
        let reduced = if after == 1 {
            let matrix = g.add(Op::Reshape, vec![v], vec![before, run]);
            g.add(Op::Reduce { op, axes: vec![1] }, vec![matrix], vec![before])
        } else if before == 1 {
            let matrix = g.add(Op::Reshape, vec![v], vec![run, after]);
            g.add(Op::Reduce { op, axes: vec![0] }, vec![matrix], vec![after])
        } else {
            let cube = g.add(Op::Reshape, vec![v], vec![before, run, after]);
            let moved = g.add(Op::Transpose { permutation: vec![0, 2, 1] }, vec![cube], vec![before, after, run]);
            let matrix = g.add(Op::Reshape, vec![moved], vec![before * after, run]);
            g.add(Op::Reduce { op, axes: vec![1] }, vec![matrix], vec![before * after])
        };
        dims.drain(first..=last);
        v = g.add(Op::Reshape, vec![reduced], dims.clone());
    }
    debug_assert_eq!(dims, out);
    v
}

/// `x ** y` for an integer `y` by repeated squaring; negative powers divide 1 by the result.
fn integer_pow(g: &mut Graph, x: ValueId, y: i32, shape: Vec<usize>) -> Result<ValueId, String> {
    if y == 0 {
        return Err("integer_pow with exponent 0 is not supported by the compiler yet".into());
    }
    let mut result: Option<ValueId> = None;
    let mut power = x;
    let mut e = y.unsigned_abs();
    while e > 0 {
        if e & 1 == 1 {
            result = Some(match result {
                None => power,
                Some(r) => g.add(Op::Binary(BinaryOp::Mul), vec![r, power], shape.clone()),
            });
        }
        e >>= 1;
        if e > 0 {
            power = g.add(Op::Binary(BinaryOp::Mul), vec![power, power], shape.clone());
        }
    }
    let r = result.expect("y != 0 sets a bit");
    let one = |g: &mut Graph| g.add(Op::Constant(1.0), vec![], vec![]);
    if y < 0 {
        let one = one(g);
        return Ok(g.add(Op::Binary(BinaryOp::Div), vec![one, r], shape));
    }
    if r == x {
        // x ** 1 is x, but as a value of its own: multiply by 1 (exact).
        let one = one(g);
        return Ok(g.add(Op::Binary(BinaryOp::Mul), vec![x, one], shape));
    }
    Ok(r)
}

/// Folds an operation on scalar constants (the `1 / n` of a mean's gradient, say) when the
/// host computes exactly what the vector unit would: operations IEEE 754 defines exactly, and
/// a division whose result is normal (the vector unit rounds those correctly too). NaN results
/// are left to the machine (it has one canonical NaN).
fn fold(g: &Graph, op: Op, ins: &[ValueId]) -> Option<f32> {
    if ins.iter().any(|&v| g.instrs[v].elem == Elem::U32) {
        return None;
    }
    let c: Vec<f32> = ins
        .iter()
        .map(|&v| match g.instrs[v].op {
            Op::Constant(x) if g.instrs[v].shape.is_empty() => Some(x),
            _ => None,
        })
        .collect::<Option<_>>()?;
    let x = match (op, c.as_slice()) {
        (Op::Unary(UnaryOp::Neg), [a]) => -a,
        (Op::Unary(UnaryOp::Abs), [a]) => a.abs(),
        (Op::Binary(BinaryOp::Add), [a, b]) => a + b,
        (Op::Binary(BinaryOp::Sub), [a, b]) => a - b,
        (Op::Binary(BinaryOp::Mul), [a, b]) => a * b,
        (Op::Binary(BinaryOp::Div), [a, b]) if (a / b).is_normal() => a / b,
        // Exact (fmod), as the vector unit computes it.
        (Op::Binary(BinaryOp::Rem), [a, b]) => a % b,
        _ => return None,
    };
    (!x.is_nan()).then_some(x)
}

/// A divisor that XLA's simplifier divides by through its reciprocal: a constant, or a value
/// broadcast to `shape` (by a broadcast, or as a rank-0 operand of a larger op). Returns what
/// is broadcast and the broadcast's dimensions (none for a scalar).
fn spread(g: &Graph, divisor: ValueId, shape: &[usize]) -> Option<(ValueId, Vec<usize>)> {
    let instr = &g.instrs[divisor];
    match &instr.op {
        Op::Constant(_) => Some((divisor, vec![])),
        Op::Broadcast { dims } => Some((instr.operands[0], dims.clone())),
        _ if instr.shape.is_empty() && !shape.is_empty() => Some((divisor, vec![])),
        _ => None,
    }
}

/// A transpose with its size-1 axes dropped and the axes that stay adjacent (in order) merged:
/// the source's merged shape and the permutation of the merged axes. `(2,3,4)` by `(0,2,1)` stays
/// as it is; `(2,3,4,5)` by `(2,3,0,1)` becomes `(6,20)` by `(1,0)`.
pub fn merge_transpose(shape: &[usize], permutation: &[usize]) -> (Vec<usize>, Vec<usize>) {
    let kept: Vec<usize> = permutation.iter().copied().filter(|&a| shape[a] != 1).collect();
    // Axes of size 1 are gone, so source axes on either side of one are neighbours: number the
    // kept axes by their position among the kept (the fuzzer found [3, 1, 2] by [0, 2, 1],
    // which moves nothing, refused as a permutation of two axes).
    let position = |a: usize| (0..a).filter(|&b| shape[b] != 1).count();
    // Runs of output axes whose source axes are consecutive.
    let mut runs: Vec<Vec<usize>> = Vec::new();
    for &a in &kept {
        match runs.last_mut() {
            Some(run) if position(*run.last().expect("runs are not empty")) + 1 == position(a) => run.push(a),
            _ => runs.push(vec![a]),
        }
    }
    // The merged source axes are the runs in source order.
    let mut by_source: Vec<usize> = (0..runs.len()).collect();
    by_source.sort_by_key(|&r| runs[r][0]);
    let dims = by_source.iter().map(|&r| runs[r].iter().map(|&a| shape[a]).product()).collect();
    let perm = (0..runs.len()).map(|r| by_source.iter().position(|&s| s == r).expect("every run")).collect();
    (dims, perm)
}

/// Whether the transpose kernels take `permutation` of `shape` as it is: after merging it is a
/// matrix transpose, a stack of them, or rows of the last axis moved as a whole.
pub fn transpose_supported(shape: &[usize], permutation: &[usize]) -> bool {
    let (_, perm) = merge_transpose(shape, permutation);
    matches!(perm.as_slice(), [] | [0] | [1, 0] | [0, 2, 1] | [1, 0, 2] | [0, 2, 1, 3])
}

/// `x` transposed by `permutation`: one transpose when the kernels take it, else a chain of
/// them, each moving one axis to the end (`(A, X, Y) → (A, Y, X)`), which any permutation is.
fn transpose(g: &mut Graph, x: ValueId, permutation: &[usize]) -> ValueId {
    let shape = g.instrs[x].shape.clone();
    let out: Vec<usize> = permutation.iter().map(|&d| shape[d]).collect();
    if transpose_supported(&shape, permutation) {
        return g.add(Op::Transpose { permutation: permutation.to_vec() }, vec![x], out);
    }
    // `order[k]` is the source axis now at position k.
    let mut order: Vec<usize> = (0..shape.len()).collect();
    let mut v = x;
    for &axis in permutation {
        let at = order.iter().position(|&a| a == axis).expect("a permutation");
        let mut step: Vec<usize> = (0..order.len()).filter(|&k| k != at).collect();
        step.push(at);
        let dims: Vec<usize> = step.iter().map(|&k| g.instrs[v].shape[k]).collect();
        v = g.add(Op::Transpose { permutation: step.clone() }, vec![v], dims);
        order = step.iter().map(|&k| order[k]).collect();
    }
    v
}
