"""`when_imported(name, callback)`: run `callback(module)` once `name` has been imported, without
importing it (right away when it already is). The runtime uses it to finish installing what
needs a heavy module (torch for the probe recorder, Triton's interpreter) only in programs that
import it, so a program that never does pays nothing."""

import importlib.abc
import importlib.machinery
import sys
import threading
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

Callback = Callable[[ModuleType], None]


class _PostImportFinder(importlib.abc.MetaPathFinder):
    """First on `sys.meta_path`: finds nothing itself; for a watched module it asks the other
    finders for the spec and makes its loader run the callbacks after the module's code."""

    def __init__(self) -> None:
        self.callbacks: dict[str, list[Callback]] = {}
        self._lock = threading.Lock()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.callbacks:
            return None
        spec = self._spec_from_others(fullname, path, target)
        loader = spec.loader if spec is not None else None
        if loader is not None and hasattr(loader, "__dict__") and not isinstance(loader, type):
            self._wrap(loader, fullname)
        return spec

    def _spec_from_others(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None
    ) -> importlib.machinery.ModuleSpec | None:
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec: importlib.machinery.ModuleSpec | None = find(fullname, path, target)
            if spec is not None:
                return spec
        return None

    def _wrap(self, loader: Any, fullname: str) -> None:
        """Run the callbacks after `loader` executes the module (the loader object stays the
        same, so `module.__loader__` keeps working for inspect and importlib.resources)."""
        execute = loader.exec_module

        def exec_module(module: ModuleType) -> None:
            try:
                execute(module)
            finally:
                vars(loader).pop("exec_module", None)
            self.fire(fullname, module)

        loader.exec_module = exec_module

    def fire(self, fullname: str, module: ModuleType) -> None:
        """Run (once) and forget the callbacks of `fullname`."""
        with self._lock:
            callbacks = self.callbacks.pop(fullname, [])
        for callback in callbacks:
            callback(module)


_FINDER = _PostImportFinder()


def when_imported(name: str, callback: Callback) -> None:
    """Call `callback(module)` after `name` is imported (now, if it already is)."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    with _FINDER._lock:
        _FINDER.callbacks.setdefault(name, []).append(callback)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
