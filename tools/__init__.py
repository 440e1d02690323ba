"""Deterministic tools: scanner and rules, codemods, edits, error catalogue, parity, git/GitHub."""
