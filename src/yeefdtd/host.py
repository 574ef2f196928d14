"""What the host offers work run on threads: its cores and its available memory."""

from __future__ import annotations

import os

#: Linux's memory figures, and cgroup v2's limit and use for this process's group
MEMINFO = "/proc/meminfo"
CGROUP_MAX = "/sys/fs/cgroup/memory.max"
CGROUP_CURRENT = "/sys/fs/cgroup/memory.current"


def cores() -> int:
    """The cores this process may run on (its affinity where the system reports it)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _mem_available() -> int | None:
    """Linux's MemAvailable (free memory and the page cache it can drop), in bytes."""
    text = _read(MEMINFO) or ""
    for line in text.splitlines():
        if line.startswith("MemAvailable:"):
            try:
                return int(line.split()[1]) * 1024
            except (IndexError, ValueError):
                return None
    return None


def _cgroup_room() -> int | None:
    """Bytes this process's cgroup (v2) may still take, where it has a limit."""
    limit, used = _read(CGROUP_MAX), _read(CGROUP_CURRENT)
    if limit is None or used is None or limit.strip() == "max":
        return None
    try:
        return max(0, int(limit) - int(used))
    except ValueError:
        return None


def free_bytes() -> int:
    """Physical memory available now: Linux's MemAvailable, within the room a cgroup limit
    leaves (a container's), else the free pages (other Unixes), else 2 GiB."""
    got = [b for b in (_mem_available(), _cgroup_room()) if b is not None]
    if got:
        return min(got)
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return 2 << 30


def total_bytes() -> int | None:
    """The host's physical memory (os.sysconf's pages times their size), within a cgroup
    (v2) limit on this process's group (a container's); None where neither is known."""
    got = []
    try:
        got.append(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (AttributeError, ValueError, OSError):
        pass
    limit = (_read(CGROUP_MAX) or "").strip()
    if limit.isdigit():
        got.append(int(limit))
    got = [n for n in got if n > 0]
    return min(got) if got else None


def workers(count: int, bytes_each: int) -> int:
    """Threads for ``count`` pieces of work that each hold ``bytes_each`` bytes while they
    run: no more than the cores this process may use, nor than a quarter of the available
    memory holds; at least one."""
    return max(1, min(count, cores(), free_bytes() // 4 // max(1, bytes_each)))
