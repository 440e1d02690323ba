"""Fakes that ship with torchport and honour the real interfaces (STYLE.md rule 3)."""
