//! The assembler on arbitrary text: a parse error or a program; a program that parses
//! prints back to text that parses to the same program, and survives the binary round trip.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let Ok(program) = isa::text::parse(text) else { return };
    let _ = isa::validate(&program);
    let printed = program.to_string();
    let reparsed =
        isa::text::parse(&printed).unwrap_or_else(|e| panic!("printed program does not parse: {e}\n{printed}"));
    assert!(same(&reparsed, &program), "text round trip changed the program:\n{printed}");
    let decoded = isa::binary::decode(&isa::binary::encode(&program)).expect("an encoded program decodes");
    assert!(same(&decoded, &program), "binary round trip changed the program");
});

/// The same program, bit for bit: compared through the binary encoding, since `==` on the
/// programs compares immediates as floats, and a NaN immediate is unequal to itself.
fn same(a: &isa::Program, b: &isa::Program) -> bool {
    isa::binary::encode(a) == isa::binary::encode(b)
}
