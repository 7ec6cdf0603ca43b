"""The one exception of onboarding (``init`` and ``import``), with stable codes.

Codes are ``init.<reason>`` or ``import.<reason>``; the CLI prints ``code: message`` on one
line and exits 2. Nothing is left on disk when one is raised (see :mod:`.project`).
"""

from __future__ import annotations

from harness.errors import HarnessError


class OnboardingError(HarnessError):
    """Scaffolding or importing a contract failed; the message names the input as written."""

    code = "import.invalid"
