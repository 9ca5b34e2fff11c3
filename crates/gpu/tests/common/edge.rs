//! Values where float arithmetic is easiest to get wrong, shared by the GPU tests natively
//! (`crates/gpu/tests`) and in the browser (`crates/wasm/tests/browser.rs`).

/// Values where float arithmetic is easiest to get wrong.
pub fn edge_values() -> Vec<f32> {
    let bits = [
        0x0000_0000u32, // +0
        0x8000_0000,    // -0
        0x0000_0001,    // smallest subnormal
        0x8000_0001,
        0x0000_0003,
        0x007f_ffff, // largest subnormal
        0x807f_ffff,
        0x0040_0000,
        0x0080_0000, // smallest normal
        0x8080_0000,
        0x7f80_0000, // inf
        0xff80_0000,
        0x7fc0_0000, // NaN
        0xffc0_0000,
        0x7fc0_1234, // NaN with a payload
        0x7f7f_ffff, // f32::MAX
        0xff7f_ffff,
        0x3f80_8000, // bf16 ties: to even (down) ...
        0x3f81_8000, // ... and to even (up)
        0x3f80_8001, // just above a tie
        0x3f7f_8000, // a tie that rounds up into the next exponent
        0x3fff_ffff, // rounds up into the next exponent
        0x7f7f_8000, // rounds up to inf in bf16
        0x3f80_0000, // 1
        0xbf80_0000,
        0x3f00_0000,
        0x4000_0000,
        0x3fb5_04f3, // sqrt 2
        0x3fb5_04f4,
    ];
    let values = [
        88.7f32,
        88.722_83,
        88.722_84,
        88.722_85,
        89.0,
        -88.7,
        -87.336_55,
        -87.34,
        -103.9,
        -103.972_08,
        -103.972_09,
        -104.0,
        1e-5,
        -1e-5,
        1e-10,
        3e-39,
        9.09,
        9.1,
        9.100_001,
        -9.1,
        0.549_306_1,
        std::f32::consts::PI,
        std::f32::consts::E,
        1e30,
        -1e-30,
        3e38,
        0.1,
        -7.0,
        1e10,
    ];
    bits.iter().map(|&b| f32::from_bits(b)).chain(values).collect()
}
