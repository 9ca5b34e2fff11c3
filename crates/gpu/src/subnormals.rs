//! Keeping subnormal floats on Vulkan GPUs that flush them to zero by default.
//!
//! The emulated TPU keeps subnormals (as the CPU backend does), but WGSL lets a GPU flush
//! them, and NVIDIA's Vulkan driver does: on an H200, `2.8e-39 + -9.4e-39` gave 0 instead of
//! `-6.5e-39`, and every exp below -87.3 gave 0. Vulkan can be told otherwise per shader,
//! with SPIR-V's `DenormPreserve` execution mode (SPV_KHR_float_controls, core in SPIR-V 1.4 and
//! Vulkan 1.2) wherever the device reports `shaderDenormPreserveFloat32`. wgpu has no WGSL
//! switch for it, so on such devices the backend translates each WGSL module to SPIR-V with
//! naga (the translator wgpu itself uses), adds the mode, and hands wgpu the SPIR-V as a
//! passthrough shader. Every native Vulkan device takes that path (lavapipe too, which keeps
//! subnormals without being asked), so CI runs the same translation the GPUs get.
//!
//! Browsers give no such control; see docs/gpu.md for what happens there.

use spirv::{Capability, ExecutionMode, Op};

/// Whether `adapter` is a Vulkan device that can be asked to keep f32 subnormals.
pub fn vulkan_can_keep_subnormals(adapter: &wgpu::Adapter) -> bool {
    use ash::vk;
    // SAFETY: the raw handles are only read, while `adapter` (which owns them) is alive.
    unsafe {
        let Some(hal) = adapter.as_hal::<wgpu::hal::api::Vulkan>() else {
            return false;
        };
        let shared = hal.shared_instance();
        if shared.instance_api_version() < vk::API_VERSION_1_2 {
            return false;
        }
        let mut float_controls = vk::PhysicalDeviceFloatControlsProperties::default();
        let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut float_controls);
        shared.raw_instance().get_physical_device_properties2(hal.raw_physical_device(), &mut properties);
        properties.properties.api_version >= vk::API_VERSION_1_2
            && float_controls.shader_denorm_preserve_float32 == vk::TRUE
    }
}

/// SPIR-V for `entry_point` of a WGSL module, with f32 subnormals kept when `keep_subnormals`
/// (only for devices that can: see `vulkan_can_keep_subnormals`). Bounds checks are the ones
/// wgpu applies to WGSL by default (indices clamped into the buffer).
pub fn to_spirv(wgsl: &str, entry_point: &str, keep_subnormals: bool) -> Result<Vec<u32>, String> {
    let words = translate(wgsl, entry_point)?;
    Ok(if keep_subnormals { with_denorm_preserve(&words) } else { words })
}

fn translate(wgsl: &str, entry_point: &str) -> Result<Vec<u32>, String> {
    use naga::back::spv;
    use naga::proc::{BoundsCheckPolicies, BoundsCheckPolicy};
    let module = naga::front::wgsl::parse_str(wgsl).map_err(|e| e.emit_to_string(wgsl))?;
    let info = naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all())
        .validate(&module)
        .map_err(|e| format!("{e:?}"))?;
    let options = spv::Options {
        bounds_check_policies: BoundsCheckPolicies {
            index: BoundsCheckPolicy::Restrict,
            buffer: BoundsCheckPolicy::Restrict,
            ..Default::default()
        },
        ..Default::default()
    };
    let pipeline = spv::PipelineOptions { shader_stage: naga::ShaderStage::Compute, entry_point: entry_point.into() };
    spv::write_vec(&module, &info, &options, Some(&pipeline)).map_err(|e| e.to_string())
}

/// One instruction: its word count and opcode, then its operands.
fn instruction(op: Op, operands: &[u32]) -> Vec<u32> {
    let mut words = vec![((operands.len() as u32 + 1) << 16) | op as u32];
    words.extend_from_slice(operands);
    words
}

/// A SPIR-V literal string: UTF-8, nul-terminated, packed little-endian into words.
fn literal_string(s: &str) -> Vec<u32> {
    let mut bytes = s.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().div_ceil(4) * 4, 0);
    bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// `module` with the DenormPreserve capability, the float-controls extension and a
/// `DenormPreserve 32` execution mode for each entry point, each where SPIR-V's logical
/// layout puts it (capabilities, then extensions, ..., entry points, then execution modes).
fn with_denorm_preserve(module: &[u32]) -> Vec<u32> {
    const HEADER: usize = 5;
    let mut out = module[..HEADER].to_vec();
    let mut at = HEADER;
    let mut wrote_capability = false;
    let mut wrote_execution_modes = false;
    let mut entry_points = Vec::new();
    while at < module.len() {
        let count = (module[at] >> 16) as usize;
        let opcode = module[at] & 0xffff;
        if count == 0 || at + count > module.len() {
            // Malformed: leave the rest as it is (the driver will say what is wrong).
            out.extend_from_slice(&module[at..]);
            break;
        }
        let is = |op: Op| opcode == op as u32;
        if !wrote_capability && !is(Op::Capability) {
            out.extend(instruction(Op::Capability, &[Capability::DenormPreserve as u32]));
            out.extend(instruction(Op::Extension, &literal_string("SPV_KHR_float_controls")));
            wrote_capability = true;
        }
        if !wrote_execution_modes && !entry_points.is_empty() && !is(Op::EntryPoint) {
            for &function in &entry_points {
                out.extend(instruction(Op::ExecutionMode, &[function, ExecutionMode::DenormPreserve as u32, 32]));
            }
            wrote_execution_modes = true;
        }
        if is(Op::EntryPoint) {
            // OpEntryPoint <execution model> <function id> <name> <interface>...
            entry_points.push(module[at + 2]);
        }
        out.extend_from_slice(&module[at..at + count]);
        at += count;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The (opcode, operands) of each instruction after the header.
    fn instructions(module: &[u32]) -> Vec<(u32, Vec<u32>)> {
        let mut at = 5;
        let mut list = Vec::new();
        while at < module.len() {
            let count = (module[at] >> 16) as usize;
            list.push((module[at] & 0xffff, module[at + 1..at + count].to_vec()));
            at += count;
        }
        list
    }

    #[test]
    fn every_entry_point_keeps_subnormals_and_the_layout_stays_in_order() {
        let wgsl = "@group(0) @binding(0) var<storage, read_write> x: array<f32>;\n\
                    @compute @workgroup_size(64) fn main(@builtin(global_invocation_id) i: vec3<u32>) {\n\
                        x[i.x] = x[i.x] + 1.0;\n}\n";
        let plain = to_spirv(wgsl, "main", false).unwrap();
        let patched = to_spirv(wgsl, "main", true).unwrap();
        let ops = instructions(&patched);
        let position = |op: Op| ops.iter().position(|(o, _)| *o == op as u32).unwrap();
        let capability = ops.iter().position(|(o, a)| *o == Op::Capability as u32 && a[0] == 4464).unwrap();
        let extension = position(Op::Extension);
        let entry = position(Op::EntryPoint);
        let mode = ops
            .iter()
            .position(|(o, a)| *o == Op::ExecutionMode as u32 && a[1] == ExecutionMode::DenormPreserve as u32)
            .unwrap();
        assert!(capability < extension && extension < position(Op::MemoryModel) && entry < mode);
        // The mode names the entry point's function, for 32-bit floats.
        assert_eq!(ops[mode].1, vec![ops[entry].1[1], ExecutionMode::DenormPreserve as u32, 32]);
        assert_eq!(ops[extension].1, literal_string("SPV_KHR_float_controls"));
        // Nothing else changed: three instructions (2 + 7 + 4 words) were added.
        assert_eq!(patched.len(), plain.len() + 2 + 1 + 6 + 4);
        assert!(ops.iter().all(|(o, _)| *o != 0));
    }

    #[test]
    fn literal_strings_are_nul_terminated_words() {
        assert_eq!(literal_string("abc"), vec![u32::from_le_bytes(*b"abc\0")]);
        assert_eq!(literal_string("abcd"), vec![u32::from_le_bytes(*b"abcd"), 0]);
    }
}
