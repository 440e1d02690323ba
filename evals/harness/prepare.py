"""Trees for `agent fix`: each case's source (copied, or cloned at its commit, then set up) and a
fresh git repository made from it per target."""

import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

import git

from agent.errors import InfraError
from agent.log import get_logger
from evals.harness.cases import EvalCase
from evals.harness.layout import RunLayout
from evals.tasks import ExternalTask, TaskSpec
from tools.git.runner import QUIET_ENV, git_message

log = get_logger(__name__)

EVAL_NAME = "torchport eval"
EVAL_EMAIL = "eval@torchport.invalid"
NOT_COPIED = shutil.ignore_patterns(".git", "__pycache__", ".torchport", ".pytest_cache")
CLONE_TIMEOUT_S = 900
PYTHONS = frozenset({"python", "python3"})


def prepare_source(case: EvalCase, layout: RunLayout, env: Mapping[str, str]) -> TaskSpec:
    """The case's task over its prepared source tree (made once; a resumed eval reuses it)."""
    source = layout.source(case.name)
    ready = layout.source_ready(case.name)
    if not ready.is_file():
        if source.exists():
            shutil.rmtree(source)  # left half-made by an interrupted eval
        source.parent.mkdir(parents=True, exist_ok=True)
        _fill_source(case, source)
    spec = task_over(case, source)
    if not ready.is_file():
        run_setup(spec, env, layout.case_dir(case.name) / "setup.log")
        ready.write_text("ready\n", encoding="utf-8")
    return spec


def _fill_source(case: EvalCase, source: Path) -> None:
    if isinstance(case.task, ExternalTask):
        clone(case.task.repo, case.task.commit, source)
    else:
        shutil.copytree(case.task.root, source, ignore=NOT_COPIED)


def task_over(case: EvalCase, source: Path) -> TaskSpec:
    """The case's TaskSpec with its root in `source` (the subdir of an external checkout)."""
    if isinstance(case.task, ExternalTask):
        assert case.manifest is not None, "external tasks come from a manifest"
        return case.task.at(source, manifest=case.manifest)
    return case.task.model_copy(update={"root": source})


def clone(url: str, commit: str, dest: Path) -> None:
    """`git clone url dest` and check out `commit`; InfraError saying what failed."""
    try:
        repo = git.Repo.clone_from(
            url, dest, env=QUIET_ENV, no_checkout=True, kill_after_timeout=CLONE_TIMEOUT_S
        )
    except git.GitCommandError as exc:
        raise InfraError(
            f"git clone {url} failed: {git_message(exc)}",
            hint="check the network and the URL in the manifest; the other cases still run",
        ) from exc
    try:
        repo.git.execute(["git", "checkout", "--quiet", "--detach", commit], env=QUIET_ENV)
    except git.GitCommandError as exc:
        raise InfraError(
            f"{url}: commit {commit} cannot be checked out: {git_message(exc)}",
            hint="fix the commit in the manifest",
        ) from exc
    log.info("cloned %s at %s", url, commit[:12])


def run_setup(spec: TaskSpec, env: Mapping[str, str], log_path: Path) -> None:
    """Run the task's setup commands in its root, on this machine (not in the sandbox: setup
    installs and downloads); InfraError when one fails."""
    with log_path.open("ab") as output:
        for command in spec.setup:
            argv = shlex.split(command)
            if argv[0] in PYTHONS:
                argv[0] = sys.executable
            output.write(f"$ {command}\n".encode())
            output.flush()
            try:
                code = subprocess.run(
                    argv,
                    cwd=spec.root,
                    env=dict(env),
                    stdin=subprocess.DEVNULL,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                    timeout=spec.timeout_s,
                    check=False,
                ).returncode
            except (OSError, subprocess.TimeoutExpired) as exc:
                raise _setup_failed(spec, command, str(exc), log_path) from exc
            if code != 0:
                raise _setup_failed(spec, command, f"exit status {code}", log_path)


def _setup_failed(spec: TaskSpec, command: str, why: str, log_path: Path) -> InfraError:
    return InfraError(
        f"{spec.name}: setup command {command!r} failed ({why})",
        hint=f"its output is in {log_path}; fix the setup or the environment",
    )


def make_repo(source: Path, dest: Path, message: str) -> Path:
    """A fresh git repository at `dest` with `source`'s files in one commit on `main`."""
    shutil.copytree(source, dest, ignore=NOT_COPIED, symlinks=True)
    repo = git.Repo.init(dest, initial_branch="main")
    _git(repo, "add", "--all")
    identity = {"user.name": EVAL_NAME, "user.email": EVAL_EMAIL, "commit.gpgsign": "false"}
    config = [word for key, value in identity.items() for word in ("-c", f"{key}={value}")]
    _git(repo, *config, "commit", "--quiet", "--no-verify", "-m", message)
    return dest


def _git(repo: git.Repo, *args: str) -> None:
    try:
        repo.git.execute(["git", *args], env=QUIET_ENV)
    except git.GitCommandError as exc:
        raise InfraError(
            f"`git {' '.join(args)}` failed in {repo.working_dir}: {git_message(exc)}"
        ) from exc


def link_cache(target_dir: Path, shared: Path) -> None:
    """`target_dir/cache` → `shared`: the targets of a case reuse one reference."""
    shared.mkdir(parents=True, exist_ok=True)
    link = target_dir / "cache"
    if not link.is_symlink():
        link.symlink_to(os.path.relpath(shared, target_dir), target_is_directory=True)
