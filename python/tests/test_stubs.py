"""The type stubs cover everything public (names, classes' methods)."""

import ast
import pathlib

import hlox

STUB = pathlib.Path(hlox.__file__).with_name("__init__.pyi")


def stub_names():
    tree = ast.parse(STUB.read_text())
    top, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AnnAssign)) and hasattr(n, "name")} | {
                n.target.id for n in node.body if isinstance(n, ast.AnnAssign)
            }
    return top, members


def test_every_public_name_has_a_stub():
    top, members = stub_names()
    assert STUB.exists()
    assert set(hlox.__all__) - top == set()
    for cls in ["Builder", "Op", "Module", "Shape", "Executable", "Rules", "CallInfo"]:
        public = {n for n in dir(getattr(hlox, cls)) if not n.startswith("_")}
        assert public - members[cls] == set(), cls


def test_docstrings_and_reprs():
    for name in ["compile", "load", "register_ffi_target", "custom_call_target", "jit", "targets", "grad", "vjp", "jvp", "vmap"]:
        assert getattr(hlox, name).__doc__, name
    assert repr(hlox.Builder("b")) == "<hlox.Builder b>"
    assert repr(hlox.Shape.array("f32", (2,))) == "Shape(f32[2])"
