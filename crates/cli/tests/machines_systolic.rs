//! `tpu machines`, `tpu systolic` and `tpu run --set`, as a user runs them.

use std::process::Command;

fn tpu(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tpu")).args(args).output().expect("tpu runs")
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("stdout is exactly one JSON value")
}

#[test]
fn machines_json_lists_every_preset_with_the_documented_fields() {
    let v = json(&tpu(&["machines", "--json"]));
    let list = v.as_array().unwrap();
    let names: Vec<&str> = list.iter().map(|m| m["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["v1", "v2", "v3", "v4", "v5e", "v5p", "v6e", "v5e-4", "v5e-8", "v5e-16", "v4-8", "v5p-8", "v6e-8"]
    );
    for m in list {
        for field in [
            "clock_hz",
            "mxu_rows",
            "mxu_cols",
            "mxus_per_core",
            "cores_per_chip",
            "hbm_bytes",
            "hbm_bytes_per_second",
            "vmem_bytes",
            "peak_bf16_flops_per_core",
            "peak_bf16_flops_per_chip",
            "chips",
            "ici_link_bytes_per_second",
            "ici_ports",
            "pcie_bytes_per_second",
        ] {
            assert!(m[field].is_number(), "{}: {field}", m["name"]);
        }
        assert!(m["topology"].is_array() && m["wraparound"].is_array(), "{}", m["name"]);
    }
    let v5e8 = &list[8];
    assert_eq!(v5e8["name"], "v5e-8");
    assert_eq!(v5e8["chips"], 8);
    assert_eq!(v5e8["topology"], serde_json::json!([2, 4]));
    assert_eq!(v5e8["wraparound"], serde_json::json!([false, false]));
    assert_eq!(v5e8["ici_link_bytes_per_second"].as_f64(), Some(45e9));
    let v5e = &list[4];
    assert_eq!(v5e["peak_bf16_flops_per_chip"].as_f64(), Some(196_608_000_000_000.0));
    assert_eq!(v5e["mxu_dtype"], "bf16");
    assert_eq!(list[0]["mxu_dtype"], "int8");
}

#[test]
fn machines_table_has_a_row_per_preset() {
    let out = tpu(&["machines"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("name"), "{text}");
    assert!(text.contains("2 × 256x256"), "{text}");
    assert!(text.contains("(int8)"), "{text}");
}

#[test]
fn set_overrides_and_errors() {
    let v = json(&tpu(&["machines", "--json", "--set", "mxu=32x32"]));
    assert_eq!(v[4]["name"], "v5e+mxu=32x32");
    assert_eq!(v[4]["mxu_rows"], 32);
    let out = tpu(&["machines", "--set", "weight_double_buffer=perhaps"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("weight_double_buffer"), "{err}");
    assert!(err.contains("true or false"), "{err}");
}

#[test]
fn systolic_matches_scale_sim_alexnet_conv1() {
    let v = json(&tpu(&[
        "systolic",
        "--rows",
        "32",
        "--cols",
        "32",
        "--dataflow",
        "ws",
        "--m",
        "3025",
        "--k",
        "363",
        "--n",
        "96",
        "--json",
    ]));
    assert_eq!(v["cycles"], 112_283);
    assert_eq!(v["folds"], 36);
    let util = v["utilization"].as_f64().unwrap();
    assert_eq!(format!("{:.2}", util * 100.0), "91.68");
    assert_eq!(v["dataflow"], "ws");
    assert_eq!(v["mapping"]["t_dim"], "M");
}

#[test]
fn systolic_text_shows_its_formulas() {
    let out =
        tpu(&["systolic", "--rows", "16", "--cols", "16", "--dataflow", "os", "--m", "100", "--k", "70", "--n", "50"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("16 + 16 + 70 − 2 = 100"), "{text}");
    assert!(text.contains("cycles:       2799"), "{text}");
    let out = tpu(&["systolic", "--rows", "0", "--cols", "16", "--m", "1", "--k", "1", "--n", "1"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("rows must be from 1"));
}

#[test]
fn run_accepts_set() {
    let script = format!("{}/../../tests/scripts/skeleton.py", env!("CARGO_MANIFEST_DIR"));
    let v = json(&tpu(&["run", &script, "--json", "--backend", "cpu", "--set", "mxu=64x64"]));
    assert_eq!(v["machine"], "v5e+mxu=64x64");
    let out = tpu(&["run", &script, "--set", "hbm_gbps=fast"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("hbm_gbps"));
}
