//! `import`: the `jax` modules (`jax.rs`), `math`, and the standard library's modules, which
//! are written in Python (`src/stdlib/*.py`, CPython's behaviour in our own code) and run the
//! first time a run imports them, over a few functions written in Rust (`_playground`: the
//! host's clock, the Mersenne Twister, standard error).
//!
//! A library module's code runs like a script's, with one difference: its places are never
//! reported (see `ast::Span::file`), so an error inside it points at the script's call.

use super::exceptions::{attr_err, type_err, value_err, RtError};
use super::mersenne::Mt19937;
use super::objects::Builtin;
use super::value::{as_f64, as_int, Native, Value};
use super::{jax, new_scope, Env, Interp, R};
use jaxlite::LocalFuture;
use std::rc::Rc;

/// A module a script imported: its globals.
pub struct PyModule {
    pub name: String,
    pub scope: Env,
}

/// The standard library's modules written in Python, by name. A module's index here (plus
/// one) is its `Span::file`.
const SOURCES: &[(&str, &str)] = &[
    ("time", include_str!("../stdlib/time.py")),
    ("timeit", include_str!("../stdlib/timeit.py")),
    ("sys", include_str!("../stdlib/sys.py")),
    ("functools", include_str!("../stdlib/functools.py")),
    ("itertools", include_str!("../stdlib/itertools.py")),
    ("operator", include_str!("../stdlib/operator.py")),
    ("collections", include_str!("../stdlib/collections.py")),
    ("collections.abc", include_str!("../stdlib/collections_abc.py")),
    ("typing", include_str!("../stdlib/typing.py")),
    ("dataclasses", include_str!("../stdlib/dataclasses.py")),
    ("abc", include_str!("../stdlib/abc.py")),
    ("enum", include_str!("../stdlib/enum.py")),
    ("string", include_str!("../stdlib/string.py")),
    ("random", include_str!("../stdlib/random.py")),
    ("warnings", include_str!("../stdlib/warnings.py")),
    ("contextlib", include_str!("../stdlib/contextlib.py")),
    ("copy", include_str!("../stdlib/copy.py")),
    ("bisect", include_str!("../stdlib/bisect.py")),
    ("heapq", include_str!("../stdlib/heapq.py")),
    ("types", include_str!("../stdlib/types.py")),
    ("os", include_str!("../stdlib/os.py")),
    ("os.path", include_str!("../stdlib/os_path.py")),
    ("pprint", include_str!("../stdlib/pprint.py")),
    ("logging", include_str!("../stdlib/logging.py")),
    ("json", include_str!("../stdlib/json.py")),
    ("re", include_str!("../stdlib/re.py")),
    ("__future__", "annotations = True\ndivision = True\nprint_function = True\n"),
    ("jax._devices", include_str!("../stdlib/jax/devices.py")),
    ("jax.sharding", include_str!("../stdlib/jax/sharding.py")),
    ("jax._sharding_module", "import jax.sharding as sharding\n"),
    ("jax.experimental.shard_map", "from jax.sharding import shard_map\n"),
    ("jax.experimental.mesh_utils", "from jax.sharding import create_device_mesh\n"),
    ("jax._core", include_str!("../stdlib/jax/core.py")),
    ("jax._custom", include_str!("../stdlib/jax/custom.py")),
    ("jax._random", include_str!("../stdlib/jax/random.py")),
    ("jax._numpy", include_str!("../stdlib/jax/numpy_extra.py")),
    ("jax._numpy_more", include_str!("../stdlib/jax/numpy_more.py")),
    ("jax._special", include_str!("../stdlib/jax/special.py")),
    ("jax._at_modes", include_str!("../stdlib/jax/at_modes.py")),
    ("jax.ad_checkpoint", include_str!("../stdlib/jax/ad_checkpoint.py")),
    ("jax._linalg", include_str!("../stdlib/jax/linalg.py")),
    ("jax._top_k", include_str!("../stdlib/jax/top_k.py")),
    ("numpy._linalg", include_str!("../stdlib/numpy_linalg.py")),
    ("jax._vectorize", include_str!("../stdlib/jax/vectorize.py")),
    ("jax._tree", include_str!("../stdlib/jax/tree.py")),
    ("jax._lax_conv", include_str!("../stdlib/jax/lax_conv.py")),
    ("jax._associative_scan", include_str!("../stdlib/jax/associative_scan.py")),
    ("jax._loops", include_str!("../stdlib/jax/loops.py")),
    ("numpy._vectorize", include_str!("../stdlib/numpy_vectorize.py")),
    ("jax._statistics", include_str!("../stdlib/jax/statistics.py")),
    ("numpy._statistics", include_str!("../stdlib/numpy_statistics.py")),
    ("jax._grids", include_str!("../stdlib/jax/grids.py")),
    ("numpy._grids", include_str!("../stdlib/numpy_grids.py")),
    ("numpy._more", include_str!("../stdlib/numpy_more.py")),
    ("inspect", include_str!("../stdlib/inspect.py")),
    ("jax.example_libraries", include_str!("../stdlib/jax/example_libraries.py")),
    ("jax.example_libraries.optimizers", include_str!("../stdlib/jax/optimizers.py")),
    ("jax.example_libraries.stax", include_str!("../stdlib/jax/stax.py")),
    ("jax.scipy.optimize", include_str!("../stdlib/jax/scipy_optimize.py")),
    ("jax.scipy.stats", include_str!("../stdlib/jax/scipy_stats.py")),
    ("jax.scipy.stats.norm", include_str!("../stdlib/jax/scipy_stats_norm.py")),
    ("jax.scipy.stats.multivariate_normal", include_str!("../stdlib/jax/scipy_stats_multivariate_normal.py")),
    ("jax.scipy.stats.t", include_str!("../stdlib/jax/scipy_stats_t.py")),
    ("jax.scipy.stats.uniform", include_str!("../stdlib/jax/scipy_stats_uniform.py")),
    ("jax.scipy.stats.expon", include_str!("../stdlib/jax/scipy_stats_expon.py")),
    ("jax.scipy.stats.laplace", include_str!("../stdlib/jax/scipy_stats_laplace.py")),
    ("jax.scipy.stats.logistic", include_str!("../stdlib/jax/scipy_stats_logistic.py")),
    ("jax.scipy.stats.cauchy", include_str!("../stdlib/jax/scipy_stats_cauchy.py")),
    ("jax.scipy.stats.bernoulli", include_str!("../stdlib/jax/scipy_stats_bernoulli.py")),
    ("jax.scipy.linalg", include_str!("../stdlib/jax/scipy_linalg.py")),
    ("jax.scipy.signal", include_str!("../stdlib/jax/scipy_signal.py")),
    ("scipy", include_str!("../stdlib/scipy/init.py")),
    ("scipy.special", include_str!("../stdlib/scipy/special.py")),
    ("scipy.stats", include_str!("../stdlib/scipy/stats.py")),
    ("scipy.optimize", include_str!("../stdlib/scipy/optimize.py")),
    ("jax.test_util", include_str!("../stdlib/jax/test_util.py")),
    ("jax.experimental.ode", include_str!("../stdlib/jax/ode.py")),
    ("numpy._poly1d", include_str!("../stdlib/numpy_poly1d.py")),
    ("pdb", include_str!("../stdlib/pdb.py")),
    ("jax.dtypes", include_str!("../stdlib/jax/dtypes.py")),
];

/// The functions of `_playground`, the module the standard library's sources build on.
const NATIVES: &[&str] = &[
    "clock",
    "perf_counter",
    "monotonic",
    "write_stderr",
    "write_stdout",
    "recursion_limit",
    "device_kind",
    "device_coords",
    "shard_map_run",
    "place",
    "placement",
    "constrain",
    "mt_new",
    "mt_seed",
    "mt_random",
    "mt_bits",
    "tree_paths",
    "saved_residuals",
    "remat_used",
    "re_compile",
    "re_search",
];

/// The version of JAX whose behaviour the playground follows (its fixtures come from it).
pub const JAX_VERSION: &str = "0.10.2";

/// Names of the interpreter's own modules (`jax`, `jax.random`) that are written in Python:
/// (module, name, the library module that defines it).
const PYTHON_NAMES: &[(&str, &str, &str)] = &[
    ("jax", "typeof", "jax._core"),
    ("jax", "devices", "jax._devices"),
    ("jax", "local_devices", "jax._devices"),
    ("jax", "device_count", "jax._devices"),
    ("jax", "local_device_count", "jax._devices"),
    ("jax", "process_index", "jax._devices"),
    ("jax", "process_count", "jax._devices"),
    ("jax", "default_backend", "jax._devices"),
    ("jax", "device_put", "jax._devices"),
    ("jax", "device_get", "jax._devices"),
    ("jax", "sharding", "jax._sharding_module"),
    ("jax", "make_mesh", "jax.sharding"),
    ("jax", "shard_map", "jax.sharding"),
    ("jax", "P", "jax.sharding"),
    ("jax", "NamedSharding", "jax.sharding"),
    ("jax.lax", "with_sharding_constraint", "jax.sharding"),
    ("jax.debug", "visualize_array_sharding", "jax.sharding"),
    ("jax.debug", "visualize_sharding", "jax.sharding"),
    ("jax.debug", "inspect_array_sharding", "jax.sharding"),
    ("jax.random", "multivariate_normal", "jax._random"),
    ("jax.random", "gamma", "jax._random"),
    ("jax.random", "loggamma", "jax._random"),
    ("jax.random", "beta", "jax._random"),
    ("jax.numpy", "vectorize", "jax._vectorize"),
    ("jax.numpy.linalg", "eigh", "jax._linalg"),
    ("jax.numpy.linalg", "eigvalsh", "jax._linalg"),
    ("jax.numpy.linalg", "svd", "jax._linalg"),
    ("jax.numpy.linalg", "svdvals", "jax._linalg"),
    ("jax.numpy.linalg", "norm", "jax._linalg"),
    ("jax.numpy.linalg", "qr", "jax._linalg"),
    ("jax.numpy.linalg", "lstsq", "jax._linalg"),
    ("jax.numpy.linalg", "pinv", "jax._linalg"),
    ("jax.numpy.linalg", "matrix_rank", "jax._linalg"),
    ("numpy.linalg", "eigh", "numpy._linalg"),
    ("numpy.linalg", "eigvalsh", "numpy._linalg"),
    ("numpy.linalg", "svd", "numpy._linalg"),
    ("numpy.linalg", "svdvals", "numpy._linalg"),
    ("numpy.linalg", "norm", "numpy._linalg"),
    ("numpy.linalg", "qr", "numpy._linalg"),
    ("numpy.linalg", "lstsq", "numpy._linalg"),
    ("numpy.linalg", "pinv", "numpy._linalg"),
    ("numpy.linalg", "matrix_rank", "numpy._linalg"),
    ("jax.numpy", "indices", "jax._numpy"),
    ("jax.numpy", "bincount", "jax._numpy"),
    ("jax.numpy", "broadcast_shapes", "jax._numpy"),
    ("jax.numpy", "apply_along_axis", "jax._numpy_more"),
    ("jax.numpy", "apply_over_axes", "jax._numpy_more"),
    ("jax.numpy", "array_equiv", "jax._numpy_more"),
    ("jax.numpy", "bartlett", "jax._numpy_more"),
    ("jax.numpy", "blackman", "jax._numpy_more"),
    ("jax.numpy", "compress", "jax._numpy_more"),
    ("jax.numpy", "conj", "jax._numpy_more"),
    ("jax.numpy", "conjugate", "jax._numpy_more"),
    ("jax.numpy", "cumulative_prod", "jax._numpy_more"),
    ("jax.numpy", "delete", "jax._numpy_more"),
    ("jax.numpy", "diag_indices", "jax._numpy_more"),
    ("jax.numpy", "diag_indices_from", "jax._numpy_more"),
    ("jax.numpy", "diagflat", "jax._numpy_more"),
    ("jax.numpy", "digitize", "jax._numpy_more"),
    ("jax.numpy", "ediff1d", "jax._numpy_more"),
    ("jax.numpy", "euler_gamma", "jax._numpy_more"),
    ("jax.numpy", "extract", "jax._numpy_more"),
    ("jax.numpy", "fill_diagonal", "jax._numpy_more"),
    ("jax.numpy", "float_power", "jax._numpy_more"),
    ("jax.numpy", "fromfunction", "jax._numpy_more"),
    ("jax.numpy", "gcd", "jax._numpy_more"),
    ("jax.numpy", "gradient", "jax._numpy_more"),
    ("jax.numpy", "hamming", "jax._numpy_more"),
    ("jax.numpy", "hanning", "jax._numpy_more"),
    ("jax.numpy", "imag", "jax._numpy_more"),
    ("jax.numpy", "iscomplex", "jax._numpy_more"),
    ("jax.numpy", "iscomplexobj", "jax._numpy_more"),
    ("jax.numpy", "isreal", "jax._numpy_more"),
    ("jax.numpy", "isrealobj", "jax._numpy_more"),
    ("jax.numpy", "isscalar", "jax._numpy_more"),
    ("jax.numpy", "iterable", "jax._numpy_more"),
    ("jax.numpy", "ix_", "jax._numpy_more"),
    ("jax.numpy", "lcm", "jax._numpy_more"),
    ("jax.numpy", "modf", "jax._numpy_more"),
    ("jax.numpy", "nanargmax", "jax._numpy_more"),
    ("jax.numpy", "nanargmin", "jax._numpy_more"),
    ("jax.numpy", "nancumprod", "jax._numpy_more"),
    ("jax.numpy", "nancumsum", "jax._numpy_more"),
    ("jax.numpy", "nanprod", "jax._numpy_more"),
    ("jax.numpy", "nanstd", "jax._numpy_more"),
    ("jax.numpy", "nanvar", "jax._numpy_more"),
    ("jax.numpy", "polyadd", "jax._numpy_more"),
    ("jax.numpy", "polyder", "jax._numpy_more"),
    ("jax.numpy", "polyint", "jax._numpy_more"),
    ("jax.numpy", "polymul", "jax._numpy_more"),
    ("jax.numpy", "polysub", "jax._numpy_more"),
    ("jax.numpy", "real", "jax._numpy_more"),
    ("jax.numpy", "rollaxis", "jax._numpy_more"),
    ("jax.numpy", "tril_indices_from", "jax._numpy_more"),
    ("jax.numpy", "trim_zeros", "jax._numpy_more"),
    ("jax.numpy", "triu_indices_from", "jax._numpy_more"),
    ("jax.numpy", "unravel_index", "jax._numpy_more"),
    ("jax.numpy", "vander", "jax._numpy_more"),
    ("jax.lax", "associative_scan", "jax._associative_scan"),
    ("jax.lax", "top_k", "jax._top_k"),
    ("jax.lax", "erfc", "jax._special"),
    ("jax.scipy.special", "erfc", "jax._special"),
    ("jax.scipy.special", "ndtr", "jax._special"),
    ("jax.scipy.special", "log_ndtr", "jax._special"),
    ("jax.lax", "conv_dimension_numbers", "jax._lax_conv"),
    ("jax.lax", "conv_general_permutations", "jax._lax_conv"),
    ("jax.lax", "ConvDimensionNumbers", "jax._lax_conv"),
    ("jax.tree_util", "tree_flatten_with_path", "jax._tree"),
    ("jax.tree_util", "tree_leaves_with_path", "jax._tree"),
    ("jax.tree_util", "tree_map_with_path", "jax._tree"),
    ("jax.tree_util", "keystr", "jax._tree"),
    ("jax.tree_util", "SequenceKey", "jax._tree"),
    ("jax.tree_util", "DictKey", "jax._tree"),
    ("jax.tree_util", "GetAttrKey", "jax._tree"),
    ("jax.tree_util", "FlattenedIndexKey", "jax._tree"),
    ("jax.tree_util", "tree_transpose", "jax._tree"),
    ("jax.tree", "transpose", "jax._tree"),
    ("jax.tree", "flatten_with_path", "jax._tree"),
    ("jax.tree", "leaves_with_path", "jax._tree"),
    ("jax.tree", "map_with_path", "jax._tree"),
    ("numpy", "vectorize", "numpy._vectorize"),
    ("jax.numpy", "cov", "jax._statistics"),
    ("jax.numpy", "corrcoef", "jax._statistics"),
    ("numpy", "cov", "numpy._statistics"),
    ("numpy", "corrcoef", "numpy._statistics"),
    ("jax.numpy", "mgrid", "jax._grids"),
    ("jax.numpy", "ogrid", "jax._grids"),
    ("numpy", "mgrid", "numpy._grids"),
    ("numpy", "ogrid", "numpy._grids"),
    ("jax.numpy", "s_", "jax._grids"),
    ("jax.numpy", "index_exp", "jax._grids"),
    ("numpy", "s_", "numpy._grids"),
    ("numpy", "index_exp", "numpy._grids"),
    ("numpy", "conj", "numpy._more"),
    ("numpy", "conjugate", "numpy._more"),
    ("numpy", "cumulative_prod", "numpy._more"),
    ("numpy", "delete", "numpy._more"),
    ("numpy", "diag_indices", "numpy._more"),
    ("numpy", "diag_indices_from", "numpy._more"),
    ("numpy", "broadcast_shapes", "numpy._more"),
    ("numpy", "digitize", "numpy._more"),
    ("numpy", "ediff1d", "numpy._more"),
    ("numpy", "gcd", "numpy._more"),
    ("numpy", "gradient", "numpy._more"),
    ("numpy", "imag", "numpy._more"),
    ("numpy", "iscomplexobj", "numpy._more"),
    ("numpy", "isrealobj", "numpy._more"),
    ("numpy", "isscalar", "numpy._more"),
    ("numpy", "lcm", "numpy._more"),
    ("numpy", "nancumprod", "numpy._more"),
    ("numpy", "nancumsum", "numpy._more"),
    ("numpy", "nanprod", "numpy._more"),
    ("numpy", "nanstd", "numpy._more"),
    ("numpy", "nanvar", "numpy._more"),
    ("numpy", "polyadd", "numpy._more"),
    ("numpy", "polyder", "numpy._more"),
    ("numpy", "polyfit", "numpy._more"),
    ("numpy", "polyint", "numpy._more"),
    ("numpy", "polymul", "numpy._more"),
    ("numpy", "polysub", "numpy._more"),
    ("numpy", "real", "numpy._more"),
    ("numpy", "trim_zeros", "numpy._more"),
    ("numpy", "unravel_index", "numpy._more"),
    ("numpy", "vander", "numpy._more"),
    ("numpy", "poly1d", "numpy._poly1d"),
];

/// The library module that defines `module.name`, where that is written in Python.
pub fn python_name(module: &str, name: &str) -> Option<&'static str> {
    PYTHON_NAMES.iter().find(|(m, n, _)| *m == module && *n == name).map(|(_, _, source)| *source)
}

/// Whether `name` is a module the standard library sources provide.
pub fn is_library_module(name: &str) -> bool {
    SOURCES.iter().any(|(n, _)| *n == name)
}

impl Interp<'_, '_> {
    /// `import name`: the module, run the first time this run imports it.
    pub(super) fn import<'a>(&'a mut self, name: &'a str) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Some(m) = self.modules.get(name) {
                return Ok(m.clone());
            }
            let module = if let Some(file) = SOURCES.iter().position(|(n, _)| *n == name) {
                self.run_library_module(name, SOURCES[file].1, file as u16 + 1).await?
            } else if name == "_playground" {
                let scope = new_scope(None, Rc::new(Vec::new()));
                for &f in NATIVES {
                    scope.vars.borrow_mut().insert(f.to_string(), Value::native(Native::Library("_playground", f)));
                }
                // `functools.partial` is the interpreter's own, which `jax.jit` understands.
                scope.vars.borrow_mut().insert("partial".into(), Value::native(Native::Jax("partial")));
                Value::PyModule(Rc::new(PyModule { name: name.to_string(), scope }))
            } else if name.starts_with("scipy.") {
                return super::unsupported(format!("{name} is not supported by the playground yet"));
            } else {
                match jax::import_module(name) {
                    Ok(id) => Value::Module(id),
                    Err(e) if e.kind == Builtin::NotImplementedError => return Err(e),
                    Err(_) => {
                        return Err(RtError::of(Builtin::ModuleNotFoundError, format!("No module named '{name}'")))
                    }
                }
            };
            self.modules.insert(name.to_string(), module.clone());
            Ok(module)
        })
    }

    /// Runs a library module's source in a fresh global scope.
    fn run_library_module<'a>(
        &'a mut self,
        name: &'a str,
        source: &'static str,
        file: u16,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            let (module, errors) = crate::parser::parse(source, file);
            if let Some(e) = errors.first() {
                return Err(RtError::of(
                    Builtin::ImportError,
                    format!("the playground's module {name} does not parse ({}:{}: {})", e.line, e.col, e.message),
                ));
            }
            let scope = new_scope(None, Rc::new(Vec::new()));
            scope.vars.borrow_mut().insert("__name__".into(), Value::str(name));
            let value = Value::PyModule(Rc::new(PyModule { name: name.to_string(), scope: scope.clone() }));
            // Cached before it runs, so modules importing each other find it.
            self.modules.insert(name.to_string(), value.clone());
            let result = self.exec_block(&module.body, &scope).await;
            if let Err(e) = result {
                self.modules.remove(name);
                return Err(e);
            }
            Ok(value)
        })
    }

    /// `module.name` for a module of the standard library (or a submodule of any module).
    pub(super) fn py_module_attr<'a>(&'a mut self, m: &'a Rc<PyModule>, name: &'a str) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            if let Some(v) = m.scope.vars.borrow().get(name) {
                return Ok(v.clone());
            }
            match name {
                "__name__" => return Ok(Value::str(&m.name)),
                "__dict__" => {
                    let mut d = super::value::Dict::default();
                    let mut names: Vec<(String, Value)> =
                        m.scope.vars.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
                    names.sort_by(|a, b| a.0.cmp(&b.0));
                    for (k, v) in names {
                        d.set_str(&k, v);
                    }
                    return Ok(Value::Dict(Rc::new(std::cell::RefCell::new(d))));
                }
                _ => {}
            }
            let sub = format!("{}.{name}", m.name);
            if is_library_module(&sub) {
                return self.import(&sub).await;
            }
            // SciPy is here only in part: a name it has that is not here says so.
            if m.name == "scipy" || m.name.starts_with("scipy.") {
                return super::unsupported(format!("{}.{name} is not supported by the playground yet", m.name));
            }
            attr_err(format!("module '{}' has no attribute '{name}'", m.name))
        })
    }

    /// `from module import *`: the module's public names (its `__all__` where it has one).
    pub(super) fn public_names<'a>(&'a mut self, module: &'a Value) -> LocalFuture<'a, R<Vec<(String, Value)>>> {
        Box::pin(async move {
            let Value::PyModule(m) = module else {
                return super::unsupported(format!(
                    "'from {} import *' is not supported by the playground; import the names you use",
                    match module {
                        Value::Module(id) => id.name().to_string(),
                        other => other.type_name().into_owned(),
                    }
                ));
            };
            let all = m.scope.vars.borrow().get("__all__").cloned();
            let names: Vec<String> = match all {
                Some(all) => self
                    .collect(&all)
                    .await?
                    .into_iter()
                    .map(|v| match v {
                        Value::Str(s) => Ok(s.to_string()),
                        other => type_err(format!("__all__ must hold strings, not {}", other.type_name())),
                    })
                    .collect::<R<_>>()?,
                None => {
                    let mut names: Vec<String> =
                        m.scope.vars.borrow().keys().filter(|k| !k.starts_with('_')).cloned().collect();
                    names.sort();
                    names
                }
            };
            let mut out = Vec::with_capacity(names.len());
            for n in names {
                let v = self.py_module_attr(m, &n).await?;
                out.push((n, v));
            }
            Ok(out)
        })
    }

    /// Calls a function of `_playground`.
    pub(super) fn call_library<'a>(
        &'a mut self,
        module: &'a str,
        name: &'a str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> LocalFuture<'a, R<Value>> {
        Box::pin(async move {
            super::builtins::no_more_kwargs(name, &kwargs)?;
            let seconds = |d: std::time::Duration| Value::Float(d.as_secs_f64());
            let state = |v: &Value| -> R<Rc<Native>> {
                match v {
                    Value::Native(n) if matches!(&**n, Native::Mersenne(_)) => Ok(n.clone()),
                    other => type_err(format!("{module}.{name} expects a generator state, got {}", other.type_name())),
                }
            };
            fn mt(n: &Rc<Native>) -> std::cell::RefMut<'_, Mt19937> {
                match &**n {
                    Native::Mersenne(m) => m.borrow_mut(),
                    _ => unreachable!("checked by `state`"),
                }
            }
            match name {
                "tree_paths" => return self.tree_paths(args).await,
                "saved_residuals" => return self.saved_residuals(args).await,
                "re_compile" => return self.re_compile(&args),
                "re_search" => return self.re_search(&args),
                "shard_map_run" => return self.shard_map_run(args).await,
                "place" => return self.place(args),
                "placement" => return Ok(self.placement(&args)),
                "constrain" => return self.constrain(args).await,
                _ => {}
            }
            Ok(match name {
                // The host's clocks, as `time` reads them (the emulator's own time is in its
                // counters, never here).
                "clock" => {
                    let now = web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).unwrap_or_default();
                    seconds(now)
                }
                "perf_counter" | "monotonic" => seconds(self.started.elapsed()),
                "write_stderr" | "write_stdout" => {
                    let [Value::Str(text)] = &args[..] else { return type_err(format!("{name}() takes a string")) };
                    if name == "write_stderr" {
                        self.write_stderr(text)?;
                    } else {
                        self.write_stdout(text)?;
                    }
                    Value::Int(text.chars().count() as i64)
                }
                "recursion_limit" => Value::Int(self.limits.recursion as i64),
                "remat_used" => {
                    self.remat_used = true;
                    Value::None
                }
                "device_kind" => Value::str(&self.ctx.device_kind()),
                // Each device's (x, y, z) in the emulated slice, device i at index i.
                "device_coords" => Value::list(
                    self.ctx
                        .device_coords()
                        .iter()
                        .map(|c| Value::tuple(c.iter().map(|&x| Value::Int(x as i64)).collect()))
                        .collect(),
                ),
                "mt_new" => {
                    Value::native(Native::Mersenne(Box::new(std::cell::RefCell::new(self.mt_from_seed(args.first())?))))
                }
                "mt_seed" => {
                    let s = state(args.first().unwrap_or(&Value::None))?;
                    let seeded = self.mt_from_seed(args.get(1))?;
                    *mt(&s) = seeded;
                    Value::None
                }
                "mt_random" => {
                    let s = state(args.first().unwrap_or(&Value::None))?;
                    let x = mt(&s).next_f64();
                    Value::Float(x)
                }
                "mt_bits" => {
                    let s = state(args.first().unwrap_or(&Value::None))?;
                    let k = args.get(1).and_then(as_int).unwrap_or(0);
                    if !(0..=63).contains(&k) {
                        return value_err(format!(
                            "getrandbits({k}): the playground's ints are 64-bit, so at most 63 bits can be drawn at once"
                        ));
                    }
                    let bits = mt(&s).bits(k as u32);
                    Value::Int(bits as i64)
                }
                _ => return attr_err(format!("module '{module}' has no attribute '{name}'")),
            })
        })
    }

    /// A generator seeded as CPython's `random.seed(a)` seeds one: from an int's magnitude,
    /// a float's hash, or (for `None`) the clock.
    fn mt_from_seed(&self, seed: Option<&Value>) -> R<Mt19937> {
        match seed {
            None | Some(Value::None) => {
                let now = web_time::SystemTime::now().duration_since(web_time::UNIX_EPOCH).unwrap_or_default();
                Ok(Mt19937::from_int(now.as_nanos() as i64))
            }
            Some(v @ (Value::Int(_) | Value::Bool(_))) => Ok(Mt19937::from_int(as_int(v).unwrap_or(0))),
            Some(Value::Float(x)) => Ok(Mt19937::from_int(super::builtins::py_hash(&Value::Float(*x)))),
            Some(v) if as_f64(v).is_some() => Ok(Mt19937::from_int(as_f64(v).unwrap_or(0.0) as i64)),
            Some(other) => super::unsupported(format!(
                "seeding from a {} is not supported by the playground (seed with an int)",
                other.type_name()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_library_module_parses() {
        for (name, source) in super::SOURCES {
            let (_, errors) = crate::parser::parse(source, 1);
            assert!(errors.is_empty(), "{name}: {errors:?}");
        }
    }
}
