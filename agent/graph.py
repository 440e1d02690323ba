"""The migration graph: wiring only. Nodes live in `agent.nodes`, one module each."""

from typing import Literal

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agent.budget import timed
from agent.context import FixContext
from agent.nodes.check import check
from agent.nodes.deliver import deliver
from agent.nodes.diagnose import diagnose
from agent.nodes.edit import edit
from agent.nodes.plan import plan
from agent.nodes.reference import reference
from agent.nodes.report import report
from agent.nodes.run import run
from agent.nodes.scan import scan
from agent.state import FixInput, FixState


def after_plan(state: FixState) -> Literal["edit", "report", "__end__"]:
    """`--plan-only` stops once the plan is written; a tree with nothing to migrate is reported."""
    if state["plan_only"]:
        return "__end__"
    return "report" if state.get("verdict") == "nothing-to-migrate" else "edit"


def after_edit(state: FixState) -> Literal["reference", "run", "report"]:
    """A stuck edit ends the loop; the reference is collected once, before the first run."""
    if state.get("stop_reason"):
        return "report"
    return "run" if "reference" in state else "reference"


def after_reference(state: FixState) -> Literal["run", "report"]:
    """Without a reference there is nothing to compare against."""
    return "run" if state["reference"]["available"] else "report"


def after_check(state: FixState) -> Literal["report", "diagnose"]:
    """Parity ends the loop; anything else is diagnosed."""
    return "report" if state.get("verdict") == "parity" else "diagnose"


def after_diagnose(state: FixState) -> Literal["edit", "report"]:
    """Edit again while there is an action (budgets and the stuck detector are in diagnose)."""
    return "edit" if state.get("action") else "report"


def after_report(state: FixState) -> Literal["deliver", "__end__"]:
    """The branch is created unless the run was told not to (`--output`, `--no-branch`)."""
    return "deliver" if state["deliver"] else "__end__"


CompiledFixGraph = CompiledStateGraph[FixState, FixContext, FixInput, FixState]


def build_graph(checkpointer: BaseCheckpointSaver[str] | None = None) -> CompiledFixGraph:
    """The compiled graph; checkpointed after every node when `checkpointer` is given."""
    builder = StateGraph(FixState, context_schema=FixContext, input_schema=FixInput)
    for name, node in (
        ("scan", scan),
        ("plan", plan),
        ("edit", edit),
        ("reference", reference),
        ("run", run),
        ("check", check),
        ("diagnose", diagnose),
        ("report", report),
        ("deliver", deliver),
    ):
        builder.add_node(name, timed(node))
    builder.add_edge(START, "scan")
    builder.add_edge("scan", "plan")
    builder.add_conditional_edges("plan", after_plan)
    builder.add_conditional_edges("edit", after_edit)
    builder.add_conditional_edges("reference", after_reference)
    builder.add_edge("run", "check")
    builder.add_conditional_edges("check", after_check)
    builder.add_conditional_edges("diagnose", after_diagnose)
    builder.add_conditional_edges("report", after_report)
    builder.add_edge("deliver", END)
    return builder.compile(checkpointer=checkpointer)
