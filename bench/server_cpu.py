"""The CPU time a benchmarked server spends: every thread of its processes (the supervisor
and its workers), for bench/deal_bench.py and bench/service_bench.py."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def _stat_fields(pid: int) -> list[str] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # gone between the listing and the read
        return None
    return text[text.rindex(")") + 2 :].split()  # the name in parentheses may hold spaces


def server_tree(root_pid: int) -> list[int]:
    """``root_pid`` and every live descendant (the supervisor and its workers)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat_fields(int(entry.name))
            if fields:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    tree, todo = [], [root_pid]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo += children.get(pid, [])
    return tree


def server_cpu_seconds(root_pid: int) -> tuple[float, float]:
    """CPU time of the server's processes, two ways: the sum of every thread's
    ``schedstat`` run time (nanoseconds, the figure the table uses), and utime + stime from
    ``stat`` (clock ticks, 10 ms: a check on the first, which misses a thread that exited)."""
    precise, ticks = 0, 0
    for pid in server_tree(root_pid):
        fields = _stat_fields(pid)
        if fields:
            ticks += int(fields[11]) + int(fields[12])
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            with contextlib.suppress(OSError, IndexError, ValueError):  # a thread gone
                precise += int((task / "schedstat").read_text().split()[0])
    return precise / 1e9, ticks / CLOCK_TICKS
