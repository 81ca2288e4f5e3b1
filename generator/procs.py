"""Child processes that never outlive the build that forked them."""

from __future__ import annotations

import os
import signal


def die_with_parent(parent: int) -> None:
    """In a forked child: be killed when ``parent`` dies, however it dies (SIGKILL included).

    A build killed while its figure or PDF child is blocked on a pipe would otherwise leave that child behind for
    good (each holds ~100 MB). Linux's PR_SET_PDEATHSIG does this; where it is missing, the child only checks once.
    """
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)
