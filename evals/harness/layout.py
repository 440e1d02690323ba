"""The eval run folder: one per `agent eval --run-dir`, reused when the eval is resumed.

```
<run-dir>/
  eval-run.json                 how the eval was run (a resume must match it)
  results/<case>.<target>.json  one per finished pair (CaseResult)
  eval.json, EVAL_REPORT.md, eval.png
  cases/<case>/source/          the prepared tree: the case copied (or cloned), setup run
  cases/<case>/cache/           the reference cache, shared by the case's targets
  cases/<case>/<target>/repo/   a fresh git repo made from source/, given to `agent fix`
  cases/<case>/<target>/runs/   `agent fix --run-dir`: its run folder (report.json, logs, ...)
  cases/<case>/<target>/fix.log what `agent fix` printed
```
"""

from dataclasses import dataclass
from pathlib import Path

from evals.harness.results import result_path


@dataclass(frozen=True)
class RunLayout:
    """Paths inside an eval run folder."""

    root: Path

    @property
    def meta(self) -> Path:
        return self.root / "eval-run.json"

    @property
    def report_json(self) -> Path:
        return self.root / "eval.json"

    @property
    def report_md(self) -> Path:
        return self.root / "EVAL_REPORT.md"

    @property
    def plot(self) -> Path:
        return self.root / "eval.png"

    def result(self, case: str, target: str) -> Path:
        return result_path(self.root, case, target)

    def case_dir(self, case: str) -> Path:
        return self.root / "cases" / case

    def source(self, case: str) -> Path:
        """The case's tree once copied or cloned and set up."""
        return self.case_dir(case) / "source"

    def source_ready(self, case: str) -> Path:
        """Written when `source` is complete (a resumed eval reuses the tree)."""
        return self.case_dir(case) / "source.ready"

    def cache(self, case: str) -> Path:
        return self.case_dir(case) / "cache"

    def target_dir(self, case: str, target: str) -> Path:
        return self.case_dir(case) / target

    def repo(self, case: str, target: str) -> Path:
        return self.target_dir(case, target) / "repo"

    def runs(self, case: str, target: str) -> Path:
        """`agent fix --run-dir`; its reference cache is `runs/../cache` (linked to `cache`)."""
        return self.target_dir(case, target) / "runs"

    def fix_log(self, case: str, target: str) -> Path:
        return self.target_dir(case, target) / "fix.log"

    def relative(self, path: Path) -> str:
        """`path` relative to the run folder, as results record it."""
        return path.relative_to(self.root).as_posix()
