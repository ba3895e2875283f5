"""Reading `strace -f -e trace=connect,sendto,sendmmsg` logs: which AF_INET/AF_INET6 addresses a process tree
tried to reach (DNS queries included). Shared by the network guard test and benchmarks/network_guard.py."""
from __future__ import annotations

import re
from pathlib import Path

SYSCALLS = "trace=connect,sendto,sendmmsg"
INET_ADDRESS = re.compile(r'sa_family=AF_INET6?, sin6?_port=htons\((\d+)\)[^}]*?'
                          r'(?:inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6, "([^"]+)")')


def traced(strace: str, log: Path, argv: list[str]) -> list[str]:
    # --seccomp-bpf: the kernel stops a traced process only at these calls, not at every futex of its threads
    return [strace, "-f", "--seccomp-bpf", "-qq", "-e", SYSCALLS, "-o", str(log), *argv]


def outbound(log: Path, allowed: set[tuple[str, int]] = frozenset()) -> tuple[list[str], list[str]]:
    """(attempts to reach anything not allowed, attempts to reach an allowed address)."""
    denied, permitted = [], []
    for line in log.read_text(errors="replace").splitlines():
        if "AF_INET" not in line:
            continue
        match = INET_ADDRESS.search(line)
        if match is None:  # an address we cannot read is not assumed harmless
            denied.append(line.strip())
            continue
        port, host = int(match[1]), match[2] or match[3]
        (permitted if (host, port) in allowed else denied).append(f"{host}:{port}  ({line.strip()[:120]})")
    return denied, permitted
