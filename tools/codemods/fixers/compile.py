"""Fixers for torch.compile and Inductor settings (TP130-TP133)."""

import libcst as cst

from tools.codemods.build import without_keywords
from tools.codemods.context import FixContext
from tools.scanner.site import Site


def fix_compile_mode(site: Site, context: FixContext) -> str:
    """TP130: compile with the platform's default mode."""
    context.edit(site.data, lambda updated: without_keywords(updated, "mode"))  # type: ignore[arg-type]
    return "drop the CUDA-specific torch.compile mode"


def fix_compile_backend(site: Site, context: FixContext) -> str:
    """TP131: let TorchTPU choose the torch.compile backend."""
    context.edit(site.data, lambda updated: without_keywords(updated, "backend"))  # type: ignore[arg-type]
    return "let the platform choose the torch.compile backend"


def fix_inference_mode(site: Site, context: FixContext) -> str:
    """TP132: `@torch.no_grad()` instead of `@torch.inference_mode()` under torch.compile."""
    new = context.expression("torch.no_grad()")
    context.edit(site.node, lambda updated: new)
    return "use torch.no_grad() under torch.compile"


def fix_inductor_config(site: Site, context: FixContext) -> str:
    """TP133: drop Inductor's CUDA/Triton settings."""
    line = context.facts.single_statement_line(site.node)
    assert isinstance(line, cst.SimpleStatementLine)
    context.remove_line(line)
    return "drop an Inductor CUDA setting"
