"""Parity: reference outputs of the original program, probes, and a verdict that cannot be gamed.

Entry points: `reference.collect_reference`, `runs.run_candidate`, `verdict.check_parity`,
`spec.ParitySpec` / `spec.load_spec`. README.md lists the modules.
"""
