//! Progress of long runs: the outermost loop running reports each iteration (line, count,
//! total), inner loops and loops inside functions called from it do not.

use jaxlite::eval::ReferenceExecutor;
use jaxlite::Context;
use lang::{Limits, Progress};

fn progress_of(source: &str) -> (Vec<Progress>, Result<lang::RunOutput, lang::ScriptFailure>) {
    let mut ctx = Context::new(Box::new(ReferenceExecutor::default()));
    let mut seen = Vec::new();
    let mut record = |p: Progress| seen.push(p);
    let result =
        pollster::block_on(lang::run_script_with_progress(source, &mut ctx, Limits::default(), Some(&mut record)));
    (seen, result)
}

#[test]
fn the_outermost_loop_reports_each_iteration() {
    let script = "\
def inner(n):
    total = 0
    for k in range(n):
        total += k
    return total

x = 0
for step in range(3):
    for j in [1, 2]:
        x += inner(j)
i = 0
while i < 2:
    i += 1
print(x, i)
";
    let (seen, result) = progress_of(script);
    assert_eq!(result.unwrap().stdout, "3 2\n");
    let summary: Vec<(u32, u64, Option<u64>)> = seen.iter().map(|p| (p.line, p.iteration, p.total)).collect();
    assert_eq!(summary, [(8, 1, Some(3)), (8, 2, Some(3)), (8, 3, Some(3)), (12, 1, None), (12, 2, None)]);
    // Steps grow as the run goes on.
    assert!(seen.windows(2).all(|w| w[0].steps < w[1].steps));
}

#[test]
fn a_loop_left_early_by_an_error_or_break_lets_the_next_one_report() {
    let (seen, result) = progress_of("for a in range(10):\n    break\nfor b in range(2):\n    pass\n");
    assert!(result.is_ok());
    assert_eq!(seen.iter().map(|p| p.line).collect::<Vec<_>>(), [1, 3, 3]);
    let (seen, result) = progress_of("for a in range(5):\n    x = 1 / (a - 1)\n");
    assert!(result.is_err());
    assert_eq!(seen.len(), 2);
}
