//! The binary decoder on arbitrary bytes: a decode error or a program; a program that decodes
//! validates without panicking, re-encodes to bytes that decode to the same program, and
//! prints to text that parses to the same program.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(program) = isa::binary::decode(data) else { return };
    let _ = isa::validate(&program);
    let again = isa::binary::decode(&isa::binary::encode(&program)).expect("a re-encoded program decodes");
    assert!(same(&again, &program), "binary round trip changed the program");
    let printed = program.to_string();
    let parsed = isa::text::parse(&printed).unwrap_or_else(|e| panic!("disassembly does not parse: {e}\n{printed}"));
    assert!(same(&parsed, &program), "disassembly does not reassemble to the program:\n{printed}");
});

/// The same program, bit for bit: compared through the binary encoding, since `==` on the
/// programs compares immediates as floats, and a NaN immediate is unequal to itself.
fn same(a: &isa::Program, b: &isa::Program) -> bool {
    isa::binary::encode(a) == isa::binary::encode(b)
}
