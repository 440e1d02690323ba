"""Scan one source text: parse, detect, and turn sites into findings for a target."""

import ast
import re

import libcst as cst

from agent.errors import BadInputError
from agent.settings import Target
from tools.rules import Effort, get_rule
from tools.scanner.detect import detect, for_target
from tools.scanner.detectors.kernels import scan_cuda_source
from tools.scanner.facts import ModuleFacts
from tools.scanner.findings import FileScan, Finding, Unparsable
from tools.scanner.site import Site

# Every detector needs at least one of these words in the file (imports included: an alias is
# always introduced by an import naming the original). Files without any are only parsed.
TRIGGERS = re.compile(
    r"cuda|CUDA|nccl|NCCL|triton|cpp_extension|library|flash_attn|xformers|apex|bitsandbytes|cupy"
    r"|nvml|nvidia|GPUtil|tensorrt|dali|cudf|cuml|cugraph|transformer_engine|flashinfer"
    r"|deepspeed|mamba_ssm|causal_conv1d|liger_kernel|unsloth|float64|double|half|float16"
    r"|numpy|pin_memory|load|compile|_inductor|inference_mode|DataParallel|SyncBatchNorm"
    r"|FullyShardedDataParallel|fully_shard|parallelize_module|spawn|start_processes"
    r"|set_start_method|device_ids|output_device|ProfilerActivity|use_device|cudnn|backends"
    r"|Generator|GradScaler|autocast|custom_fwd|custom_bwd|DoubleTensor|HalfTensor|sdp_kernel"
    r"|sdpa_kernel|SDPBackend|record_stream"
)
CUDA_SUFFIXES = (".cu", ".cuh")


class UnparsableSourceError(BadInputError):
    """A Python source that libcst cannot parse; carries where."""

    def __init__(self, path: str, line: int, col: int, reason: str) -> None:
        super().__init__(f"{path}:{line}:{col}: cannot parse: {reason}", hint="fix the syntax")
        self.where = Unparsable(path, line, col, reason)


def parse(source: str, path: str = "<string>") -> cst.Module:
    """The libcst module, or UnparsableSourceError naming the file, line and column."""
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        try:  # Python's own parser points at the error more precisely
            ast.parse(source)
        except SyntaxError as precise:
            raise UnparsableSourceError(
                path, precise.lineno or 1, precise.offset or 1, precise.msg
            ) from None
        reason = str(exc.message).strip().splitlines()[0] if exc.message else "syntax error"
        raise UnparsableSourceError(path, exc.raw_line, exc.raw_column + 1, reason) from None


def analyze(source: str, path: str = "<string>") -> tuple[ModuleFacts, list[Site]]:
    """Facts and sites (for every target) of a Python source."""
    facts = ModuleFacts(parse(source, path))
    return facts, detect(facts)


def scan_source(
    source: str, path: str = "<string>", *, target: Target = Target.AGNOSTIC
) -> list[Finding]:
    """The findings for `target` in a Python source (raises UnparsableSourceError)."""
    facts, sites = analyze(source, path)
    return to_findings(facts, for_target(sites, target), path, target, source.splitlines())


def to_findings(
    facts: ModuleFacts, sites: list[Site], path: str, target: Target, lines: list[str]
) -> list[Finding]:
    """Findings with positions, sorted by place, for `target`."""
    ranges = facts.positions([site.node for site in sites])
    findings = []
    for site in sites:
        rule = get_rule(site.code)
        where = ranges[site.node]
        fixable = target in site.fixable
        effort = (
            Effort.NONE if fixable else (rule.effort if rule.effort != Effort.NONE else Effort.LOW)
        )
        findings.append(
            Finding(
                rule=rule.code,
                category=rule.category.value,
                path=path,
                line=where.start.line,
                col=where.start.column + 1,
                end_line=where.end.line,
                end_col=where.end.column + 1,
                message=site.message or rule.message,
                effort=effort,
                fixable=fixable,
                targets=tuple(sorted(value.value for value in site.targets)),
                severity=rule.severity,
                code=lines[where.start.line - 1].strip() if where.start.line <= len(lines) else "",
            )
        )
    return sorted(findings, key=lambda found: (found.line, found.col, found.rule))


def scan_text(text: str, path: str, target: Target) -> FileScan:
    """Scan a file's text: Python through libcst, CUDA C++ for its kernels."""
    lines = text.splitlines()
    if path.endswith(CUDA_SUFFIXES):
        return FileScan(path, len(lines), tuple(_cuda_findings(lines, path, target)))
    if not TRIGGERS.search(text):
        return _check_syntax(text, path, len(lines))
    try:
        return FileScan(path, len(lines), tuple(scan_source(text, path, target=target)))
    except UnparsableSourceError as exc:
        return FileScan(path, len(lines), unparsable=exc.where)


def _check_syntax(text: str, path: str, count: int) -> FileScan:
    """A file with nothing to find: still report it when it does not parse."""
    try:
        ast.parse(text)
    except SyntaxError as exc:
        where = Unparsable(path, exc.lineno or 1, (exc.offset or 0) or 1, exc.msg)
        return FileScan(path, count, unparsable=where)
    return FileScan(path, count)


def _cuda_findings(lines: list[str], path: str, target: Target) -> list[Finding]:
    rule = get_rule("TP144")
    kernels = scan_cuda_source("\n".join(lines)) or [(1, "")]
    found = []
    for number, name in kernels:
        line = lines[number - 1] if lines else ""
        message = f"CUDA kernel `{name}` needs a target implementation" if name else rule.message
        found.append(
            Finding(
                rule=rule.code,
                category=rule.category.value,
                path=path,
                line=number,
                col=1,
                end_line=number,
                end_col=len(line) + 1,
                message=message,
                effort=rule.effort,
                fixable=False,
                targets=tuple(sorted(value.value for value in rule.targets)),
                severity=rule.severity,
                code=line.strip(),
            )
        )
    return found if target in rule.targets else []
