"""The type stubs (ossa/__init__.pyi) name what the module has: every function, class and public member."""
import ast
import pathlib

import ossa

STUBS = pathlib.Path(__file__).resolve().parents[1] / "ossa" / "__init__.pyi"


def stub_surface():
    tree = ast.parse(STUBS.read_text())
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
            members |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
            classes[node.name] = {m for m in members if not m.startswith("_")}
    return functions, classes


def test_stubs_match_the_module():
    functions, classes = stub_surface()
    assert functions | set(classes) == set(ossa.__all__)
    for name, members in classes.items():
        actual = {m for m in dir(getattr(ossa, name)) if not m.startswith("_")}
        if name == "OssaError":
            actual = set()  # an exception's inherited members are Python's own
        assert members == actual, f"{name}: stubs lack {actual - members}, name {members - actual} it lacks"


def test_every_public_call_has_a_docstring():
    for name in ossa.__all__:
        if name != "OssaError":
            assert getattr(ossa, name).__doc__, name
