//! What the compiler's end-to-end tests share: compile a traced function, run it on the CPU
//! backend and compare it bit for bit with the reference evaluator.

// Each test binary that includes this module uses a different part of it.
#![allow(dead_code)]

use compiler::{compile, CompileOptions};
use emu::CpuBackend;
use jaxlite::eval::{eval_jaxpr_with, Arithmetic, ReferenceExecutor};
use jaxlite::{Array, Aval, ClosedJaxpr, Context, DType, Precision, Tensor};

pub fn opts(precision: Precision) -> CompileOptions {
    CompileOptions { mxu_rows: 128, mxu_cols: 128, mxus: 4, vmem_words: 32 << 20, default_precision: precision }
}

/// A deterministic spread of values in [-2, 2) with all bits of the mantissa in play.
pub fn values(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s as f32 / u32::MAX as f32) * 4.0 - 2.0
        })
        .collect()
}

/// Traces `f` over arguments of `avals`.
pub fn trace_avals(avals: &[Aval], f: impl AsyncFnOnce(&mut Context, Vec<Tensor>) -> Tensor) -> ClosedJaxpr {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    pollster::block_on(async {
        let args = ctx.begin_trace(avals);
        let y = f(&mut ctx, args).await;
        ctx.end_trace(&[y]).unwrap()
    })
}

/// Traces `f` over float32 arguments of `shapes`.
pub fn trace(shapes: &[&[usize]], f: impl AsyncFnOnce(&mut Context, Vec<Tensor>) -> Tensor) -> ClosedJaxpr {
    let avals: Vec<Aval> = shapes.iter().map(|s| Aval::new(s.to_vec(), DType::F32)).collect();
    trace_avals(&avals, f)
}

/// Compiles `closed`, runs it on `inputs`, and checks it bit for bit against the reference
/// evaluator; returns the program's text.
pub fn check_with(closed: &ClosedJaxpr, precision: Precision, inputs: &[Array]) -> String {
    let program = compile("f", &closed.jaxpr, &opts(precision)).unwrap_or_else(|e| panic!("{e}\n{}", closed.jaxpr));
    let bits: Vec<Vec<u32>> = inputs.iter().map(|a| a.to_f32_vec().iter().map(|f| f.to_bits()).collect()).collect();
    let out = CpuBackend.run_sync(&program, &bits).unwrap();
    let want = eval_jaxpr_with(&closed.jaxpr, inputs, precision, Arithmetic::Tpu).unwrap()[0].to_f32_vec();
    let want: Vec<u32> = want.iter().map(|f| f.to_bits()).collect();
    assert_eq!(out[0], want, "{precision:?}\n{}\n{program}", closed.jaxpr);
    program.to_string()
}

/// `check_with` on float32 inputs of spread values.
pub fn check(closed: &ClosedJaxpr, precision: Precision) -> String {
    let inputs: Vec<Array> = closed
        .jaxpr
        .invars
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let shape = closed.jaxpr.aval(v).shape.clone();
            Array::from_f32(shape.clone(), values(shape.iter().product(), i as u32 + 1))
        })
        .collect();
    check_with(closed, precision, &inputs)
}
