"""The graph's topology is reviewed through its mermaid drawing; routers are typed and pure."""

from pathlib import Path

from agent.graph import after_check, after_diagnose, after_edit, after_plan, build_graph
from agent.state import FixState

SNAPSHOT = Path(__file__).parent / "snapshots" / "graph.mmd"


def test_mermaid_drawing_matches_the_snapshot() -> None:
    drawing = build_graph().get_graph().draw_mermaid()
    assert drawing == SNAPSHOT.read_text(), (
        "the graph's topology changed: review it and update tests/agent/snapshots/graph.mmd"
    )


def base_state(**extra: object) -> FixState:
    state: dict[str, object] = {
        "run_id": "r",
        "target": "tpu",
        "commands": ["python t.py"],
        "base_commit": "a",
        "workspace_commit": "b",
        "plan_only": False,
        "deliver": True,
    }
    state.update(extra)
    return state  # type: ignore[return-value]


def test_routers() -> None:
    assert after_plan(base_state(plan_only=True)) == "__end__"
    assert after_plan(base_state()) == "edit"
    assert after_plan(base_state(verdict="nothing-to-migrate")) == "report"
    assert after_edit(base_state()) == "reference"
    assert after_edit(base_state(reference={"available": True})) == "run"
    assert after_edit(base_state(stop_reason="stuck: same edit")) == "report"
    assert after_check(base_state(verdict="parity")) == "report"
    assert after_check(base_state()) == "diagnose"
    assert after_diagnose(base_state(action={"kind": "llm"})) == "edit"
    assert after_diagnose(base_state(action=None)) == "report"
