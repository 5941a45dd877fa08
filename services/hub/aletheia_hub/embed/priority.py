"""Background model runs yield the cores to requests.

On Linux a thread has its own nice value, so the threads that embed what was saved can run
below the hub's request threads: while saves and searches keep both cores busy the scheduler
gives them the cores first, and the backlog takes what is left; when the hub is idle the
model runs at full speed. Elsewhere (macOS, Windows) the nice value belongs to the whole
process, so nothing is changed there.
"""

import logging
import os
import sys
import threading
from typing import Final

logger = logging.getLogger(__name__)

# Weight 335 against 1024 for a thread at nice 0 (the kernel's table): about a quarter of a
# contended core, and all of an idle one. On two cores, with two replicas embedding every save
# of a team hub over a million memories (bench/scale.py), save p50 fell from 28-31 ms to 16-20
# (16-18 at nice 10). bench/backlog.py's 10,000 saves from two sessions at nice 10 left 8,566
# without a vector at the last save, 67 s of work against a 60 s target; at 5, 7,545-7,667
# (57-61 s), as at the hub's priority (7,160, 60 s).
BACKGROUND_NICENESS: Final = 5


def lower_thread_priority(niceness: int = BACKGROUND_NICENESS) -> bool:
    """Run the calling thread at `niceness` (Linux only, where it is per thread); True if
    it now does. A thread may always lower its own priority, never raise it again."""
    if sys.platform != "linux" or not hasattr(os, "setpriority"):
        return False
    thread = threading.get_native_id()
    try:
        current = os.getpriority(os.PRIO_PROCESS, thread)
        if current < niceness:
            os.setpriority(os.PRIO_PROCESS, thread, niceness)
    except OSError as error:  # a sandbox that forbids it: run at the hub's priority
        logger.debug("embedding keeps the hub's priority: %s", error)
        return False
    return True
