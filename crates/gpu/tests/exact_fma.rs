//! `fma_exact` (shaders/exact_fma.wgsl) against Rust's `f32::mul_add`, bit for bit, on hard
//! cases: cancellation, ties, subnormal and overflowing results, zeros of either sign.
//! The vector-unit tests use it only through exp/log/tanh/div; this pins it down directly.

mod common;

use common::Rng;

const SHADER: &str = concat!(
    include_str!("../../../shaders/exact_fma.wgsl"),
    r#"
@group(0) @binding(0) var<storage, read_write> io: array<u32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let i = id.x;
    let n = arrayLength(&io) / 4u;
    if i < n {
        let r = fma_exact(bitcast<f32>(io[4u * i]), bitcast<f32>(io[4u * i + 1u]), bitcast<f32>(io[4u * i + 2u]));
        io[4u * i + 3u] = bitcast<u32>(r);
    }
}
"#
);

fn run_on_gpu(triples: &[[f32; 3]]) -> Vec<u32> {
    pollster::block_on(async {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
        let adapter =
            instance.request_adapter(&Default::default()).await.expect("GPU tests need a WebGPU/Vulkan adapter");
        let (device, queue) = adapter.request_device(&Default::default()).await.unwrap();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("exact_fma test"),
            source: wgpu::ShaderSource::Wgsl(SHADER.into()),
        });
        let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
            label: None,
            layout: None,
            module: &module,
            entry_point: Some("main"),
            compilation_options: Default::default(),
            cache: None,
        });
        let words: Vec<u32> =
            triples.iter().flat_map(|t| [t[0].to_bits(), t[1].to_bits(), t[2].to_bits(), 0]).collect();
        let size = (words.len() * 4) as u64;
        let io = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::COPY_SRC,
            mapped_at_creation: false,
        });
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        queue.write_buffer(&io, 0, bytemuck::cast_slice(&words));
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: io.as_entire_binding() }],
        });
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups((triples.len() as u32).div_ceil(64), 1, 1);
        }
        encoder.copy_buffer_to_buffer(&io, 0, &staging, 0, size);
        queue.submit([encoder.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., |r| r.expect("map"));
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        let view = staging.get_mapped_range(..).unwrap();
        let out: &[u32] = bytemuck::cast_slice(&view);
        out.chunks(4).map(|c| c[3]).collect()
    })
}

#[test]
fn fma_exact_is_correctly_rounded() {
    let mut rng = Rng::new(2024);
    let mut triples = Vec::new();
    let specials = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::from_bits(1),
        f32::from_bits(0x807f_ffff),
        f32::MIN_POSITIVE,
        f32::MAX,
        -f32::MAX,
        0.5,
        3.0,
    ];
    for &a in &specials {
        for &b in &specials {
            for &c in &specials {
                triples.push([a, b, c]);
            }
        }
    }
    for _ in 0..20_000 {
        let a = rng.moderate();
        let b = rng.moderate();
        // c near -a*b: massive cancellation, where only a fused operation keeps the bits.
        let c = match rng.range(0, 3) {
            0 => -(a * b),
            1 => -(a * b) * (1.0 + rng.f32_in(-1e-6, 1e-6)),
            2 => rng.moderate(),
            _ => f32::from_bits(rng.u32() & 0x80ff_ffff), // tiny or subnormal
        };
        triples.push([a, b, c]);
    }
    for _ in 0..20_000 {
        // Any finite bit patterns: products that under- and overflow, subnormal results.
        let finite = |rng: &mut Rng| loop {
            let x = f32::from_bits(rng.u32());
            if x.is_finite() {
                break x;
            }
        };
        triples.push([finite(&mut rng), finite(&mut rng), finite(&mut rng)]);
    }
    for _ in 0..5_000 {
        // Results in the subnormal range.
        let a = f32::from_bits(rng.u32() & 0x80ff_ffff | 0x0080_0000);
        let b = rng.f32_in(-1.0, 1.0);
        let c = f32::from_bits(rng.u32() & 0x807f_ffff);
        triples.push([a, b, c]);
    }
    let got = run_on_gpu(&triples);
    let mut bad = Vec::new();
    for (t, g) in triples.iter().zip(&got) {
        let want = t[0].mul_add(t[1], t[2]).to_bits();
        if want != *g && !(f32::from_bits(want).is_nan() && f32::from_bits(*g).is_nan()) {
            bad.push(format!("fma({:e}, {:e}, {:e}): rust {want:#010x} gpu {g:#010x}", t[0], t[1], t[2]));
        }
    }
    assert!(bad.is_empty(), "{} of {} differ:\n{}", bad.len(), triples.len(), bad[..bad.len().min(20)].join("\n"));
}
