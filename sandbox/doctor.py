"""`agent sandbox doctor`: what this host offers the sandbox, and every isolation property
verified live in each sandbox that can run here."""

from dataclasses import dataclass, field

from agent.settings import SandboxSettings
from sandbox.checks import Check, run_checks


@dataclass(frozen=True)
class Fact:
    """Something about the host; `required` facts that fail make the report fail."""

    name: str
    ok: bool
    detail: str
    required: bool = False


@dataclass
class DoctorReport:
    """The facts, then the live checks per sandbox (`docker`, `local`)."""

    facts: list[Fact] = field(default_factory=list)
    checks: dict[str, list[Check]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Some sandbox was checked, every check passed, no required fact failed."""
        facts_ok = all(fact.ok for fact in self.facts if fact.required)
        checks_ok = all(check.ok for checks in self.checks.values() for check in checks)
        return bool(self.checks) and facts_ok and checks_ok


def diagnose(settings: SandboxSettings, *, docker: bool, local: bool) -> DoctorReport:
    """Look at the host, then run the checks in the Docker and/or local sandbox."""
    report = DoctorReport()
    if docker:
        _diagnose_docker(settings, report, required=not local)
    if local:
        _diagnose_local(settings, report)
    return report


def _diagnose_docker(settings: SandboxSettings, report: DoctorReport, *, required: bool) -> None:
    from sandbox.docker_engine import connect, engine_problem, image_status
    from sandbox.docker_sandbox import DockerSandbox
    from sandbox.image.build import default_image_tag, is_current

    problem = engine_problem()
    report.facts.append(Fact("docker engine", problem is None, problem or "reachable", required))
    if problem:
        return
    client = connect()
    tag = settings.image or default_image_tag()
    status = image_status(client, tag)
    current = is_current(status)
    if not status.present:
        detail = "not built: run `agent sandbox build`"
    else:
        detail = "current" if current else "older than the runtime: run `agent sandbox build`"
    report.facts.append(Fact(f"image {tag}", current, detail, required))
    if status.present:
        report.checks["docker"] = run_checks(DockerSandbox(tag, client=client))


def _diagnose_local(settings: SandboxSettings, report: DoctorReport) -> None:
    from sandbox.cgroups import cgroup_problem
    from sandbox.local_sandbox import LocalSandbox, bwrap_problem

    bwrap = bwrap_problem()
    report.facts.append(Fact("bubblewrap", bwrap is None, bwrap or "usable"))
    cgroups = cgroup_problem()
    detail = cgroups + " (rlimits instead)" if cgroups else "per-run cgroup limits"
    report.facts.append(Fact("cgroups", cgroups is None, detail))
    sandbox = LocalSandbox(settings.isolation)
    report.facts.append(Fact("local isolation", True, sandbox.isolation))
    report.checks["local"] = run_checks(sandbox)
