"""Apply search/replace edits (the LLM's edit format) exactly, or refuse with the closest lines."""

from tools.edits.search_replace import EditRefused, SearchReplace, apply_edit, closest_lines

__all__ = ["EditRefused", "SearchReplace", "apply_edit", "closest_lines"]
