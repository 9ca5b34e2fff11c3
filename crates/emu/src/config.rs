//! Machine descriptions. The timing model reads nothing but these numbers.

use serde::Serialize;

/// One TPU machine: what a program running on one TensorCore sees.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TpuConfig {
    pub name: String,
    pub clock_hz: f64,
    pub cores_per_chip: u32,
    pub mxus_per_core: u32,
    pub mxu_rows: u32,
    pub mxu_cols: u32,
    pub hbm_bytes: u64,
    pub hbm_bytes_per_second: f64,
    pub vmem_bytes: u64,
    /// Vector registers are `sublanes × lanes` words; the vector unit processes one per cycle.
    pub vector_sublanes: u32,
    pub vector_lanes: u32,
    /// Cycles from issuing a DMA to its first byte arriving.
    pub dma_latency_cycles: u64,
    /// Cycles per vector register for ops on the transcendental path.
    pub transcendental_cycles: u64,
}

impl TpuConfig {
    /// TPU v5e: one TensorCore per chip with four 128×128 MXUs at 1.5 GHz, 16 GiB of HBM at
    /// 819 GB/s. Peak: 4 × 128 × 128 × 2 × 1.5e9 = 196.6 TFLOP/s bf16 (published: 197).
    pub fn v5e() -> TpuConfig {
        TpuConfig {
            name: "v5e".into(),
            clock_hz: 1.5e9,
            cores_per_chip: 1,
            mxus_per_core: 4,
            mxu_rows: 128,
            mxu_cols: 128,
            hbm_bytes: 16 << 30,
            hbm_bytes_per_second: 819e9,
            vmem_bytes: 128 << 20,
            vector_sublanes: 8,
            vector_lanes: 128,
            dma_latency_cycles: 500,
            transcendental_cycles: 4,
        }
    }

    /// The presets by name.
    pub fn preset(name: &str) -> Option<TpuConfig> {
        match name {
            "v5e" => Some(TpuConfig::v5e()),
            _ => None,
        }
    }

    pub fn preset_names() -> &'static [&'static str] {
        &["v5e"]
    }

    pub fn hbm_bytes_per_cycle(&self) -> f64 {
        self.hbm_bytes_per_second / self.clock_hz
    }

    pub fn peak_bf16_flops_per_core(&self) -> f64 {
        self.mxus_per_core as f64
            * self.mxu_rows as f64
            * self.mxu_cols as f64
            * 2.0
            * self.clock_hz
    }

    pub fn vector_words(&self) -> u64 {
        self.vector_sublanes as u64 * self.vector_lanes as u64
    }
}
