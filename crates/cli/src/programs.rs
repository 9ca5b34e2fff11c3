//! `tpu compile`, `tpu asm`, `tpu disasm` and `tpu validate`: the compiler's stages and the
//! instruction set's text and binary forms from the command line.

use crate::Stage;
use runtime::RunReport;
use std::process::ExitCode;

fn fail(message: String) -> ExitCode {
    eprintln!("tpu: {message}");
    ExitCode::FAILURE
}

/// Prints (or, for `bin`, writes) each program of a run at one stage.
pub fn print_stage(report: &RunReport, stage: Stage, output: Option<&str>, eager: bool) -> ExitCode {
    let programs: Vec<_> = report.programs.iter().filter(|p| eager || !p.eager).collect();
    if programs.is_empty() {
        return fail("the script compiled no jitted program (use --eager for the op-by-op ones)".into());
    }
    if let Stage::Bin = stage {
        let Some(output) = output else {
            return fail("--emit bin writes files: give -o FILE".into());
        };
        for (i, p) in programs.iter().enumerate() {
            let path = if programs.len() == 1 { output.to_string() } else { format!("{output}.{i}.tbin") };
            if let Err(e) = std::fs::write(&path, isa::binary::encode(&p.program)) {
                return fail(format!("cannot write {path}: {e}"));
            }
        }
        return ExitCode::SUCCESS;
    }
    for p in programs {
        let text = match stage {
            Stage::Jaxpr => &p.jaxpr,
            Stage::Hlo => &p.hlo,
            Stage::Fused => &p.fused,
            Stage::Asm | Stage::Bin => &p.asm,
        };
        println!("# {} (called {} time{})", p.name, p.calls, if p.calls == 1 { "" } else { "s" });
        println!("{}", text.trim_end());
    }
    ExitCode::SUCCESS
}

/// A program from a `.tasm` (text) or `.tbin` (binary) file, told apart by the magic bytes.
fn read_program(file: &str) -> Result<isa::Program, String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    if bytes.starts_with(b"TPUP") {
        return isa::binary::decode(&bytes).map_err(|e| format!("{file}: {e}"));
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{file} is neither a binary program nor UTF-8 text"))?;
    isa::text::parse(&text).map_err(|e| format!("{file}:{e}"))
}

pub fn assemble(file: &str, output: &str) -> ExitCode {
    let program = match read_program(file) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    if let Err(e) = isa::validate(&program) {
        return fail(format!("{file}: {e}"));
    }
    match std::fs::write(output, isa::binary::encode(&program)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(format!("cannot write {output}: {e}")),
    }
}

pub fn disassemble(file: &str) -> ExitCode {
    match read_program(file) {
        Ok(p) => {
            print!("{p}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}

pub fn validate(file: &str) -> ExitCode {
    match read_program(file).and_then(|p| isa::validate(&p).map_err(|e| format!("{file}: {e}")).map(|_| p)) {
        Ok(p) => {
            // Without `s.load` the operations are known without running the program.
            if p.reads_scalars() {
                println!(
                    "{file}: valid ({} instructions; its operations depend on the values it loads)",
                    p.instrs.len()
                );
            } else {
                println!("{file}: valid ({} instructions, {} operations)", p.instrs.len(), p.ops().count());
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(e),
    }
}
