"""hlox.compile(..., devices=N): JAX's SPMD programs (recorded for 4 devices
in tests/corpus/multidevice) on N Host devices, global arrays in and out."""

import functools
import json
import os
import pathlib
import subprocess
import tempfile

import numpy as np
import pytest

import hlox

REPO = pathlib.Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests/corpus/multidevice"


def case(name):
    d = CORPUS / name
    meta = json.loads((d / "meta.json").read_text())
    ins = [np.load(d / f"in{k}.npy") for k in range(len(meta["inputs"]))]
    outs = [np.load(d / f"out{k}.npy") for k in range(len(meta["outputs"]))]
    return hlox.load(str(d / "module.hlo")), ins, outs


@functools.cache
def md_targets():
    """The corpus' typed-FFI targets (md_targets.cc), built with XLA's FFI headers."""
    include = pathlib.Path(os.environ.get("HLOX_XLA_FFI_INCLUDE", REPO / ".xla-ffi/include"))
    assert (include / "xla/ffi/api/ffi.h").exists(), f"XLA's FFI headers are not in {include}: make xla-ffi-headers"
    lib = pathlib.Path(tempfile.mkdtemp()) / "libmd_targets.so"
    subprocess.run(
        ["c++", "-shared", "-fPIC", "-std=c++17", "-O2", "-w", "-I", str(include), str(CORPUS / "md_targets.cc"), "-o", str(lib)],
        check=True,
    )
    return str(lib)


def check(got, want):
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
        else:
            np.testing.assert_array_equal(g, w)


def test_shard_map_collectives_on_four_devices_match_jax():
    m, ins, outs = case("sm_collectives")
    exe = hlox.compile(m, devices=4)
    assert exe.devices == 4 and exe.platform == "cpu"
    # The per-device program: the collectives became hlox.collective calls.
    assert "hlox.collective" in exe.hlo_text()
    check(exe(*ins), outs)
    # Again (a second run reuses the executable), and from another input.
    check(exe(*ins), outs)


def test_data_parallel_training_step_matches_jax():
    # value_and_grad and pmean over 4 devices: new (w1, b1, w2) and the loss.
    m, ins, outs = case("dp_step")
    exe = hlox.compile(m, devices=4)
    check(exe(*ins), outs)


def test_a_custom_call_inside_shard_map_runs_on_each_shard():
    m, ins, outs = case("sm_custom_call")
    exe = hlox.compile(m, devices=4, plugins=[md_targets()])
    check(exe(*ins), outs)
    # The same program where the target fails on device 3 only: every
    # device stops with its error (no hang).
    m, ins, _ = case("sm_custom_call_fails")
    exe = hlox.compile(m, devices=4, plugins=[md_targets()])
    with pytest.raises(hlox.ExecError, match="device 3: .*MdFailAbove: element 4 is 800.5"):
        exe(*ins)


def test_too_few_devices_is_an_error_naming_the_count():
    m, _, _ = case("sm_collectives")
    with pytest.raises(hlox.Error, match="at least 4 devices"):
        hlox.compile(m)
    with pytest.raises(hlox.Error, match="has 4 devices, but the run has 2"):
        hlox.compile(m, devices=2)


def test_bad_device_counts_are_refused():
    m, _, _ = case("sm_collectives")
    with pytest.raises(ValueError, match="devices=0"):
        hlox.compile(m, devices=0)


def test_several_cuda_devices_say_what_is_missing():
    # platform="cuda", devices=N runs on N GPUs through NCCL; a machine
    # without the NVIDIA driver (CI) is told so, naming the CPU route.
    m, _, _ = case("sm_collectives")
    try:
        exe = hlox.compile(m, platform="cuda", devices=4)
    except hlox.Error as e:
        assert "driver" in str(e) or "GPU" in str(e) or "NCCL" in str(e), str(e)
    else:
        assert exe.platform == "cuda" and exe.devices == 4


def test_a_one_device_module_on_several_devices_runs_replicated():
    b = hlox.Builder("twice")
    x = b.parameter(0, hlox.Shape.array("f32", [3]))
    m = b.build(x + x)
    exe = hlox.compile(m, devices=2)
    np.testing.assert_array_equal(exe(np.array([1, 2, 3], np.float32)), [2, 4, 6])
