//! `tpu machines`: the machine presets as a table or JSON, and building a run's machine from
//! `--machine` and `--set`.

use emu::{MxuDtype, TpuConfig};
use std::fmt::Write;

/// The machine for `tpu run`: a preset (or custom name, `v5e+mxu=32x32`) with `--set`
/// overrides applied in order.
pub fn build(machine: &str, sets: &[String]) -> Result<TpuConfig, String> {
    let mut cfg = TpuConfig::from_name(machine).map_err(|e| e.to_string())?;
    for s in sets {
        cfg.with_override(s).map_err(|e| format!("--set {s}: {e}"))?;
    }
    Ok(cfg)
}

/// One row per machine: what the emulator's timing reads, in the units Google publishes.
pub fn table(machines: &[TpuConfig]) -> String {
    let header = [
        "name",
        "cores",
        "MXUs/core",
        "clock GHz",
        "HBM GiB",
        "HBM GB/s",
        "VMEM MiB",
        "peak TFLOP/s/chip",
        "weight dbuf",
        "chips",
        "ICI GB/s/link",
    ];
    let rows: Vec<[String; 11]> = machines
        .iter()
        .map(|m| {
            let peak = format!("{:.1}", m.peak_ops_per_chip() / 1e12);
            [
                m.name.clone(),
                m.cores_per_chip.to_string(),
                format!("{} × {}x{}", m.mxus_per_core, m.mxu_rows, m.mxu_cols),
                format!("{:.3}", m.clock_hz / 1e9),
                trim(m.hbm_bytes as f64 / (1u64 << 30) as f64),
                trim(m.hbm_bytes_per_second / 1e9),
                trim(m.vmem_bytes as f64 / (1u64 << 20) as f64),
                match m.mxu_dtype {
                    MxuDtype::Bf16 => peak,
                    MxuDtype::Int8 => format!("{peak} (int8)"),
                },
                if m.weight_double_buffer { "yes" } else { "no" }.into(),
                match m.chips() {
                    1 => "1".into(),
                    n => {
                        let dims: Vec<String> = m.topology.iter().map(u32::to_string).collect();
                        format!("{n} ({})", dims.join("x"))
                    }
                },
                trim(m.ici_link_bytes_per_second / 1e9),
            ]
        })
        .collect();
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).chain([header[c].len()]).max().unwrap_or(0);
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut l = String::new();
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                // Names left-aligned, numbers right-aligned.
                let _ = write!(l, "{cell}{}", " ".repeat(pad));
            } else {
                let _ = write!(l, "  {}{cell}", " ".repeat(pad));
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(&header.map(String::from));
    for r in &rows {
        line(r);
    }
    out.push_str(
        "\nPeaks are bf16 FLOP/s per chip (cores × MXUs × rows × cols × 2 × clock); v1 has no \
         bf16, its figure is int8 op/s.\nHBM is per chip (v1: DDR3); VMEM is per TensorCore. \
         Sources: docs/machines.md.\n",
    );
    out
}

/// A number without trailing zeros: 16, 0.5, 2765.
fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// A JSON array with one object per machine (documented in docs/machines.md).
pub fn json(machines: &[TpuConfig]) -> String {
    let summaries: Vec<_> = machines.iter().map(TpuConfig::summary).collect();
    serde_json::to_string(&summaries).expect("a machine always serializes")
}

/// A finite f64 as a JSON number (every machine field is validated finite and positive).
pub fn num(v: f64) -> String {
    if v.is_finite() {
        format!("{v}")
    } else {
        "null".into()
    }
}

/// A JSON string literal.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
