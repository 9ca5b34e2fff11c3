//! The machine presets against their published figures (sources in docs/machines.md).

use emu::{MxuDtype, TpuConfig};

/// Each preset's published peak per chip, in units of 10^12 operations per second, with its
/// source. bf16 FLOP/s for all but v1, whose figure is int8 op/s.
const PUBLISHED_PEAK_TERA: &[(&str, f64, &str)] = &[
    // ISCA 2017, "In-Datacenter Performance Analysis of a Tensor Processing Unit": "a peak
    // throughput of 92 TeraOps/second (TOPS)" (int8).
    ("v1", 92.0, "Jouppi et al., ISCA 2017"),
    // CACM 2020, "A Domain-Specific Supercomputer for Training Deep Neural Networks": 46 TFLOPS.
    ("v2", 46.0, "Jouppi et al., CACM 2020"),
    // https://cloud.google.com/tpu/docs/v3: "Peak compute per chip: 123 teraflops (bf16)".
    ("v3", 123.0, "cloud.google.com/tpu/docs/v3"),
    // https://cloud.google.com/tpu/docs/v4: "Peak compute per chip: 275 teraflops (bf16 or int8)".
    ("v4", 275.0, "cloud.google.com/tpu/docs/v4"),
    // https://cloud.google.com/tpu/docs/v5e: "Peak compute per chip (bf16): 197 TFLOPs".
    ("v5e", 197.0, "cloud.google.com/tpu/docs/v5e"),
    // https://cloud.google.com/tpu/docs/v5p: "Peak compute per chip (bf16): 459 TFLOPs".
    ("v5p", 459.0, "cloud.google.com/tpu/docs/v5p"),
    // https://cloud.google.com/tpu/docs/v6e: "Peak compute per chip (bf16): 918 TFLOPs".
    ("v6e", 918.0, "cloud.google.com/tpu/docs/v6e"),
];

#[test]
fn every_preset_has_a_published_peak() {
    let names: Vec<&str> = PUBLISHED_PEAK_TERA.iter().map(|p| p.0).collect();
    assert_eq!(names, TpuConfig::preset_names());
}

#[test]
fn peak_from_the_fields_equals_the_published_peak() {
    for &(name, published, source) in PUBLISHED_PEAK_TERA {
        let c = TpuConfig::preset(name).unwrap();
        let computed =
            c.cores_per_chip as f64 * c.mxus_per_core as f64 * c.mxu_rows as f64 * c.mxu_cols as f64 * 2.0 * c.clock_hz;
        assert_eq!(computed, c.peak_bf16_flops_per_chip(), "{name}");
        assert_eq!(computed, c.peak_ops_per_chip(), "{name}");
        // Published peaks are rounded to whole teraops; the fields must round to the same.
        assert_eq!(
            (computed / 1e12).round(),
            published,
            "{name}: fields give {:.3} T, {source} publishes {published} T",
            computed / 1e12
        );
    }
}

#[test]
fn a_slice_is_its_chip_many_times() {
    for name in TpuConfig::slice_names() {
        let slice = TpuConfig::preset(name).unwrap();
        let mut chip = TpuConfig::preset(slice.generation()).unwrap();
        assert!(slice.chips() > 1, "{name}");
        assert_eq!(slice.name, name);
        // Everything but the name and the topology is the chip's.
        chip.name = slice.name.clone();
        chip.topology = slice.topology.clone();
        chip.wraparound = slice.wraparound.clone();
        assert_eq!(chip, slice, "{name}");
    }
    assert_eq!(TpuConfig::preset("v4-8").unwrap().chips(), 4, "v4-8 counts TensorCores");
}

#[test]
fn preset_shapes() {
    for name in TpuConfig::preset_names() {
        let c = TpuConfig::preset(name).unwrap();
        assert_eq!(c.name, *name);
        let side = if matches!(*name, "v1" | "v6e") { 256 } else { 128 };
        assert_eq!((c.mxu_rows, c.mxu_cols), (side, side), "{name}");
        assert_eq!((c.vector_sublanes, c.vector_lanes), (8, 128), "{name}");
        assert_eq!(c.vector_words(), 1024);
        assert_eq!(c.mxu_dtype, if *name == "v1" { MxuDtype::Int8 } else { MxuDtype::Bf16 });
        assert!(c.weight_double_buffer, "{name}");
    }
    let v1 = TpuConfig::v1();
    assert_eq!(v1.hbm_bytes, 8 << 30);
    assert_eq!(v1.hbm_bytes_per_second, 34e9);
    assert_eq!(v1.vmem_bytes, 24 << 20);
}

#[test]
fn v5e_is_unchanged_for_existing_users() {
    let c = TpuConfig::v5e();
    assert_eq!(c.clock_hz, 1.5e9);
    assert_eq!((c.cores_per_chip, c.mxus_per_core), (1, 4));
    assert_eq!(c.hbm_bytes_per_second, 819e9);
    assert_eq!(c.hbm_bytes_per_cycle(), 546.0);
    assert_eq!(c.peak_bf16_flops_per_core(), 4.0 * 128.0 * 128.0 * 2.0 * 1.5e9);
    assert_eq!(c.dma_latency_cycles, 500);
    assert_eq!(c.transcendental_cycles, 4);
}

#[test]
fn a_two_core_chip_splits_its_hbm_bandwidth() {
    let v4 = TpuConfig::v4();
    assert_eq!(v4.hbm_bytes_per_second_per_core(), 600e9);
    assert_eq!(v4.hbm_bytes_per_cycle(), 600e9 / 1.05e9);
    assert_eq!(v4.peak_bf16_flops_per_chip(), 2.0 * v4.peak_bf16_flops_per_core());
}

#[test]
fn overrides_change_one_field_and_name_the_machine() {
    let mut c = TpuConfig::v5e();
    c.with_override("mxu=32x32").unwrap();
    assert_eq!((c.mxu_rows, c.mxu_cols), (32, 32));
    c.with_override("hbm_gbps=1600").unwrap();
    assert_eq!(c.hbm_bytes_per_second, 1.6e12);
    c.with_override("clock_ghz=2").unwrap();
    assert_eq!(c.clock_hz, 2e9);
    c.with_override("weight_double_buffer=false").unwrap();
    assert!(!c.weight_double_buffer);
    c.with_override("vmem_mib=64").unwrap();
    assert_eq!(c.vmem_bytes, 64 << 20);
    c.with_override("mxus_per_core=1").unwrap();
    assert_eq!(c.mxus_per_core, 1);
    c.with_override("mxu=16").unwrap();
    assert_eq!((c.mxu_rows, c.mxu_cols), (16, 16));
    assert_eq!(
        c.name,
        "v5e+mxu=32x32+hbm_gbps=1600+clock_ghz=2+weight_double_buffer=false+vmem_mib=64\
         +mxus_per_core=1+mxu=16"
    );
    assert_eq!(TpuConfig::from_name(&c.name).unwrap(), c);
}

#[test]
fn override_errors_name_the_field_and_what_it_accepts() {
    let mut c = TpuConfig::v5e();
    let e = c.with_override("mxu=32by32").unwrap_err();
    assert_eq!(e.key, "mxu");
    assert!(e.message.contains("ROWSxCOLS"), "{e}");
    let e = c.with_override("weight_double_buffer=maybe").unwrap_err();
    assert_eq!(e.key, "weight_double_buffer");
    assert!(e.message.contains("true or false"), "{e}");
    let e = c.with_override("clock_ghz=-1").unwrap_err();
    assert!(e.message.contains("positive"), "{e}");
    let e = c.with_override("warp_size=32").unwrap_err();
    assert_eq!(e.key, "warp_size");
    assert!(e.message.contains("unknown machine field 'warp_size'"), "{e}");
    assert!(e.message.contains("hbm_gbps"), "{e}");
    let e = c.with_override("mxu").unwrap_err();
    assert!(e.message.contains("KEY=VALUE"), "{e}");
    // A rejected override leaves the machine as it was.
    assert_eq!(c, TpuConfig::v5e());
    let e = TpuConfig::from_name("v99+mxu=8").unwrap_err();
    assert!(e.message.contains("unknown machine 'v99'"), "{e}");
}
