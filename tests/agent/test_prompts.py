"""Every prompt template renders with its variables, and a missing variable is an error."""

import jinja2
import pytest

from agent.prompts import TEMPLATES, render

VARIABLES = {
    "system.j2": {"target": "tpu"},
    "edit_finding.j2": {
        "path": "model.py",
        "target": "tpu",
        "findings": [
            {
                "rule": "TP050",
                "category": "kernels",
                "effort": "high",
                "line": 12,
                "message": "Triton kernel",
            }
        ],
        "rules": [{"code": "TP050", "message": "Triton kernel", "explanation": "Replace it."}],
        "code": "   12 | add_kernel[grid](x, y)",
    },
    "fix_failure.j2": {
        "target": "neuron",
        "command": "python train.py",
        "exit_code": 1,
        "kind": "triton",
        "message": "ImportError: triton is not available",
        "location": "model.py:3",
        "code": ">    3 | import triton",
        "frames": ["train.py:1", "model.py:3"],
        "metrics": "",
        "advice": "Replace the kernel.",
        "output_tail": "ImportError: triton is not available",
    },
    "fix_parity.j2": {
        "target": "tpu",
        "verdict": "fail",
        "reasons": ["probe loss differs"],
        "rows": [
            {
                "probe": "loss",
                "max_abs": 0.5,
                "max_rel": 0.1,
                "ratio": 9.0,
                "verdict": "fail",
                "note": "",
            }
        ],
        "diff": "-x.cuda()\n+x.to(device)",
    },
}


@pytest.mark.parametrize("template", TEMPLATES)
def test_each_template_renders(template: str) -> None:
    text = render(template, **VARIABLES[template])
    assert text.strip()
    assert "{{" not in text


def test_templates_name_the_target() -> None:
    assert "`neuron` target" in render("fix_failure.j2", **VARIABLES["fix_failure.j2"])
    assert "CPU-only machines" in render("system.j2", target="agnostic")


def test_missing_variable_is_an_error() -> None:
    variables = dict(VARIABLES["fix_failure.j2"])
    del variables["advice"]
    with pytest.raises(jinja2.UndefinedError):
        render("fix_failure.j2", **variables)
