"""The error catalogue: run output → error kind, user-code location and the next thing to try."""

from tools.errors.catalogue import CATALOGUE, CatalogueEntry, ErrorKind, match_output
from tools.errors.diagnosis import Diagnosis, diagnose_run
from tools.errors.traceback import Frame, code_around, error_line, user_frames

__all__ = [
    "CATALOGUE",
    "CatalogueEntry",
    "Diagnosis",
    "ErrorKind",
    "Frame",
    "code_around",
    "diagnose_run",
    "error_line",
    "match_output",
    "user_frames",
]
