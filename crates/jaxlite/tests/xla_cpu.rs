//! The reference evaluator's float32 math against what JAX's CPU backend returned
//! (`tests/jax/xla_cpu_math.json`, written by `tests/jax/xla_cpu_math.py`): transcendental
//! functions at inputs where libm gives another last bit, and sums in XLA's order.

use jaxlite::array::{Array, Data};
use jaxlite::eval::apply;
use jaxlite::prim::{Precision, Primitive, UnaryOp};
use serde_json::Value;

fn cases() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/jax/xla_cpu_math.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("tests/jax/xla_cpu_math.json")).expect("JSON")
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array().expect("list").iter().map(|b| f32::from_bits(b.as_u64().expect("bits") as u32)).collect()
}

fn same(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[test]
fn transcendental_functions_match_jax_bit_for_bit() {
    let cases = cases();
    let ops = [
        ("exp", UnaryOp::Exp),
        ("log", UnaryOp::Log),
        ("log1p", UnaryOp::Log1p),
        ("expm1", UnaryOp::Expm1),
        ("exp2", UnaryOp::Exp2),
        ("tanh", UnaryOp::Tanh),
        ("erf", UnaryOp::Erf),
        ("logistic", UnaryOp::Logistic),
    ];
    for (name, op) in ops {
        let case = &cases["functions"][name];
        let (x, want) = (floats(&case["x"]), floats(&case["y"]));
        assert!(x.len() > 100, "{name}: too few cases");
        // As one array, the way JAX computed them (XLA's vector kernel).
        let input = Array::new(vec![x.len()], Data::F32(x.clone()));
        let got = apply(&Primitive::Unary(op), &[input], Precision::Highest).unwrap().to_f32_vec();
        let wrong: Vec<String> = (0..x.len())
            .filter(|&i| !same(got[i], want[i]))
            .map(|i| format!("{name}({:e}) = {:e}, JAX {:e}", x[i], got[i], want[i]))
            .collect();
        assert!(wrong.is_empty(), "{} of {}:\n{}", wrong.len(), x.len(), wrong.join("\n"));
    }
}

#[test]
fn float32_sums_add_in_xlas_order() {
    for case in cases()["sums"].as_array().unwrap() {
        let shape: Vec<usize> =
            case["shape"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        let axes: Vec<usize> = case["axes"].as_array().unwrap().iter().map(|d| d.as_u64().unwrap() as usize).collect();
        let input = Array::new(shape.clone(), Data::F32(floats(&case["x"])));
        let got =
            apply(&Primitive::ReduceSum { axes: axes.clone() }, &[input], Precision::Highest).unwrap().to_f32_vec();
        let want = floats(&case["y"]);
        let wrong = got.iter().zip(&want).filter(|(g, w)| !same(**g, **w)).count();
        assert_eq!(wrong, 0, "sum over {axes:?} of {shape:?}: {wrong} of {} differ from JAX", want.len());
    }
}
