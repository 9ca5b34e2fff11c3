//! Machine descriptions. The timing model reads nothing but these numbers.
//!
//! Every preset's figures and their sources are listed in `docs/machines.md`; the doc comment on
//! each preset repeats the peak arithmetic so a reader can check it without leaving the code.
//! Chip-level figures (HBM capacity and bandwidth, peak) are stored as Google publishes them, per
//! chip; what one TensorCore sees (the emulator runs a program on one core) comes from the
//! `*_per_core` methods.

use serde::Serialize;
use std::fmt;

/// The operand type the MXU multiplies natively.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MxuDtype {
    /// bf16 operands, f32 accumulation: TPU v2 and later.
    Bf16,
    /// 8-bit integer operands, 32-bit accumulation: TPU v1, an inference chip without floating
    /// point in its matrix unit. The emulator still runs bf16 programs on it, at the int8 MAC
    /// rate (see `docs/machines.md`).
    Int8,
}

impl MxuDtype {
    pub fn name(self) -> &'static str {
        match self {
            MxuDtype::Bf16 => "bf16",
            MxuDtype::Int8 => "int8",
        }
    }
}

/// One TPU machine: a chip, and what a program running on one of its TensorCores sees.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TpuConfig {
    /// The preset's name, followed by `+key=value` for each override (`v5e+mxu=32x32`).
    pub name: String,
    pub clock_hz: f64,
    pub cores_per_chip: u32,
    pub mxus_per_core: u32,
    pub mxu_rows: u32,
    pub mxu_cols: u32,
    /// What the MXU multiplies natively; `Int8` only on v1.
    pub mxu_dtype: MxuDtype,
    /// Whether the MXU holds a second set of weights, so the next tile's weights shift in while
    /// the current tile computes (v1's "one 64 KiB tile of weights plus one for double
    /// buffering"). Without it a weight load stalls the array for `mxu_rows` cycles.
    pub weight_double_buffer: bool,
    /// HBM (DDR3 on v1) capacity of the whole chip, as published.
    pub hbm_bytes: u64,
    /// HBM bandwidth of the whole chip, as published; see [`TpuConfig::hbm_bytes_per_cycle`].
    pub hbm_bytes_per_second: f64,
    /// On-chip vector memory of one TensorCore (v1: its 24 MiB Unified Buffer).
    pub vmem_bytes: u64,
    /// Vector registers are `sublanes × lanes` words; the vector unit processes one per cycle.
    pub vector_sublanes: u32,
    pub vector_lanes: u32,
    /// Cycles from issuing a DMA to its first byte arriving (a model parameter, not published).
    pub dma_latency_cycles: u64,
    /// Cycles per vector register for ops on the transcendental path (a model parameter).
    pub transcendental_cycles: u64,
    /// Cycles from a `s.load` issuing to its word reaching the scalar unit, during which issue
    /// waits (a model parameter).
    pub scalar_load_cycles: u64,
    /// Cycles issue loses at a data-dependent branch (`while`, `if`): the scalar pipeline
    /// refilling (a model parameter).
    pub branch_cycles: u64,
    /// The slice's chips along each torus axis, x first (`[2, 4]` for a v5e-8; `[1, 1]` for one
    /// v5e chip, `[1, 1, 1]` for one chip of a generation with a 3D torus). Chip `i` sits at
    /// the coordinates of `i` counted x fastest, as JAX numbers a slice's devices.
    pub topology: Vec<u32>,
    /// Whether each axis of `topology` closes into a ring (a torus) or stays a line (a mesh).
    /// Set by the generation's rule (see [`TpuConfig::wraparound_for`]); a line roughly doubles
    /// a collective's time along that axis.
    pub wraparound: Vec<bool>,
    /// One ICI link's bandwidth in one direction. A chip's neighbour along an axis is one link
    /// away; "bidirectional" figures are twice this.
    pub ici_link_bytes_per_second: f64,
    /// ICI ports per chip: 4 on a 2D-torus generation, 6 on a 3D one.
    pub ici_ports: u32,
    /// What one hop over an ICI link costs regardless of the bytes (the scaling book's "around
    /// 1us"; a model parameter, not a datasheet figure).
    pub ici_hop_seconds: f64,
    /// The host ↔ chip PCIe bandwidth, per chip, each way.
    pub pcie_bytes_per_second: f64,
}

/// A machine as reports describe it: its fields plus the figures derived from them (the JSON of
/// `tpu machines --json` and of a run's `machine_info`, documented in docs/machines.md).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MachineSummary {
    pub name: String,
    pub clock_hz: f64,
    pub cores_per_chip: u32,
    pub mxus_per_core: u32,
    pub mxu_rows: u32,
    pub mxu_cols: u32,
    pub mxu_dtype: &'static str,
    pub weight_double_buffer: bool,
    pub hbm_bytes: u64,
    pub hbm_bytes_per_second: f64,
    pub hbm_bytes_per_second_per_core: f64,
    pub hbm_bytes_per_cycle: f64,
    pub vmem_bytes: u64,
    pub vector_sublanes: u32,
    pub vector_lanes: u32,
    pub dma_latency_cycles: u64,
    pub transcendental_cycles: u64,
    pub scalar_load_cycles: u64,
    pub branch_cycles: u64,
    pub peak_bf16_flops_per_core: f64,
    pub peak_bf16_flops_per_chip: f64,
    pub chips: u32,
    pub topology: Vec<u32>,
    pub wraparound: Vec<bool>,
    pub ici_link_bytes_per_second: f64,
    pub ici_ports: u32,
    pub ici_hop_seconds: f64,
    pub pcie_bytes_per_second: f64,
}

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

/// The model parameters that no generation publishes; every preset uses the same values so
/// that comparisons between machines reflect only published differences.
const DMA_LATENCY_CYCLES: u64 = 500;
const TRANSCENDENTAL_CYCLES: u64 = 4;
const SCALAR_LOAD_CYCLES: u64 = 16;
const BRANCH_CYCLES: u64 = 8;
/// The scaling book (sharding.md): "Each hop over an ICI link has some intrinsic overhead
/// regardless of the data volume. This is typically around 1us."
const ICI_HOP_SECONDS: f64 = 1e-6;
/// PCIe Gen3 x16, as the scaling book gives it for v4 ("16GB / second each way") and Norrie et
/// al. for v2 ("PCIe: 16 GB/s/chip").
const PCIE_GEN3_X16: f64 = 16e9;

impl TpuConfig {
    /// The fields every preset shares: the 8 × 128 vector register (Google Cloud's v6e page:
    /// "128 lanes x 8 sublanes"; JAX's `pltpu.get_tpu_info()` gives 8 × 128 for every generation)
    /// and the unpublished model parameters.
    fn base(name: &str) -> TpuConfig {
        TpuConfig {
            name: name.into(),
            clock_hz: 0.0,
            cores_per_chip: 1,
            mxus_per_core: 1,
            mxu_rows: 128,
            mxu_cols: 128,
            mxu_dtype: MxuDtype::Bf16,
            weight_double_buffer: true,
            hbm_bytes: 0,
            hbm_bytes_per_second: 0.0,
            vmem_bytes: 16 * MIB,
            vector_sublanes: 8,
            vector_lanes: 128,
            dma_latency_cycles: DMA_LATENCY_CYCLES,
            transcendental_cycles: TRANSCENDENTAL_CYCLES,
            scalar_load_cycles: SCALAR_LOAD_CYCLES,
            branch_cycles: BRANCH_CYCLES,
            topology: vec![1, 1],
            wraparound: vec![false, false],
            ici_link_bytes_per_second: 0.0,
            ici_ports: 0,
            ici_hop_seconds: ICI_HOP_SECONDS,
            pcie_bytes_per_second: 0.0,
        }
    }

    /// TPU v1 (ISCA 2017): one 256×256 int8 matrix unit at 700 MHz, 8 GiB of DDR3 at 34 GB/s,
    /// a 24 MiB Unified Buffer. Peak: 256 × 256 × 2 × 700e6 = 91.75 T int8 ops/s (published:
    /// 92 TOPS). No bf16: the emulator runs bf16 programs at the int8 rate.
    pub fn v1() -> TpuConfig {
        TpuConfig {
            clock_hz: 700e6,
            mxu_rows: 256,
            mxu_cols: 256,
            mxu_dtype: MxuDtype::Int8,
            hbm_bytes: 8 * GIB,
            hbm_bytes_per_second: 34e9,
            vmem_bytes: 24 * MIB,
            pcie_bytes_per_second: PCIE_GEN3_X16,
            topology: vec![1],
            wraparound: vec![false],
            ..TpuConfig::base("v1")
        }
    }

    /// TPU v2 (CACM 2020): two TensorCores, one 128×128 MXU each, 700 MHz, 16 GiB of HBM at
    /// 700 GB/s. Peak: 2 × 1 × 128 × 128 × 2 × 700e6 = 45.9 TFLOP/s bf16 (published: 46).
    pub fn v2() -> TpuConfig {
        TpuConfig {
            clock_hz: 700e6,
            cores_per_chip: 2,
            mxus_per_core: 1,
            hbm_bytes: 16 * GIB,
            hbm_bytes_per_second: 700e9,
            ici_link_bytes_per_second: 60e9,
            ici_ports: 4,
            pcie_bytes_per_second: PCIE_GEN3_X16,
            ..TpuConfig::base("v2")
        }
    }

    /// TPU v3 (CACM 2020): two TensorCores, two 128×128 MXUs each, 940 MHz, 32 GiB of HBM at
    /// 900 GB/s. Peak: 2 × 2 × 128 × 128 × 2 × 940e6 = 123.2 TFLOP/s bf16 (published: 123).
    pub fn v3() -> TpuConfig {
        TpuConfig {
            clock_hz: 940e6,
            cores_per_chip: 2,
            mxus_per_core: 2,
            hbm_bytes: 32 * GIB,
            hbm_bytes_per_second: 900e9,
            ici_link_bytes_per_second: 100e9,
            ici_ports: 4,
            pcie_bytes_per_second: PCIE_GEN3_X16,
            ..TpuConfig::base("v3")
        }
    }

    /// TPU v4 (ISCA 2023): two TensorCores, four 128×128 MXUs each, 1050 MHz, 32 GiB of HBM at
    /// 1200 GB/s. Peak: 2 × 4 × 128 × 128 × 2 × 1.05e9 = 275.3 TFLOP/s bf16 (published: 275).
    pub fn v4() -> TpuConfig {
        TpuConfig {
            clock_hz: 1.05e9,
            cores_per_chip: 2,
            mxus_per_core: 4,
            hbm_bytes: 32 * GIB,
            hbm_bytes_per_second: 1200e9,
            ici_link_bytes_per_second: 45e9,
            ici_ports: 6,
            topology: vec![1, 1, 1],
            wraparound: vec![false, false, false],
            pcie_bytes_per_second: PCIE_GEN3_X16,
            ..TpuConfig::base("v4")
        }
    }

    /// TPU v5e: one TensorCore per chip with four 128×128 MXUs at 1.5 GHz, 16 GiB of HBM at
    /// 819 GB/s, 128 MiB of VMEM. Peak: 4 × 128 × 128 × 2 × 1.5e9 = 196.6 TFLOP/s bf16
    /// (published: 197). The clock is derived from the published peak.
    pub fn v5e() -> TpuConfig {
        TpuConfig {
            clock_hz: 1.5e9,
            mxus_per_core: 4,
            hbm_bytes: 16 * GIB,
            hbm_bytes_per_second: 819e9,
            vmem_bytes: 128 * MIB,
            ici_link_bytes_per_second: 45e9,
            ici_ports: 4,
            pcie_bytes_per_second: 16e9,
            ..TpuConfig::base("v5e")
        }
    }

    /// TPU v5p: two TensorCores, four 128×128 MXUs each, 95 GiB of HBM2e at 2765 GB/s, 64 MiB
    /// of VMEM per core. Peak: 2 × 4 × 128 × 128 × 2 × 1.75e9 = 458.8 TFLOP/s bf16 (published:
    /// 459). The clock is derived from the published peak.
    pub fn v5p() -> TpuConfig {
        TpuConfig {
            clock_hz: 1.75e9,
            cores_per_chip: 2,
            mxus_per_core: 4,
            hbm_bytes: 95 * GIB,
            hbm_bytes_per_second: 2765e9,
            vmem_bytes: 64 * MIB,
            ici_link_bytes_per_second: 90e9,
            ici_ports: 6,
            topology: vec![1, 1, 1],
            wraparound: vec![false, false, false],
            pcie_bytes_per_second: 16e9,
            ..TpuConfig::base("v5p")
        }
    }

    /// TPU v6e (Trillium): one TensorCore with two 256×256 MXUs, 32 GiB of HBM at 1640 GB/s,
    /// 128 MiB of VMEM. Peak: 2 × 256 × 256 × 2 × 3.5e9 = 917.5 TFLOP/s bf16 (published: 918).
    /// The clock is derived from the published peak and MXU count (docs/machines.md discusses
    /// why 3.5 GHz is surprising).
    pub fn v6e() -> TpuConfig {
        TpuConfig {
            clock_hz: 3.5e9,
            mxus_per_core: 2,
            mxu_rows: 256,
            mxu_cols: 256,
            hbm_bytes: 32 * GIB,
            hbm_bytes_per_second: 1640e9,
            vmem_bytes: 128 * MIB,
            ici_link_bytes_per_second: 90e9,
            ici_ports: 4,
            pcie_bytes_per_second: 32e9,
            ..TpuConfig::base("v6e")
        }
    }

    /// The presets by name: single chips, and slices of them as Google Cloud names them (`v5e-8`:
    /// eight v5e chips; `v4-8` and `v5p-8` count TensorCores, so they are four chips).
    pub fn preset(name: &str) -> Option<TpuConfig> {
        if let Some((chip, topology)) = SLICES.iter().find(|(slice, ..)| *slice == name).map(|(_, c, t)| (c, t)) {
            let mut cfg = TpuConfig::preset(chip)?;
            cfg.set_topology(topology.to_vec()).ok()?;
            cfg.name = name.to_string();
            return Some(cfg);
        }
        Some(match name {
            "v1" => TpuConfig::v1(),
            "v2" => TpuConfig::v2(),
            "v3" => TpuConfig::v3(),
            "v4" => TpuConfig::v4(),
            "v5e" => TpuConfig::v5e(),
            "v5p" => TpuConfig::v5p(),
            "v6e" => TpuConfig::v6e(),
            _ => return None,
        })
    }

    /// The chip generation: the preset name without its slice size or overrides (`v5e` for
    /// `v5e-8+clock_ghz=1`).
    pub fn generation(&self) -> &str {
        let preset = self.name.split('+').next().unwrap_or_default();
        preset.split('-').next().unwrap_or_default()
    }

    /// What JAX reports as this generation's `device_kind` (v1 was never a JAX device; it is
    /// named in the same style).
    pub fn device_kind(&self) -> &'static str {
        match self.generation() {
            "v1" => "TPU v1",
            "v2" => "TPU v2",
            "v3" => "TPU v3",
            "v4" => "TPU v4",
            "v5p" => "TPU v5",
            "v6e" => "TPU v6 lite",
            _ => "TPU v5 lite",
        }
    }

    /// The single chips' presets.
    pub fn preset_names() -> &'static [&'static str] {
        &["v1", "v2", "v3", "v4", "v5e", "v5p", "v6e"]
    }

    /// The slices' presets: many chips of one generation over ICI.
    pub fn slice_names() -> impl Iterator<Item = &'static str> {
        SLICES.iter().map(|(name, ..)| *name)
    }

    /// The number of chips in the slice.
    pub fn chips(&self) -> u32 {
        self.topology.iter().product()
    }

    /// A chip's coordinates in the slice, x first (`chip` counted x fastest).
    pub fn chip_coords(&self, chip: u32) -> Vec<u32> {
        crate::ici::coords(&self.topology, chip)
    }

    /// Whether an axis of `size` chips closes into a ring on this generation:
    /// - v5e and v6e: "a single 16x16 2D torus with wraparounds along any axis of size 16"
    ///   (the scaling book, tpus.md);
    /// - v4 and v5p: a full 3D torus from one 4x4x4 cube up, every axis a multiple of 4 (Google
    ///   Cloud's v4 and v5p pages; the optical switches close the rings; twisted tori are not
    ///   modelled);
    /// - v2 and v3: the pod's full axis (16 on v2, 32 on v3), the only size whose wraparound
    ///   links are published; smaller slices are lines (unverified for v2/v3 sub-pod slices).
    fn wraparound_for(&self, topology: &[u32]) -> Vec<bool> {
        let all = |f: &dyn Fn(u32) -> bool| topology.iter().map(|&n| f(n)).collect::<Vec<_>>();
        match self.generation() {
            "v4" | "v5p" => {
                let cubes = topology.iter().all(|&n| n % 4 == 0);
                all(&|_| cubes)
            }
            "v2" => all(&|n| n == 16),
            "v3" => all(&|n| n == 32),
            "v1" => all(&|_| false),
            _ => all(&|n| n == 16),
        }
    }

    /// Makes the machine a slice of `topology` chips (one entry per torus axis of the
    /// generation), with the generation's wraparound rule and largest pod.
    fn set_topology(&mut self, topology: Vec<u32>) -> Result<(), String> {
        let (axes, pod): (usize, &[u32]) = match self.generation() {
            "v1" => (1, &[1]),
            "v2" => (2, &[16, 16]),
            "v3" => (2, &[32, 32]),
            // v4: 16x16x16; v5p: its largest slice, 16x16x24.
            "v4" => (3, &[16, 16, 16]),
            "v5p" => (3, &[16, 16, 24]),
            _ => (2, &[16, 16]),
        };
        let pod_text = pod.iter().map(u32::to_string).collect::<Vec<_>>().join("x");
        if topology.len() != axes {
            return Err(format!("{} chips form a {axes}-axis slice, as {pod_text} at most", self.generation()));
        }
        let mut sorted = topology.clone();
        sorted.sort_unstable();
        let mut largest = pod.to_vec();
        largest.sort_unstable();
        if topology.contains(&0) || sorted.iter().zip(&largest).any(|(n, max)| n > max) {
            return Err(format!("{} slices are at most {pod_text} chips", self.generation()));
        }
        self.wraparound = self.wraparound_for(&topology);
        self.topology = topology;
        Ok(())
    }

    /// A preset or a custom machine by name: `v5e`, or `v5e+mxu=32x32+clock_ghz=1` (a preset
    /// followed by overrides, as [`TpuConfig::with_override`] names them).
    pub fn from_name(name: &str) -> Result<TpuConfig, ConfigError> {
        let mut parts = name.split('+');
        let base = parts.next().unwrap_or_default();
        let mut cfg = TpuConfig::preset(base).ok_or_else(|| ConfigError {
            key: String::new(),
            message: format!(
                "unknown machine '{base}'; presets: {}",
                TpuConfig::preset_names()
                    .iter()
                    .copied()
                    .chain(TpuConfig::slice_names())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })?;
        for setting in parts {
            cfg.with_override(setting)?;
        }
        Ok(cfg)
    }

    /// Overrides one field from `key=value` and appends `+key=value` to the name. Keys are the
    /// field names, plus the shorthands `mxu=RxC` (or `mxu=N`), `vector=SxL`, `clock_ghz`,
    /// `hbm_gbps` (GB/s, 10^9 bytes), `hbm_gib`, `vmem_mib`, `mxus` and `cores`.
    pub fn with_override(&mut self, setting: &str) -> Result<(), ConfigError> {
        let Some((key, value)) = setting.split_once('=') else {
            return Err(ConfigError {
                key: setting.trim().into(),
                message: format!("expected KEY=VALUE, got '{setting}'; keys: {}", OVERRIDE_KEYS.join(", ")),
            });
        };
        let (key, value) = (key.trim(), value.trim());
        let err =
            |accepted: &str| ConfigError { key: key.into(), message: format!("{key}: '{value}' is not {accepted}") };
        match key {
            "mxu" => {
                let (r, c) = parse_dims(value)
                    .ok_or_else(|| err("an array size: ROWSxCOLS or N, each from 1 to 4096 (e.g. 32x32)"))?;
                self.mxu_rows = r;
                self.mxu_cols = c;
            }
            "mxu_rows" => self.mxu_rows = parse_count(value, 4096).ok_or_else(|| err(RANGE_4096))?,
            "mxu_cols" => self.mxu_cols = parse_count(value, 4096).ok_or_else(|| err(RANGE_4096))?,
            // The ISA names an MXU in 3 bits (isa::MAX_MXUS).
            "mxus" | "mxus_per_core" => {
                self.mxus_per_core = parse_count(value, isa::MAX_MXUS as u32).ok_or_else(|| err(RANGE_MXUS))?
            }
            "cores" | "cores_per_chip" => self.cores_per_chip = parse_count(value, 64).ok_or_else(|| err(RANGE_64))?,
            "mxu_dtype" => {
                self.mxu_dtype = match value {
                    "bf16" => MxuDtype::Bf16,
                    "int8" => MxuDtype::Int8,
                    _ => return Err(err("bf16 or int8")),
                }
            }
            "weight_double_buffer" => {
                self.weight_double_buffer = match value {
                    "true" | "1" | "yes" | "on" => true,
                    "false" | "0" | "no" | "off" => false,
                    _ => return Err(err("true or false")),
                }
            }
            "clock_ghz" => self.clock_hz = parse_positive(value).ok_or_else(|| err(POSITIVE))? * 1e9,
            "clock_hz" => self.clock_hz = parse_positive(value).ok_or_else(|| err(POSITIVE))?,
            "hbm_gbps" => self.hbm_bytes_per_second = parse_positive(value).ok_or_else(|| err(POSITIVE))? * 1e9,
            "hbm_bytes_per_second" => self.hbm_bytes_per_second = parse_positive(value).ok_or_else(|| err(POSITIVE))?,
            "hbm_gib" => self.hbm_bytes = parse_bytes(value, GIB).ok_or_else(|| err(POSITIVE))?,
            "hbm_bytes" => self.hbm_bytes = parse_bytes(value, 1).ok_or_else(|| err(POSITIVE))?,
            "vmem_mib" => self.vmem_bytes = parse_bytes(value, MIB).ok_or_else(|| err(POSITIVE))?,
            "vmem_kib" => self.vmem_bytes = parse_bytes(value, KIB).ok_or_else(|| err(POSITIVE))?,
            "vmem_bytes" => self.vmem_bytes = parse_bytes(value, 1).ok_or_else(|| err(POSITIVE))?,
            "vector" => {
                let (s, l) = parse_dims(value)
                    .ok_or_else(|| err("a register shape: SUBLANESxLANES, each from 1 to 4096 (e.g. 8x128)"))?;
                self.vector_sublanes = s;
                self.vector_lanes = l;
            }
            "topology" => {
                let dims: Option<Vec<u32>> =
                    value.split(['x', 'X', '×']).map(|d| d.trim().parse::<u32>().ok()).collect();
                let dims = dims.ok_or_else(|| err("chips per axis, as AxB or AxBxC (e.g. 4x8)"))?;
                self.set_topology(dims).map_err(|m| err(&format!("a slice this generation has ({m})")))?;
            }
            "vector_sublanes" => self.vector_sublanes = parse_count(value, 4096).ok_or_else(|| err(RANGE_4096))?,
            "vector_lanes" => self.vector_lanes = parse_count(value, 4096).ok_or_else(|| err(RANGE_4096))?,
            "dma_latency_cycles" => {
                self.dma_latency_cycles = value
                    .parse::<u64>()
                    .ok()
                    .filter(|&v| v <= 1 << 32)
                    .ok_or_else(|| err("a whole number of cycles from 0 to 2^32"))?
            }
            "transcendental_cycles" => {
                self.transcendental_cycles = value
                    .parse::<u64>()
                    .ok()
                    .filter(|&v| (1..=1 << 16).contains(&v))
                    .ok_or_else(|| err("a whole number of cycles from 1 to 65536"))?
            }
            "scalar_load_cycles" | "branch_cycles" => {
                let cycles = value
                    .parse::<u64>()
                    .ok()
                    .filter(|&v| v <= 1 << 16)
                    .ok_or_else(|| err("a whole number of cycles from 0 to 65536"))?;
                if key == "branch_cycles" {
                    self.branch_cycles = cycles
                } else {
                    self.scalar_load_cycles = cycles
                }
            }
            _ => {
                return Err(ConfigError {
                    key: key.into(),
                    message: format!("unknown machine field '{key}'; fields: {}", OVERRIDE_KEYS.join(", ")),
                })
            }
        }
        self.name = format!("{}+{key}={value}", self.name);
        Ok(())
    }

    /// The HBM bandwidth one TensorCore gets: the chip's, shared equally by its cores (on v2
    /// and v3 each core has its own half of the HBM stacks; on v4 and v5p JAX's
    /// `get_tpu_info()` reports the same even split).
    /// The machine's fields and the figures derived from them, for reports.
    pub fn summary(&self) -> MachineSummary {
        MachineSummary {
            name: self.name.clone(),
            clock_hz: self.clock_hz,
            cores_per_chip: self.cores_per_chip,
            mxus_per_core: self.mxus_per_core,
            mxu_rows: self.mxu_rows,
            mxu_cols: self.mxu_cols,
            mxu_dtype: self.mxu_dtype.name(),
            weight_double_buffer: self.weight_double_buffer,
            hbm_bytes: self.hbm_bytes,
            hbm_bytes_per_second: self.hbm_bytes_per_second,
            hbm_bytes_per_second_per_core: self.hbm_bytes_per_second_per_core(),
            hbm_bytes_per_cycle: self.hbm_bytes_per_cycle(),
            vmem_bytes: self.vmem_bytes,
            vector_sublanes: self.vector_sublanes,
            vector_lanes: self.vector_lanes,
            dma_latency_cycles: self.dma_latency_cycles,
            transcendental_cycles: self.transcendental_cycles,
            scalar_load_cycles: self.scalar_load_cycles,
            branch_cycles: self.branch_cycles,
            peak_bf16_flops_per_core: self.peak_bf16_flops_per_core(),
            peak_bf16_flops_per_chip: self.peak_bf16_flops_per_chip(),
            chips: self.chips(),
            topology: self.topology.clone(),
            wraparound: self.wraparound.clone(),
            ici_link_bytes_per_second: self.ici_link_bytes_per_second,
            ici_ports: self.ici_ports,
            ici_hop_seconds: self.ici_hop_seconds,
            pcie_bytes_per_second: self.pcie_bytes_per_second,
        }
    }

    pub fn hbm_bytes_per_second_per_core(&self) -> f64 {
        self.hbm_bytes_per_second / self.cores_per_chip as f64
    }

    /// HBM bytes per clock cycle for one TensorCore, which is what a DMA on it moves.
    pub fn hbm_bytes_per_cycle(&self) -> f64 {
        self.hbm_bytes_per_second_per_core() / self.clock_hz
    }

    /// MAC operations per cycle of one TensorCore: every PE of every MXU.
    pub fn macs_per_cycle_per_core(&self) -> u64 {
        self.mxus_per_core as u64 * self.mxu_rows as u64 * self.mxu_cols as u64
    }

    /// `mxus × rows × cols × 2 × clock`: a MAC is two operations. On v1 (int8) this is the int8
    /// rate, which the emulator also uses for bf16 programs; see [`MxuDtype::Int8`].
    pub fn peak_bf16_flops_per_core(&self) -> f64 {
        self.macs_per_cycle_per_core() as f64 * 2.0 * self.clock_hz
    }

    pub fn peak_bf16_flops_per_chip(&self) -> f64 {
        self.peak_bf16_flops_per_core() * self.cores_per_chip as f64
    }

    /// The peak in the MXU's native type (`mxu_dtype`): bf16 FLOP/s, or int8 op/s on v1.
    pub fn peak_ops_per_chip(&self) -> f64 {
        self.peak_bf16_flops_per_chip()
    }

    pub fn vector_words(&self) -> u64 {
        self.vector_sublanes as u64 * self.vector_lanes as u64
    }
}

/// The keys [`TpuConfig::with_override`] accepts, for error messages and `--help`.
pub const OVERRIDE_KEYS: &[&str] = &[
    "mxu",
    "mxu_rows",
    "mxu_cols",
    "mxus_per_core",
    "cores_per_chip",
    "mxu_dtype",
    "weight_double_buffer",
    "clock_ghz",
    "clock_hz",
    "hbm_gbps",
    "hbm_bytes_per_second",
    "hbm_gib",
    "hbm_bytes",
    "vmem_mib",
    "vmem_kib",
    "vmem_bytes",
    "vector",
    "vector_sublanes",
    "vector_lanes",
    "dma_latency_cycles",
    "transcendental_cycles",
    "scalar_load_cycles",
    "branch_cycles",
    "topology",
];

/// The slice presets: name, chip, chips per axis. v5e's hosts hold 1, 4 or 8 chips (4x2 as a
/// tray pair; Google Cloud's v5e page); `v4-8` and `v5p-8` are one 2x2x1 host of four chips.
const SLICES: &[(&str, &str, &[u32])] = &[
    ("v5e-4", "v5e", &[2, 2]),
    ("v5e-8", "v5e", &[2, 4]),
    ("v5e-16", "v5e", &[4, 4]),
    ("v4-8", "v4", &[2, 2, 1]),
    ("v5p-8", "v5p", &[2, 2, 1]),
    ("v6e-8", "v6e", &[2, 4]),
];

const RANGE_4096: &str = "a whole number from 1 to 4096";
const RANGE_64: &str = "a whole number from 1 to 64";
const RANGE_MXUS: &str = "a whole number from 1 to 8";
const POSITIVE: &str = "a positive number";

fn parse_count(s: &str, max: u32) -> Option<u32> {
    s.parse::<u32>().ok().filter(|&v| (1..=max).contains(&v))
}

/// `RxC` or `N` (square).
fn parse_dims(s: &str) -> Option<(u32, u32)> {
    match s.split_once(['x', 'X', '×']) {
        Some((r, c)) => Some((parse_count(r.trim(), 4096)?, parse_count(c.trim(), 4096)?)),
        None => {
            let n = parse_count(s, 4096)?;
            Some((n, n))
        }
    }
}

fn parse_positive(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite() && *v > 0.0)
}

/// A positive size in `unit`s (fractions allowed: `vmem_mib=0.5`), to whole bytes.
fn parse_bytes(s: &str, unit: u64) -> Option<u64> {
    let bytes = parse_positive(s)? * unit as f64;
    (bytes >= 1.0 && bytes <= (1u64 << 50) as f64).then_some(bytes.round() as u64)
}

/// A rejected machine name or override, naming the field and what it accepts.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigError {
    /// The field (override key) at fault; empty for an unknown preset.
    pub key: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ConfigError {}
