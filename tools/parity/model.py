"""The reference: what the ORIGINAL program computed, classified, with what protects it.

Saved as a folder (`reference.json` + `base.{json,npz}`, and `fp32.*`/`low.*` for the precision
reruns): the on-disk cache and golden folders (`agent parity record`) share this format.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.errors import BadInputError
from tools.parity.probeset import ProbeSet

FORMAT = 1


@dataclass
class Reference:
    """Reference probes of the original and everything the verdict needs to judge against them."""

    source: str
    """Where it was computed: `cpu` (the reference runtime) or `cuda` (a real GPU)."""
    commands: list[list[str]]
    base: ProbeSet
    exit_codes: list[int]
    device_calls: int = 0
    """CUDA ops the original ran (the yardstick of the device-usage guard)."""
    volatile: dict[str, str] = field(default_factory=dict)
    ill_conditioned: dict[str, str] = field(default_factory=dict)
    low_precision: str | None = None
    fp32: ProbeSet | None = None
    low: ProbeSet | None = None
    low_nudged: ProbeSet | None = None
    """The low-precision rerun with inputs nudged: a second realization of its error."""
    protected: dict[str, str] = field(default_factory=dict)
    tree: str = ""
    """Hash of the original tree (a migrated tree equal to it migrated nothing)."""
    profile: str = ""
    notes: list[str] = field(default_factory=list)
    golden_dir: str | None = None

    def save(self, folder: Path) -> None:
        """Write this reference to `folder`."""
        folder.mkdir(parents=True, exist_ok=True)
        self.base.save(folder, "base")
        for stem, probes in self._reruns():
            if probes is not None:
                probes.save(folder, stem)
        document = {
            "format": FORMAT,
            "source": self.source,
            "commands": self.commands,
            "exit_codes": self.exit_codes,
            "device_calls": self.device_calls,
            "volatile": self.volatile,
            "ill_conditioned": self.ill_conditioned,
            "low_precision": self.low_precision,
            "precision_runs": [stem for stem, probes in self._reruns() if probes is not None],
            "protected": self.protected,
            "tree": self.tree,
            "profile": self.profile,
            "notes": self.notes,
        }
        (folder / "reference.json").write_text(json.dumps(document, indent=1), encoding="utf-8")

    def _reruns(self) -> list[tuple[str, ProbeSet | None]]:
        return [("fp32", self.fp32), ("low", self.low), ("low_nudged", self.low_nudged)]

    @classmethod
    def load(cls, folder: Path) -> "Reference":
        """Read a reference folder (cache entry or golden probes)."""
        path = folder / "reference.json"
        try:
            doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise BadInputError(
                f"{folder} holds no reference probes (no reference.json)",
                hint="record them with `agent parity record ORIGINAL --run CMD --out DIR`",
            ) from None
        except json.JSONDecodeError as exc:
            raise BadInputError(f"{path} is not valid JSON: {exc}", hint="record again") from None
        if doc.get("format") != FORMAT:
            raise BadInputError(
                f"{path} has format {doc.get('format')!r}, this torchport reads {FORMAT}",
                hint="record the golden probes again with this version",
            )
        runs = set(doc.get("precision_runs") or [])
        return cls(
            source=doc["source"],
            commands=[list(c) for c in doc["commands"]],
            base=ProbeSet.load(folder, "base"),
            exit_codes=list(doc["exit_codes"]),
            device_calls=int(doc.get("device_calls", 0)),
            volatile=dict(doc.get("volatile") or {}),
            ill_conditioned=dict(doc.get("ill_conditioned") or {}),
            low_precision=doc.get("low_precision"),
            fp32=ProbeSet.load(folder, "fp32") if "fp32" in runs else None,
            low=ProbeSet.load(folder, "low") if "low" in runs else None,
            low_nudged=ProbeSet.load(folder, "low_nudged") if "low_nudged" in runs else None,
            protected=dict(doc.get("protected") or {}),
            tree=str(doc.get("tree", "")),
            profile=str(doc.get("profile", "")),
            notes=list(doc.get("notes") or []),
        )
