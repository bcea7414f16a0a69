"""The module as users install it: `cmake --install` into a prefix, and pip from the built tree (no index)."""
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig

import pytest

from conftest import SAMPLE

CHECK = ("import ossa, sys; c = ossa.load(sys.argv[1], trusted=True); "
         "print(ossa.__file__, c.joint_positions('Walk', [0.5]).shape)")


def build_dir():
    if os.environ.get("OSSA_SANITIZED"):
        pytest.skip("the sanitizer build checks memory; installs are the release build's tests")
    path = os.environ.get("OSSA_BUILD_DIR")
    if not path:
        pytest.skip("OSSA_BUILD_DIR does not name the build tree")
    return pathlib.Path(path)


def clean_env():
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # only what the installation put in place
    return env


def test_cmake_install_into_a_prefix(tmp_path):
    cmake = os.environ.get("OSSA_CMAKE", "cmake")
    prefix = tmp_path / "prefix"
    subprocess.run([cmake, "--install", str(build_dir()), "--component", "python", "--prefix", str(prefix)],
                   check=True, capture_output=True)
    found = list(prefix.glob("lib*/python3*/*-packages/ossa/__init__.py"))
    assert len(found) == 1, list(prefix.rglob("*"))
    site = found[0].parent.parent
    # The folder a Python of this kind reads under that prefix (Debian: PREFIX/lib/python3.X/dist-packages).
    assert site.name in ("dist-packages", "site-packages")
    env = clean_env()
    env["PYTHONPATH"] = str(site)
    out = subprocess.run([sys.executable, "-c", CHECK, str(SAMPLE / "ossa_sample.fbx")], env=env, cwd=tmp_path,
                         check=True, capture_output=True, text=True).stdout
    assert str(site) in out and "(1, 33, 3)" in out


def test_pip_installs_the_built_tree(tmp_path):
    if subprocess.run([sys.executable, "-m", "venv", "--help"], capture_output=True).returncode != 0:
        pytest.skip("python3-venv is not installed")
    package = tmp_path / "package"  # pip and setuptools write beside the project: a copy of the built tree
    source = build_dir() / "python"
    shutil.copytree(source, package, ignore=shutil.ignore_patterns("pytest", "build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index", "--no-build-isolation",
                          "--no-deps", str(package)], capture_output=True, text=True)
    if "No module named pip" in pip.stderr or "No module named setuptools" in pip.stderr:
        pytest.skip("pip or setuptools is missing (python3-pip, python3-setuptools)")
    assert pip.returncode == 0, pip.stdout + pip.stderr
    out = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK, str(SAMPLE / "ossa_sample.fbx")],
                         env=clean_env(), cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    assert str(venv) in out and "(1, 33, 3)" in out
    wheel = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "wheel", "--no-index", "--no-build-isolation",
                            "--no-deps", "-w", str(tmp_path / "wheels"), str(package)], capture_output=True, text=True)
    assert wheel.returncode == 0, wheel.stderr
    tag = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert [w.name for w in (tmp_path / "wheels").glob(f"ossa-*-cp3*-{tag}.whl")], list((tmp_path / "wheels").iterdir())
