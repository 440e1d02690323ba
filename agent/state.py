"""The agent's state: small, typed, raw facts only (JSON-serialisable for the checkpointer).

Nodes return only the keys they change. Rendered prompts, sandboxes and models never live here;
they are in `FixContext`.
"""

from typing import Any, Literal, TypedDict

Verdict = Literal["parity", "no-parity", "manual", "budget", "error", "nothing-to-migrate"]


class FixInput(TypedDict):
    """What a run starts from (the graph's input schema)."""

    run_id: str
    target: str
    commands: list[str]
    base_commit: str
    workspace_commit: str
    plan_only: bool
    deliver: bool


class FixState(FixInput, total=False):
    """Everything the loop has learnt so far."""

    findings: list[dict[str, Any]]
    """Scanner findings on the original tree."""
    plan: list[dict[str, Any]]
    """Plan steps: `{id, kind: codemod|llm, family, rules, paths, summary}`."""
    manual: list[dict[str, Any]]
    """Findings left to a person (rules only, no codemod): `{rule, path, line, guidance}`."""
    changes: list[dict[str, Any]]
    """Applied changes: `{id, source: rule|llm, rules, family, commit, files, summary}`."""
    reference: dict[str, Any]
    """Summary of the original's reference outputs (available, probes, reason, seconds)."""
    runs: list[dict[str, Any]]
    """One entry per migrated run: `{iteration, commands, exit_code, seconds, ok, log, metrics}`."""
    parity: dict[str, Any]
    """The last parity report (`ParityReport.to_dict()`), or a failure before parity."""
    diagnoses: list[dict[str, Any]]
    """One per failed iteration (`Diagnosis.to_dict()` plus the action chosen)."""
    action: dict[str, Any] | None
    """What the next edit should do: `{kind: codemod|llm, rules, diagnosis}`."""
    iteration: int
    llm_calls: list[dict[str, Any]]
    seconds_spent: float
    edit_fingerprints: list[str]
    failure_signatures: list[str]
    verdict: Verdict
    stop_reason: str
    delivery: dict[str, Any]
    """The branch (and pull request) the run delivered."""
