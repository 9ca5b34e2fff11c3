//! `tpu systolic`: one GEMM on one systolic array, by SCALE-Sim's analytic compute model
//! (`emu::systolic`, derivations in docs/systolic.md).

use crate::machines::{json_string, num};
use emu::systolic::{Analysis, Dataflow};

/// The report as text: every number with the formula that produced it.
pub fn text(a: &Analysis) -> String {
    let map = &a.mapping;
    let (r, c) = (a.rows, a.cols);
    let fold_formula = match a.dataflow {
        Dataflow::Ws | Dataflow::Is => format!("2·{r} + {c} + {} − 2", map.t),
        Dataflow::Os => format!("{r} + {c} + {} − 2", map.t),
    };
    let pct = |v: f64| format!("{:.2} %", v * 100.0);
    format!(
        "GEMM {m}×{k} @ {k}×{n} on a {r}×{c} array, {flow} ({df})\n\
         mapping:      array rows ← {srd} = {sr}, array cols ← {scd} = {sc}, streamed ← {td} = {t}\n\
         folds:        ceil({sr}/{r}) × ceil({sc}/{c}) = {rf} × {cf} = {folds}\n\
         fold cycles:  {fold_formula} = {fold}\n\
         busy cycles:  {folds} × {fold} = {busy}\n\
         cycles:       {cycles} (SCALE-Sim's count: busy cycles − 1)\n\
         utilization:  {util} = {macs} MACs / ({r}×{c} PEs × {cycles} cycles)\n\
         mapping eff.: {meff} (PEs holding an operand, averaged over folds)\n\
         compute util: {cutil} (SCALE-Sim's per-fold average)\n",
        m = a.m,
        k = a.k,
        n = a.n,
        flow = a.dataflow.long_name(),
        df = a.dataflow.name(),
        srd = map.sr_dim,
        sr = map.sr,
        scd = map.sc_dim,
        sc = map.sc,
        td = map.t_dim,
        t = map.t,
        rf = a.row_folds,
        cf = a.col_folds,
        folds = a.folds,
        fold = a.fold_cycles,
        busy = a.busy_cycles,
        cycles = a.cycles,
        util = pct(a.utilization),
        macs = a.macs,
        meff = pct(a.mapping_efficiency),
        cutil = pct(a.compute_utilization),
    )
}

/// The report as one JSON object (fields documented in docs/systolic.md).
pub fn json(a: &Analysis) -> String {
    let map = &a.mapping;
    let mapping = format!(
        "{{\"sr\":{},\"sc\":{},\"t\":{},\"sr_dim\":{},\"sc_dim\":{},\"t_dim\":{}}}",
        map.sr,
        map.sc,
        map.t,
        json_string(map.sr_dim),
        json_string(map.sc_dim),
        json_string(map.t_dim)
    );
    let fields = [
        ("rows", a.rows.to_string()),
        ("cols", a.cols.to_string()),
        ("dataflow", json_string(a.dataflow.name())),
        ("m", a.m.to_string()),
        ("k", a.k.to_string()),
        ("n", a.n.to_string()),
        ("mapping", mapping),
        ("row_folds", a.row_folds.to_string()),
        ("col_folds", a.col_folds.to_string()),
        ("folds", a.folds.to_string()),
        ("fold_cycles", a.fold_cycles.to_string()),
        ("busy_cycles", a.busy_cycles.to_string()),
        ("cycles", a.cycles.to_string()),
        ("macs", a.macs.to_string()),
        ("utilization", num(a.utilization)),
        ("mapping_efficiency", num(a.mapping_efficiency)),
        ("compute_utilization", num(a.compute_utilization)),
    ];
    let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
    format!("{{{}}}", body.join(","))
}
