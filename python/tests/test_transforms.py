"""hlox.grad / vjp / jvp / vmap from Python, and custom-call rules built by
Python functions: compared against jax.grad / jax.vmap on JAX-lowered
modules, against loops, and against analytic derivatives."""

import numpy as np
import pytest

import hlox

jax = pytest.importorskip("jax")
jnp = jax.numpy

RNG = np.random.default_rng(23)


def _close(got, want, tol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


# ------------------------------------------------------------------ an MLP from JAX


def mlp_loss(x, w1, b1, w2, b2):
    h = jnp.tanh(x @ w1 + b1)
    y = h @ w2 + b2
    return jnp.mean((y - 0.5) ** 2)


def example_loss(x, w1, b1, w2, b2):
    """The loss of one example (x: f32[4])."""
    h = jnp.tanh(x @ w1 + b1)
    return jnp.sum(jnp.sin(h @ w2 + b2))


def mlp_args(batch=8):
    f = np.float32
    return (
        RNG.standard_normal((batch, 4)).astype(f),
        (RNG.standard_normal((4, 16)) * 0.5).astype(f),
        (RNG.standard_normal(16) * 0.1).astype(f),
        (RNG.standard_normal((16, 3)) * 0.5).astype(f),
        (RNG.standard_normal(3) * 0.1).astype(f),
    )


def test_grad_of_a_jax_mlp_matches_jax_grad():
    args = mlp_args()
    m = hlox.jit(mlp_loss).lower(*args)
    g = hlox.grad(m, wrt=(1, 2, 3, 4))
    assert isinstance(g, hlox.Module)
    assert [s.dims for s in g.parameter_shapes] == [a.shape for a in args]
    got = hlox.compile(g)(*args)
    want = jax.grad(mlp_loss, argnums=(1, 2, 3, 4))(*args)
    assert len(got) == 4
    for a, b in zip(got, want):
        assert a.shape == b.shape
        _close(a, b)
    # One parameter (an int), and the default (parameter 0).
    (gw1,) = hlox.compile(hlox.grad(m, 1))(*args)
    _close(gw1, want[0])
    (gx,) = hlox.compile(hlox.grad(m))(*args)
    _close(gx, jax.grad(mlp_loss)(*args))


def gp_loss(a, b):
    """A Gaussian process's likelihood: jaxlib's Cholesky and triangular
    solve targets (custom calls), differentiated by hlox's rules for them."""
    s = a @ a.T + 4.0 * jnp.eye(a.shape[0], dtype=jnp.float32)
    c = jax.scipy.linalg.cho_factor(s, lower=True)
    x = jax.scipy.linalg.cho_solve(c, b)
    return jnp.sum(b * x) + 2.0 * jnp.sum(jnp.log(jnp.diag(c[0])))


def test_grad_and_vmap_through_lapack_targets():
    a = RNG.standard_normal((5, 5)).astype(np.float32)
    b = RNG.standard_normal((5, 2)).astype(np.float32)
    m = hlox.jit(gp_loss).lower(a, b)
    assert "lapack_spotrf_ffi" in m.to_text() and "lapack_strsm_ffi" in m.to_text()
    got = hlox.compile(hlox.grad(m, [0, 1]))(a, b)
    want = jax.grad(gp_loss, argnums=(0, 1))(a, b)
    for g, w in zip(got, want):
        _close(g, w, 2e-4)
    # A batch of matrices: each target called once on the batch.
    a3 = RNG.standard_normal((3, 5, 5)).astype(np.float32)
    (got,) = hlox.compile(hlox.vmap(m, in_axes=[0, None], size=3))(a3, b)
    _close(got, jax.vmap(gp_loss, in_axes=(0, None))(a3, b), 2e-4)

    # jnp.linalg.solve and slogdet: a pivoted LU (lapack_sgetrf_ffi).
    def solve_loss(a, b):
        m = a + 4.0 * jnp.eye(5, dtype=jnp.float32)[::-1]
        return jnp.sum(jnp.linalg.solve(m, b) ** 2) + jnp.linalg.slogdet(m)[1]

    m = hlox.jit(solve_loss).lower(a, b)
    assert "lapack_sgetrf_ffi" in m.to_text()
    got = hlox.compile(hlox.grad(m, [0, 1]))(a, b)
    for g, w in zip(got, jax.grad(solve_loss, argnums=(0, 1))(a, b)):
        _close(g, w, 2e-4)


def test_grad_through_eigh_and_svd():
    # A PCA-style loss: the top eigenvalue share of a covariance and the
    # nuclear norm of the data (lapack_ssyevd_ffi, lapack_sgesdd_ffi).
    def pca_loss(x, w):
        xc = x - x.mean(0)
        cov = xc.T @ xc / x.shape[0] + 0.1 * jnp.diag(jnp.arange(1.0, 5.0, dtype=jnp.float32))
        vals, vecs = jnp.linalg.eigh(cov)
        s = jnp.linalg.svd(xc, full_matrices=False)[1]
        return vals[-1] / jnp.sum(vals) + jnp.sum(vecs[:, -1] ** 2 * w) + 0.1 * jnp.sum(s)

    x = RNG.standard_normal((6, 4)).astype(np.float32)
    w = RNG.standard_normal(4).astype(np.float32)
    m = hlox.jit(pca_loss).lower(x, w)
    assert "lapack_ssyevd_ffi" in m.to_text() and "lapack_sgesdd_ffi" in m.to_text()
    got = hlox.compile(hlox.grad(m, [0, 1]))(x, w)
    for g, want in zip(got, jax.grad(pca_loss, argnums=(0, 1))(x, w)):
        _close(g, want, 2e-4)
    # Per-example gradients over a batch of data sets: vmap of grad.
    x3 = RNG.standard_normal((3, 6, 4)).astype(np.float32)
    (got,) = hlox.compile(hlox.vmap(hlox.grad(m, [0]), in_axes=[0, None], size=3))(x3, w)
    _close(got, jax.vmap(jax.grad(pca_loss), in_axes=(0, None))(x3, w), 2e-4)


def test_vjp_and_jvp_of_a_jax_mlp():
    args = mlp_args()
    m = hlox.jit(mlp_loss).lower(*args)
    ct = np.float32(1.7)
    got = hlox.compile(hlox.vjp(m, wrt=[3]))(*args, ct)
    _, pullback = jax.vjp(lambda w2: mlp_loss(args[0], args[1], args[2], w2, args[4]), args[3])
    _close(got[0], pullback(ct)[0])

    t1 = RNG.standard_normal(args[1].shape).astype(np.float32)
    t4 = RNG.standard_normal(args[4].shape).astype(np.float32)
    y, ty = hlox.compile(hlox.jvp(m, wrt=[1, 4]))(*args, t1, t4)
    wy, wty = jax.jvp(lambda w1, b2: mlp_loss(args[0], w1, args[2], args[3], b2), (args[1], args[4]), (t1, t4))
    _close(y, wy)
    _close(ty, wty)


def test_vmap_matches_a_loop():
    x, w1, b1, w2, b2 = mlp_args(batch=6)
    m = hlox.jit(example_loss).lower(x[0], w1, b1, w2, b2)
    single = hlox.compile(m)
    loop = np.stack([single(x[i], w1, b1, w2, b2) for i in range(6)])
    batched = hlox.compile(hlox.vmap(m, in_axes=(0, None, None, None, None), size=6))
    (got,) = batched(x, w1, b1, w2, b2)
    assert got.shape == (6,)
    _close(got, loop)
    # The batch at the end of x (axis -1 is axis 1 of the batched f32[4,6]).
    (got_t,) = hlox.compile(hlox.vmap(m, in_axes=[-1, None, None, None, None], size=6))(
        np.ascontiguousarray(x.T), w1, b1, w2, b2
    )
    _close(got_t, loop)
    _close(got, jax.vmap(example_loss, in_axes=(0, None, None, None, None))(x, w1, b1, w2, b2))


def test_hessian_vector_product_is_vjp_of_grad():
    args = mlp_args()
    m = hlox.jit(mlp_loss).lower(*args)
    v = RNG.standard_normal(args[1].shape).astype(np.float32)
    hvp = hlox.vjp(hlox.grad(m, wrt=1), wrt=1)
    (got,) = hlox.compile(hvp)(*args, v)

    def g(w1):
        return jax.grad(mlp_loss, argnums=1)(args[0], w1, *args[2:])

    _, want = jax.jvp(g, (args[1],), (v,))
    _close(got, want, tol=1e-4)
    # Forward over reverse gives the same product (jvp returns the result
    # leaves, then their tangents).
    _, got_fwd = hlox.compile(hlox.jvp(hlox.grad(m, wrt=1), wrt=1))(*args, v)
    _close(got_fwd, want, tol=1e-4)


def test_per_example_gradients_are_vmap_of_grad():
    x, w1, b1, w2, b2 = mlp_args(batch=5)
    m = hlox.jit(example_loss).lower(x[0], w1, b1, w2, b2)
    per_example = hlox.vmap(hlox.grad(m, wrt=(1, 4)), in_axes=(0, None, None, None, None), size=5)
    gw1, gb2 = hlox.compile(per_example)(x, w1, b1, w2, b2)
    want = jax.vmap(jax.grad(example_loss, argnums=(1, 4)), in_axes=(0, None, None, None, None))(
        x, w1, b1, w2, b2
    )
    assert gw1.shape == (5, 4, 16) and gb2.shape == (5, 3)
    _close(gw1, want[0])
    _close(gb2, want[1])


def test_grad_of_grad():
    # grad returns a one-element tuple of a scalar, which grad accepts.
    f = hlox.jit(lambda x: jnp.sin(x) * x**2).lower(np.float32(0.0))
    x = np.float32(0.9)
    (got,) = hlox.compile(hlox.grad(hlox.grad(f)))(x)
    _close(got, jax.grad(jax.grad(lambda x: jnp.sin(x) * x**2))(x))
    (third,) = hlox.compile(hlox.grad(hlox.grad(hlox.grad(f))))(x)
    _close(third, jax.grad(jax.grad(jax.grad(lambda x: jnp.sin(x) * x**2)))(x), tol=1e-4)


def test_a_gradient_compiles_for_cuda():
    args = mlp_args()
    g = hlox.grad(hlox.jit(mlp_loss).lower(*args), wrt=(1, 2, 3, 4))
    exe = hlox.compile(g, platform="cuda")
    assert exe.platform == "cuda"
    try:
        got = exe(*args)
    except hlox.ExecError as e:  # no GPU here
        assert "CUDA" in str(e)
    else:  # a machine with a GPU
        for a, b in zip(got, hlox.compile(g)(*args)):
            _close(a, b)


def test_transformed_modules_round_trip():
    args = mlp_args()
    g = hlox.grad(hlox.jit(mlp_loss).lower(*args), wrt=(1, 2))
    again = hlox.Module.from_text(g.to_text())
    a = hlox.compile(again)(*args)
    b = hlox.compile(hlox.Module.from_proto(g.to_proto()))(*args)
    for x, y in zip(a, b):
        _close(x, y, tol=0)


# ------------------------------------------------------------------ custom calls with rules

SIN_CALLS = []


@hlox.custom_call_target("py_sin")
def _py_sin(x, *, out):
    SIN_CALLS.append(x.shape)
    out[...] = np.sin(x)


def _sum_f64():
    b = hlox.Builder("add")
    p = b.parameter(0, hlox.Shape.array("f64", ()), "a")
    q = b.parameter(1, hlox.Shape.array("f64", ()), "b")
    return b.build(p + q)


def sin_program(n=3):
    """sum(py_sin(x) * x): its gradient is cos(x) x + sin(x)."""
    b = hlox.Builder("uses_py_sin")
    s = hlox.Shape.array("f64", (n,))
    x = b.parameter(0, s, "x")
    y = b.custom_call("py_sin", [x], s, api_version=4)
    return b.build(b.reduce(y * x, b.constant(np.float64(0)), _sum_f64(), [0]))


SEEN = []


def jvp_py_sin(call):
    SEEN.append(("jvp", call.target, [c.dims for c in call.operands], call.result.dims, call.opaque))
    b = hlox.Builder("jvp.py_sin")
    x = b.parameter(0, call.operands[0], "x")
    t = b.parameter(1, call.operands[0], "t")
    y = b.custom_call(call.target, [x], call.result, api_version=4)
    return b.build(b.tuple([y, t * b.cos(x)]))


def vjp_py_sin(call):
    SEEN.append(("vjp", call.target, [c.dims for c in call.operands], call.result.dims, call.opaque))
    b = hlox.Builder("vjp.py_sin")
    x = b.parameter(0, call.operands[0], "x")
    ct = b.parameter(1, call.result, "ct")
    return b.build(b.tuple([ct * b.cos(x)]))


def sin_rules():
    r = hlox.Rules()
    r.jvp("py_sin", jvp_py_sin)
    r.vjp("py_sin", vjp_py_sin)
    r.vmap_method("py_sin", "sequential")
    return r


X = np.array([0.3, -1.2, 2.0])


def analytic_grad(x):
    return np.cos(x) * x + np.sin(x)


def test_python_rules_for_a_python_target_match_the_analytic_derivative():
    m = sin_program()
    rules = sin_rules()
    assert repr(rules) == "<hlox.Rules jvp: py_sin; vjp: py_sin; vmap: py_sin=sequential>"
    SEEN.clear()
    SIN_CALLS.clear()
    (g,) = hlox.compile(hlox.grad(m, rules=rules))(X)
    _close(g, analytic_grad(X), tol=1e-12)
    # The rule function was told about the call; the target itself ran.
    assert SEEN == [("vjp", "py_sin", [(3,)], (3,), b"")]
    assert SIN_CALLS, "the forward pass calls the Python target"
    # jvp along e_1 gives the gradient's second component; the jvp rule
    # calls the target.
    y, t = hlox.compile(hlox.jvp(m, rules=rules))(X, np.array([0.0, 1.0, 0.0]))
    _close(y, np.sum(np.sin(X) * X), tol=1e-12)
    _close(t, analytic_grad(X)[1], tol=1e-12)
    # Second order through the rule (the rule's body is differentiated):
    # d2/dx2 sum(sin(x) x) = 2 cos(x) - x sin(x), a diagonal Hessian.
    v = np.array([1.0, 2.0, -1.0])
    (hv,) = hlox.compile(hlox.vjp(hlox.grad(m, rules=rules), rules=rules))(X, v)
    _close(hv, (2 * np.cos(X) - X * np.sin(X)) * v, tol=1e-12)


@pytest.mark.parametrize("method", ["sequential", "expand_dims", "broadcast_all"])
def test_vmap_methods_for_a_python_target(method):
    m = sin_program()
    rules = hlox.Rules()
    rules.vmap_method("py_sin", method)
    xs = RNG.standard_normal((4, 3))
    (got,) = hlox.compile(hlox.vmap(m, 0, 4, rules=rules))(xs)
    _close(got, [np.sum(np.sin(r) * r) for r in xs], tol=1e-12)


def test_per_example_gradients_through_a_python_rule():
    m = sin_program()
    xs = RNG.standard_normal((5, 3))
    per_example = hlox.vmap(hlox.grad(m, rules=sin_rules()), in_axes=[0], size=5, rules=sin_rules())
    (got,) = hlox.compile(per_example)(xs)
    _close(got, np.stack([analytic_grad(r) for r in xs]), tol=1e-12)


RULES_TEXT = """
HloModule py_sin_rules
jvp.py_sin {
  x = f64[3] parameter(0)
  t = f64[3] parameter(1)
  y = f64[3] custom-call(x), custom_call_target="py_sin", api_version=API_VERSION_TYPED_FFI
  c = f64[3] cosine(x)
  ty = f64[3] multiply(t, c)
  ROOT r = (f64[3], f64[3]) tuple(y, ty)
}
ENTRY vjp.py_sin {
  x = f64[3] parameter(0)
  ct = f64[3] parameter(1)
  c = f64[3] cosine(x)
  g = f64[3] multiply(ct, c)
  ROOT r = (f64[3]) tuple(g)
}
"""


def test_rules_from_hlo_text():
    m = sin_program()
    rules = hlox.Rules.from_text(RULES_TEXT)
    assert sorted((k, t) for k, t, _ in rules.entries()) == [("jvp", "py_sin"), ("vjp", "py_sin")]
    (g,) = hlox.compile(hlox.grad(m, rules=rules))(X)
    _close(g, analytic_grad(X), tol=1e-12)
    _, t = hlox.compile(hlox.jvp(m, rules=hlox.Rules.from_module(hlox.Module.from_text(RULES_TEXT))))(
        X, np.array([0.0, 0.0, 1.0])
    )
    _close(t, analytic_grad(X)[2], tol=1e-12)
    # A Python rule merged over the module's replaces its vjp rule.
    merged = hlox.Rules.from_text(RULES_TEXT)
    calls = []

    def doubled(call):
        calls.append(call.target)
        b = hlox.Builder("vjp2")
        x = b.parameter(0, call.operands[0], "x")
        ct = b.parameter(1, call.result, "ct")
        return b.build(b.tuple([2.0 * ct * b.cos(x)]))

    python_rules = hlox.Rules()
    python_rules.vjp("py_sin", doubled)
    merged.merge(python_rules)
    (g2,) = hlox.compile(hlox.grad(m, rules=merged))(X)
    _close(g2, np.cos(X) * X * 2 + np.sin(X), tol=1e-12)
    assert calls == ["py_sin"]


def test_rules_as_decorators():
    rules = hlox.Rules()

    @rules.vjp("py_sin")
    def vjp_rule(call):
        return vjp_py_sin(call)

    assert vjp_rule is not None and vjp_rule.__name__ == "vjp_rule"
    assert rules.jvp("py_sin", jvp_py_sin) is jvp_py_sin
    assert [(k, t) for k, t, _ in rules.entries()] == [("vjp", "py_sin"), ("jvp", "py_sin")]
    (g,) = hlox.compile(hlox.grad(sin_program(), rules=rules))(X)
    _close(g, analytic_grad(X), tol=1e-12)


def test_python_rules_for_a_c_target(c_lib):
    # double_v1 (conftest.py): out = 2 * x on f32[4], XLA's api_version 1.
    hlox.register_ffi_target("py_rules_double", c_lib.double_v1, api_version=1)
    s = hlox.Shape.array("f32", (4,))
    b = hlox.Builder("uses_double")
    x = b.parameter(0, s, "x")
    y = b.custom_call("py_rules_double", [x], s)
    m = b.build(y * b.sin(x))  # 2 x sin x: its derivative is 2 sin x + 2 x cos x

    rules = hlox.Rules()

    @rules.jvp("py_rules_double")
    def _(call):
        b = hlox.Builder("jvp.double")
        x = b.parameter(0, call.operands[0], "x")
        t = b.parameter(1, call.operands[0], "t")
        return b.build(b.tuple([b.custom_call(call.target, [x], call.result), 2.0 * t]))

    @rules.vjp("py_rules_double")
    def _(call):
        b = hlox.Builder("vjp.double")
        b.parameter(0, call.operands[0], "x")
        ct = b.parameter(1, call.result, "ct")
        return b.build(b.tuple([ct * 2.0]))

    xs = np.array([0.5, -1.0, 2.0, 0.25], np.float32)
    want = 2 * np.sin(xs) + 2 * xs * np.cos(xs)
    ct = np.ones(4, np.float32)
    (g,) = hlox.compile(hlox.vjp(m, rules=rules))(xs, ct)
    _close(g, want)
    y, t = hlox.compile(hlox.jvp(m, rules=rules))(xs, ct)
    _close(y, 2 * xs * np.sin(xs))
    _close(t, want)


def test_a_vmap_rule_batches_a_python_target_in_one_call():
    m = sin_program()
    rules = hlox.Rules()
    rules.vmap_method("py_sin", "sequential")  # the rule takes precedence

    @rules.vmap("py_sin")
    def vmap_sin(call):
        # call.operands are the batched shapes: (4, 3) here.
        SEEN.append(("vmap", call.target, [c.dims for c in call.operands]))
        b = hlox.Builder("vmap.py_sin")
        xs = b.parameter(0, call.operands[0], "xs")
        return b.build(b.custom_call(call.target, [xs], call.operands[0], api_version=4))

    xs = RNG.standard_normal((4, 3))
    SEEN.clear()
    SIN_CALLS.clear()
    (got,) = hlox.compile(hlox.vmap(m, 0, 4, rules=rules))(xs)
    _close(got, [np.sum(np.sin(r) * r) for r in xs], tol=1e-12)
    assert SEEN == [("vmap", "py_sin", [(4, 3)])]
    assert SIN_CALLS == [(4, 3)], "one call on the whole batch"


def test_rules_registered_by_a_c_plugin(tmp_path):
    # targets/c/cube_rules.c registers `cube` (x^3 on f32[4]) with its jvp,
    # vjp and vmap rules: loading the plugin is all it takes.
    from conftest import REPO, _cc

    src = (REPO / "targets" / "c" / "cube_rules.c").read_text()
    lib = _cc(src, tmp_path / "libcube_rules.so", flags=[f"-I{REPO / 'targets' / 'include'}"])
    hlox.load_plugin(lib)
    s = hlox.Shape.array("f32", (4,))
    b = hlox.Builder("cube_loss")
    x = b.parameter(0, s, "x")
    y = b.custom_call("cube", [x], s, api_version=2)
    sum_f32 = hlox.Builder("add")
    p = sum_f32.parameter(0, hlox.Shape.array("f32", ()), "a")
    q = sum_f32.parameter(1, hlox.Shape.array("f32", ()), "b")
    m = b.build(b.reduce(y * x, b.constant(np.float32(0)), sum_f32.build(p + q), [0]))
    xs = np.array([0.5, -1.25, 2.0, 0.75], np.float32)
    (g,) = hlox.compile(hlox.grad(m))(xs)
    _close(g, 4 * xs**3)
    rows = np.stack([xs, xs[::-1]])
    (v,) = hlox.compile(hlox.vmap(m, 0, 2))(rows)
    _close(v, np.sum(rows**4, axis=1))


# ------------------------------------------------------------------ errors


def test_missing_rule_names_the_target():
    m = sin_program()
    with pytest.raises(hlox.TransformError) as e:
        hlox.grad(m)
    assert e.value.target == "py_sin"
    assert e.value.transform == "grad"
    assert e.value.opcode == "custom-call"
    assert e.value.instruction
    assert "calls target `py_sin`, which has no vjp rule" in str(e.value)
    assert isinstance(e.value, hlox.Error)
    with pytest.raises(hlox.TransformError, match="no jvp rule"):
        only_vjp = hlox.Rules()
        only_vjp.vjp("py_sin", vjp_py_sin)
        hlox.jvp(m, rules=only_vjp)
    with pytest.raises(hlox.TransformError) as e:
        hlox.vmap(m, [0], 2)
    assert e.value.target == "py_sin"


def test_a_failing_rule_function_is_the_cause():
    m = sin_program()

    def broken(call):
        raise ValueError("rule exploded")

    rules = hlox.Rules()
    rules.vjp("py_sin", broken)
    with pytest.raises(hlox.TransformError) as e:
        hlox.grad(m, rules=rules)
    assert "rule exploded" in str(e.value)
    assert "broken" in str(e.value)
    assert isinstance(e.value.__cause__, ValueError)

    rules.vjp("py_sin", lambda call: 42)
    with pytest.raises(hlox.TransformError) as e:
        hlox.grad(m, rules=rules)
    assert isinstance(e.value.__cause__, TypeError)
    assert "not a hlox.Module" in str(e.value)


def test_a_rule_that_does_not_fit_names_both_signatures():
    m = sin_program()

    def wrong(call):
        b = hlox.Builder("vjp.py_sin")
        x = b.parameter(0, hlox.Shape.array("f32", (3,)), "x")
        return b.build(b.tuple([x]))

    rules = hlox.Rules()
    rules.vjp("py_sin", wrong)
    with pytest.raises(hlox.TransformError) as e:
        hlox.grad(m, rules=rules)
    assert e.value.target == "py_sin"
    assert "(f32[3]) -> (f32[3])" in str(e.value)
    assert "but the call needs (f64[3], f64[3]) -> (f64[3])" in str(e.value)


QUOTIENT = """
HloModule quotients
mul { a = f64[] parameter(0)  b = f64[] parameter(1)  ROOT c = f64[] divide(a, b) }
ENTRY main {
  x = f64[4] parameter(0)
  one = f64[] constant(1)
  r = f64[] reduce(x, one), dimensions={0}, to_apply=mul
  ROOT s = f64[4] broadcast(r), dimensions={}
}
"""


def test_unsupported_ops_and_bad_arguments():
    m = hlox.Module.from_text(QUOTIENT)
    with pytest.raises(hlox.TransformError) as e:
        hlox.jvp(m)
    assert (e.value.instruction, e.value.opcode) == ("r", "reduce")
    assert "only sum, product, max and min reductions" in str(e.value)
    with pytest.raises(hlox.TransformError, match="scalar"):
        hlox.grad(m)
    with pytest.raises(hlox.TransformError, match="wrt parameter 3 does not exist") as e:
        hlox.vjp(m, wrt=3)
    assert e.value.instruction is None
    with pytest.raises(hlox.TransformError, match="in_axes"):
        hlox.vmap(m, [0, 0], 2)
    with pytest.raises(ValueError, match="negative"):
        hlox.grad(m, wrt=-1)
    with pytest.raises(TypeError, match="wrt"):
        hlox.grad(m, wrt="x")
    with pytest.raises(ValueError, match="out of range"):
        hlox.vmap(m, -3, 2)
    with pytest.raises(ValueError, match="broadcast_all"):
        hlox.Rules().vmap_method("t", "parallel")
    with pytest.raises(TypeError, match="not callable"):
        hlox.Rules().jvp("t", 3)
    with pytest.raises(hlox.ParseError):
        hlox.Rules.from_text("HloModule broken\nENTRY {")
