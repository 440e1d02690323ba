"""torchport's agent: the LangGraph migration loop, its nodes, the LLM client, settings, CLI."""

__version__ = "0.1.0"
