"""What the host offers work run on threads: its cores and its free memory."""

from __future__ import annotations

import os


def cores() -> int:
    """The cores this process may run on (its affinity where the system reports it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def free_bytes() -> int:
    """Physical memory available now: Linux's MemAvailable (free memory and the page cache
    it can drop), else the free pages (other Unixes), else 2 GiB."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 2 << 30
