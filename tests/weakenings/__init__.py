"""The weakening suite: how much of a hurried author's weakening of a contract the
harness's commands see.

- :mod:`tests.weakenings.scratch` copies one demo tool (contract, schemas, fixtures, adapter)
  into a throwaway project, without its ``schemas.lock``, and edits the copy;
- :mod:`tests.weakenings.catalogue` is the table of weakenings: what each does, how it is
  applied, which command must catch it and which commands catch it;
- :mod:`tests.weakenings.runner` runs ``check``, ``lint`` and ``fuzz`` on a weakened copy as
  subprocesses and says whether each flagged it.

``tests/test_weakenings.py`` asserts that ``check`` flags each one (``xfail(strict=True)`` where
it does not yet); ``python bench/weakenings.py`` prints the figure for all three commands.
See docs/weakenings.md.
"""
