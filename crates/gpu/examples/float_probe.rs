//! Prints what the default adapter does with subnormals and multiply-add contraction.
//! Run: `cargo run -p gpu --example float_probe`.

const SHADER: &str = r#"
@group(0) @binding(0) var<storage, read_write> io: array<u32>;

fn f(i: u32) -> f32 { return bitcast<f32>(io[i]); }

@compute @workgroup_size(1)
fn main() {
    io[16] = bitcast<u32>(f(0) * f(1) + f(2));   // contracted into an fma?
    io[17] = bitcast<u32>(fma(f(0), f(1), f(2)));
    io[18] = bitcast<u32>(f(3) * f(4));           // subnormal input times 1 (DAZ?)
    io[19] = bitcast<u32>(f(3) + f(3));           // subnormal arithmetic
    io[20] = bitcast<u32>(f(5) * f(6));           // min normal * 0.5: FTZ of results?
    io[21] = bitcast<u32>(f(7) / f(2));           // 0 / -c
    io[22] = bitcast<u32>(f(7) * f(2));           // 0 * -c: sign of zero
    io[23] = bitcast<u32>(f(8) + f(4));           // NaN payload through add
    io[24] = bitcast<u32>(f(9) - f(9));           // inf - inf
    io[25] = bitcast<u32>(f(7) / f(7));           // 0 / 0
    io[26] = bitcast<u32>(0.0 * f(2));            // literal 0 times -c
    io[27] = bitcast<u32>(f(9) - f(9) + 0.0);
    io[28] = bitcast<u32>(f(3) / f(4));           // subnormal / 1
    io[29] = bitcast<u32>(f(5) * f(5));           // underflow to zero
}
"#;

fn main() {
    pollster::block_on(async {
        let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .expect("adapter");
        println!("{:?}", adapter.get_info());
        let (device, queue) = adapter.request_device(&wgpu::DeviceDescriptor::default()).await.unwrap();
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
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
        let (a, b, c) = (1.1f32, 1.3f32, -1.43f32);
        let input: [u32; 32] = {
            let mut v = [0u32; 32];
            let vals = [a, b, c, f32::from_bits(3), 1.0, f32::MIN_POSITIVE, 0.5, 0.0];
            for (i, x) in vals.iter().enumerate() {
                v[i] = x.to_bits();
            }
            v[8] = 0x7fc0_1234;
            v[9] = f32::INFINITY.to_bits();
            v
        };
        let usage = wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
        let io =
            device.create_buffer(&wgpu::BufferDescriptor { label: None, size: 128, usage, mapped_at_creation: false });
        let staging = device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: 128,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        queue.write_buffer(&io, 0, bytemuck::cast_slice(&input));
        let bg = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: io.as_entire_binding() }],
        });
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bg, &[]);
            pass.dispatch_workgroups(1, 1, 1);
        }
        enc.copy_buffer_to_buffer(&io, 0, &staging, 0, 128);
        queue.submit([enc.finish()]);
        staging.map_async(wgpu::MapMode::Read, .., |r| r.unwrap());
        device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
        let out: Vec<u32> = bytemuck::cast_slice(&staging.get_mapped_range(..).unwrap()).to_vec();
        let names = [
            "a*b+c",
            "fma(a,b,c)",
            "sub*1",
            "sub+sub",
            "min_normal*0.5",
            "0/-c",
            "0*-c",
            "nan(1234)+1",
            "inf-inf",
            "0/0",
            "0.0*-c",
            "inf-inf+0.0",
            "sub/1",
            "min_normal^2",
        ];
        for (i, n) in names.iter().enumerate() {
            println!("{n:>16} = {:#010x}", out[16 + i]);
        }
        println!("CPU: a*b+c = {:#010x}, fma = {:#010x}", (a * b + c).to_bits(), a.mul_add(b, c).to_bits());
    });
}
