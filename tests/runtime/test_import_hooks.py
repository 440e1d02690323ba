"""`when_imported`: callbacks after a module's first import, without importing it."""

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from sandbox.runtime.import_hooks import when_imported


@pytest.fixture
def package_dir(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


def _module(folder: Path, name: str, source: str) -> None:
    (folder / f"{name}.py").write_text(source, encoding="utf-8")
    importlib.invalidate_caches()


def test_the_callback_runs_once_after_the_module_body(package_dir: Path) -> None:
    _module(package_dir, "tp_watched", "VALUE = 41\n\ndef f():\n    return VALUE\n")
    seen: list[ModuleType] = []
    when_imported("tp_watched", seen.append)
    assert "tp_watched" not in sys.modules
    assert seen == []
    module = importlib.import_module("tp_watched")
    assert seen == [module]
    assert module.VALUE == 41
    assert "return VALUE" in inspect.getsource(module.f)  # the loader still serves its source
    importlib.reload(module)
    assert seen == [module]


def test_an_imported_module_runs_the_callback_at_once() -> None:
    seen: list[ModuleType] = []
    when_imported("json", seen.append)
    assert seen == [sys.modules["json"]]


def test_a_failed_import_runs_no_callback(package_dir: Path) -> None:
    _module(package_dir, "tp_broken", "raise ImportError('broken on purpose')\n")
    seen: list[ModuleType] = []
    when_imported("tp_broken", seen.append)
    with pytest.raises(ImportError, match="broken on purpose"):
        importlib.import_module("tp_broken")
    assert seen == []
    _module(package_dir, "tp_broken", "FIXED = True\n")
    sys.modules.pop("tp_broken", None)
    assert importlib.import_module("tp_broken").FIXED
    assert len(seen) == 1


def test_finding_a_spec_alone_does_not_run_it(package_dir: Path) -> None:
    _module(package_dir, "tp_probed", "X = 1\n")
    seen: list[ModuleType] = []
    when_imported("tp_probed", seen.append)
    assert importlib.util.find_spec("tp_probed") is not None
    assert seen == []
    importlib.import_module("tp_probed")
    assert len(seen) == 1
