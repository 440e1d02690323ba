import json
import threading
from pathlib import Path

import pytest

from sandbox.runtime.metrics import (
    MemoryFigures,
    RuntimeMetrics,
    metrics_file_names,
    render_report,
    write_metrics,
)


def _metrics(peak: int = 4096) -> RuntimeMetrics:
    return RuntimeMetrics("tpu", "v5e", lambda: MemoryFigures(peak, 1024, 16 << 30))


def test_snapshot_counts_native_and_fallback_calls() -> None:
    metrics = _metrics()
    for _ in range(3):
        metrics.count_native("aten::mm")
    assert metrics.count_fallback("aten::cat.out") is True
    assert metrics.count_fallback("aten::cat.out") is False
    metrics.count_transfer("host_to_device", 100)
    metrics.count_host_sync()
    assert metrics.note_float64("aten::_to_copy") is True
    assert metrics.note_float64("aten::_to_copy") is False
    metrics.note_warning("float16 on tpu")
    metrics.note_warning("float16 on tpu")
    doc = metrics.snapshot()
    assert doc["ops"] == {
        "aten::cat.out": {"native": 0, "fallback": 2},
        "aten::mm": {"native": 3, "fallback": 0},
    }
    assert (doc["native_calls"], doc["fallback_calls"]) == (3, 2)
    assert doc["native_share"] == pytest.approx(0.6)
    assert doc["ops_not_lowered"] == ["aten::cat.out"]
    assert doc["transfers"]["bytes_host_to_device"] == 100
    assert doc["memory"] == {"peak_bytes": 4096, "current_bytes": 1024, "budget_bytes": 16 << 30}
    assert (doc["host_syncs"], doc["float64_events"], doc["warnings"]) == (
        1,
        ["aten::_to_copy"],
        ["float16 on tpu"],
    )


def test_share_is_zero_without_calls_and_counts_survive_threads() -> None:
    metrics = _metrics()
    assert metrics.snapshot()["native_share"] == 0.0
    workers = [
        threading.Thread(target=lambda: [metrics.count_native("aten::add") for _ in range(2000)])
        for _ in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert metrics.native_calls() == 8000


def test_report_has_torch_xla_style_counters() -> None:
    metrics = _metrics()
    metrics.count_native("aten::mm")
    metrics.count_fallback("aten::nonzero")
    text = render_report(metrics.snapshot())
    assert "Counter: tpu::mm\n  Value: 1" in text
    assert "Counter: aten::nonzero\n  Value: 1" in text
    assert text.splitlines()[-1] == "Op(s) not lowered: aten::nonzero"


@pytest.mark.parametrize(
    ("environ", "names"),
    [
        ({}, ["metrics.json"]),
        ({"RANK": "0"}, ["metrics.0.json", "metrics.json"]),
        ({"RANK": "3"}, ["metrics.3.json"]),
    ],
)
def test_file_names_follow_the_rank(environ: dict[str, str], names: list[str]) -> None:
    assert metrics_file_names(environ) == names


def test_write_creates_the_folder_and_an_idle_process_keeps_an_existing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RANK", raising=False)
    busy = _metrics()
    busy.count_native("aten::mm")
    (written,) = write_metrics(busy, str(tmp_path / "out"))
    assert json.loads(written.read_text())["native_calls"] == 1
    assert write_metrics(_metrics(peak=0), str(tmp_path / "out")) == []
    assert json.loads(written.read_text())["native_calls"] == 1
