import jax, jax.numpy as jnp, numpy as np
from jax import lax
jax.config.update("jax_enable_x64", True)
rng = np.random.default_rng(0)
cases = []
def add(name, f, *args, tol=0.0):
    args = [np.asarray(a) for a in args]
    lowered = jax.jit(f).lower(*args)
    text = lowered.as_text(dialect="hlo")
    out = jax.jit(f)(*args)
    outs = out if isinstance(out, (tuple, list)) else [out]
    cases.append((name, text, args, [np.asarray(o) for o in outs], tol))
def tyname(dt):
    return {np.dtype('float32'):'f32', np.dtype('float64'):'f64', np.dtype('int32'):'s32', np.dtype('int64'):'s64',
            np.dtype('uint32'):'u32', np.dtype('uint8'):'u8', np.dtype('int8'):'s8', np.dtype('bool'):'pred',
            np.dtype(jnp.bfloat16):'bf16', np.dtype('float16'):'f16', np.dtype('uint64'):'u64', np.dtype('int16'):'s16', np.dtype('uint16'):'u16'}[dt]
def vals(a):
    a = np.asarray(a)
    if a.dtype == np.bool_: return ' '.join('1' if x else '0' for x in a.ravel())
    if a.dtype.kind == 'f' or a.dtype == jnp.bfloat16: return ' '.join(repr(float(x)) for x in a.astype(np.float64).ravel())
    return ' '.join(str(int(x)) for x in a.ravel())

x23 = rng.standard_normal((2,3)).astype(np.float32)
add("softmax", lambda x: jax.nn.softmax(x, axis=-1), x23, tol=1e-6)
add("logsumexp_grad", jax.grad(lambda x: jax.nn.logsumexp(x * x)), x23, tol=1e-5)
add("argsort", lambda x: jnp.argsort(x, stable=True), np.array([3, 1, 2, 1, 3, -7], dtype=np.int32))
add("sort_f32_desc", lambda x: jnp.sort(x)[::-1], np.array([0.5, -1.0, np.nan, 2.0, -0.0, 0.0], dtype=np.float32))
add("scatter_add", lambda x, i, u: x.at[i].add(u), np.zeros(5, np.float32), np.array([1, 3, 1, 9], np.int32), np.array([1., 2., 3., 4.], np.float32))
add("take_clip", lambda x, i: jnp.take(x, i, axis=0, mode="clip"), np.arange(12, dtype=np.float32).reshape(4,3), np.array([3, 0, 7, -2], np.int32))
add("cumsum", lambda x: jnp.cumsum(x, axis=1), np.arange(10, dtype=np.int32).reshape(2,5))
add("conv2d_nhwc", lambda x, k: lax.conv_general_dilated(x, k, (1,1), 'SAME', dimension_numbers=('NHWC','HWIO','NHWC')),
    rng.standard_normal((1,4,4,2)).astype(np.float32), rng.standard_normal((3,3,2,3)).astype(np.float32), tol=1e-5)
add("fori_loop", lambda n: lax.fori_loop(0, n, lambda i, acc: acc * 2 + i, jnp.int32(1)), np.int32(10))
add("threefry_bits", lambda k: jax.random.bits(jax.random.wrap_key_data(k, impl='threefry2x32'), (6,), jnp.uint32), np.array([42, 7], np.uint32))
add("int_ops", lambda a, b: (a // b, a % b, jnp.right_shift(a, 2), jnp.clip(a, -3, 3), a * b), np.array([7, -7, 9, -9, 100], np.int32), np.array([2, 2, -4, -4, 7], np.int32))
add("bf16_matmul", lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32), rng.standard_normal((3,5)).astype(jnp.bfloat16), rng.standard_normal((5,2)).astype(jnp.bfloat16), tol=1e-5)
add("maxpool", lambda x: lax.reduce_window(x, -jnp.inf, lax.max, (1,2,2,1), (1,2,2,1), 'VALID'), rng.standard_normal((1,4,4,1)).astype(np.float32))
add("cond", lambda p, x: lax.cond(p, lambda y: y + 1.0, lambda y: y * 3.0, x), np.bool_(False), np.array([1., 2.], np.float32))
add("switch", lambda i, x: lax.switch(i, [lambda y: y + 1.0, lambda y: y * 3.0, lambda y: -y], x), np.int32(5), np.array([1., 2.], np.float32))
add("erf_tanh_gelu", lambda x: (jax.scipy.special.erf(x), jnp.tanh(x), jax.nn.gelu(x)), np.array([-2., -0.5, 0., 0.3, 1.7], np.float32), tol=2e-6)
add("dynamic_slice", lambda x, i: lax.dynamic_slice(x, (i, i), (2, 2)), np.arange(16, dtype=np.float32).reshape(4,4), np.int32(3))
add("f64_pow_atan2", lambda a, b: (a ** b, jnp.arctan2(a, b)), np.array([2., 0.5, 9.], np.float64), np.array([3., -2., 0.5], np.float64), tol=1e-12)
add("select_and_scatter", jax.grad(lambda x: jnp.sum(lax.reduce_window(x, -jnp.inf, lax.max, (2,), (2,), 'VALID'))), np.array([1., 5., 3., 2., 4., 4.], np.float32))
add("pad_interior", lambda x: lax.pad(x, jnp.float32(-1), [(1, -1, 1), (0, 2, 0)]), np.arange(6, dtype=np.float32).reshape(2,3))
add("rng_uniform", lambda k: jax.random.uniform(jax.random.wrap_key_data(k, impl='rbg'), (5,)), np.array([1, 2, 3, 4], np.uint32), tol=0.0)
add("convert_sat", lambda x: (x.astype(jnp.int32), x.astype(jnp.uint8), x.astype(jnp.bfloat16), x.astype(jnp.float16)), np.array([np.nan, 1e10, -1e10, -1.5, 2.7, 300.4, 65520.], np.float32))

add("argmax_argmin", lambda x: (jnp.argmax(x, axis=1), jnp.argmin(x, axis=0)), np.array([[1., 7., 7., -2.], [np.nan, 0., 3., 3.], [4., 4., -9., 8.]], np.float32))
add("einsum_batch", lambda a, b: jnp.einsum("bij,bjk->bik", a, b), rng.standard_normal((2,3,4)).astype(np.float32), rng.standard_normal((2,4,2)).astype(np.float32), tol=1e-5)
add("bit_ops", lambda a, b: (lax.population_count(a), lax.clz(a), lax.shift_right_logical(a, b), lax.shift_left(a, b), lax.shift_right_arithmetic(a, b), lax.bitcast_convert_type(a, jnp.float32)), np.array([0, -1, 12345, -77777, 1 << 30], np.int32), np.array([0, 31, 32, 3, -1], np.int32))
add("f16_ops", lambda a, b: (a * b + a, jnp.exp(a), a / b, jnp.maximum(a, b)), np.array([0.1, 1.5, -3.25, 100.0], np.float16), np.array([3.0, -0.7, 0.01, 700.0], np.float16), tol=1e-3)
add("int_power", lambda a: (a ** 3, lax.integer_pow(a, 5)), np.array([2, -3, 7, 100], np.int32))
add("sort_two_keys", lambda a, b, c: lax.sort((a, b, c), num_keys=2), np.array([2, 1, 2, 1, 0], np.int32), np.array([5., 3., 1., 3., 9.], np.float32), np.array([0, 1, 2, 3, 4], np.int32))
add("dus", lambda x, u, i: lax.dynamic_update_slice(x, u, (i, jnp.int32(1))), np.zeros((4, 4), np.int32), np.ones((2, 2), np.int32) * 7, np.int32(3))
add("reduce_precision", lambda x: lax.reduce_precision(x, exponent_bits=5, mantissa_bits=2), np.array([1.1, 3.3, 1e6, 1e-7, -2.6], np.float32))
add("one_hot_cummax", lambda i, x: (jax.nn.one_hot(i, 4), lax.cummax(x, axis=0)), np.array([0, 3, 5, -1], np.int32), np.array([1., 3., 2., 5., 4.], np.float32))
add("u8_u64_arith", lambda a, b, c: (a + b, a * b, a - b, c * c, c // 3), np.array([250, 3, 128], np.uint8), np.array([10, 200, 2], np.uint8), np.array([2**40 + 3, 7, 2**63], np.uint64))
add("mean_var_f64", lambda x: (jnp.mean(x), jnp.var(x), jnp.std(x, axis=0)), rng.standard_normal((5, 3)), tol=1e-12)
add("gather_2d_points", lambda x, i: x[i[:, 0], i[:, 1]], np.arange(20, dtype=np.float32).reshape(4, 5), np.array([[0, 0], [3, 4], [1, 2], [2, 1]], np.int32))
add("scatter_max_2d", lambda x, i, u: x.at[i[:, 0], i[:, 1]].max(u), np.zeros((3, 3), np.float32), np.array([[0, 0], [2, 1], [0, 0], [5, 5]], np.int32), np.array([3., -1., 7., 9.], np.float32))
add("rng_threefry_uniform", lambda k: jax.random.normal(jax.random.wrap_key_data(k, impl="threefry2x32"), (2, 3)), np.array([0, 42], np.uint32), tol=1e-6)

with open('jax_cases.txt', 'w') as f:
    f.write("# Generated by JAX %s on CPU: HLO text, arguments and JAX's results.\n" % jax.__version__)
    for name, text, args, outs, tol in cases:
        f.write("=== %s tol=%r\n" % (name, tol))
        f.write(text.strip() + "\n")
        for a in args:
            f.write("--- arg %s [%s]\n%s\n" % (tyname(a.dtype), ','.join(map(str, a.shape)), vals(a)))
        for o in outs:
            f.write("--- out %s [%s]\n%s\n" % (tyname(o.dtype), ','.join(map(str, o.shape)), vals(o)))
print(len(cases))
