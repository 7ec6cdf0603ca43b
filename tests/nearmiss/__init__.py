"""Invented contracts from the real-tools corpus: near misses measured on tools the demo is not.

:mod:`tests.nearmiss.project` writes a project of tight, sound contracts (GitHub REST operations
behind adapters, MCP results as bare results) from the shared corpus; the tests hold ``check``
to no finding on them without a waiver, and to flagging single weakenings of them.
"""
