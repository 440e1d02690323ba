"""The runtime root: only sandbox/__init__.py, runtime/ and kernels/ go into a sandbox."""

from pathlib import Path

from sandbox.runtime_root import runtime_files, runtime_hash, staged_runtime_root


def _package(tmp_path: Path) -> Path:
    package = tmp_path / "src" / "sandbox"
    (package / "runtime" / "site").mkdir(parents=True)
    (package / "kernels").mkdir()
    (package / "__pycache__").mkdir()
    (package / "__init__.py").write_text('"""pkg"""\n')
    (package / "runtime" / "__init__.py").write_text("")
    (package / "runtime" / "site" / "sitecustomize.py").write_text("X = 1\n")
    (package / "kernels" / "matmul.py").write_text("def mm(): return 1\n")
    (package / "docker_sandbox.py").write_text("HOST_ONLY = True\n")
    (package / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"")
    return package


def test_only_the_runtime_parts_are_listed(tmp_path: Path) -> None:
    files = [str(path) for path in runtime_files(_package(tmp_path))]
    assert files == [
        "sandbox/__init__.py",
        "sandbox/kernels/matmul.py",
        "sandbox/runtime/__init__.py",
        "sandbox/runtime/site/sitecustomize.py",
    ]


def test_the_hash_follows_runtime_files_only(tmp_path: Path) -> None:
    package = _package(tmp_path)
    first = runtime_hash(package)
    (package / "docker_sandbox.py").write_text("HOST_ONLY = False\n")
    assert runtime_hash(package) == first
    (package / "kernels" / "matmul.py").write_text("def mm(): return 2\n")
    assert runtime_hash(package) != first


def test_staging_compiles_once_per_hash(tmp_path: Path) -> None:
    package = _package(tmp_path)
    cache = tmp_path / "cache"
    staged = staged_runtime_root(package, cache)
    assert (staged / "sandbox" / "kernels" / "matmul.py").is_file()
    assert not (staged / "sandbox" / "docker_sandbox.py").exists()
    assert list((staged / "sandbox" / "kernels" / "__pycache__").glob("matmul.*.pyc"))
    assert staged_runtime_root(package, cache) == staged
    (package / "kernels" / "matmul.py").write_text("def mm(): return 3\n")
    assert staged_runtime_root(package, cache) != staged


def test_the_real_runtime_root_has_the_site_hook() -> None:
    assert Path("sandbox/runtime/site/sitecustomize.py") in runtime_files()
