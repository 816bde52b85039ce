"""Commands timed side by side, round by round, for a machine whose speed drifts.

    python3 tests/bench/paired.py ROUNDS name=command name=command ... floor=command

Each round runs every command once, in turn, the order reversed every other round, so a slow
stretch of the machine falls on all of them alike. Printed per command: the median wall time,
the median CPU (its processes and everything they left behind: this process is a child
subreaper, so a Python the workshop killed without waiting still counts), and the median of its
per-round ratios to the last command (the floor) and to the first (the reference). Those paired
ratios are the figures to quote: a median of 150 rounds moves by a few percent between runs of
this script on a VM whose floor itself moves by half.
"""

import ctypes
import os
import resource
import statistics
import subprocess
import sys
import time


def children_cpu_ms():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (usage.ru_utime + usage.ru_stime) * 1000


def reap_orphans():
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def main():
    if len(sys.argv) < 4 or not sys.argv[1].isdigit():
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    named = [arg.split("=", 1) for arg in sys.argv[2:]]
    if any(len(pair) != 2 for pair in named):
        sys.exit("each command is name=command")
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    wall = {name: [] for name, _ in named}
    cpu = {name: [] for name, _ in named}
    for round_number in range(rounds):
        for name, command in named if round_number % 2 == 0 else named[::-1]:
            reap_orphans()
            before = children_cpu_ms()
            start = time.perf_counter()
            subprocess.run(command, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall[name].append((time.perf_counter() - start) * 1000)
            # What it killed on its way out ends within moments; its CPU belongs to this round.
            time.sleep(0.02)
            reap_orphans()
            cpu[name].append(children_cpu_ms() - before)
    floor, reference = named[-1][0], named[0][0]
    for name, _ in named:
        to_floor = statistics.median(a / b for a, b in zip(wall[name], wall[floor]))
        to_reference = statistics.median(a / b for a, b in zip(wall[name], wall[reference]))
        print(
            f"{name:10} {statistics.median(wall[name]):7.2f} ms wall {statistics.median(cpu[name]):7.2f} ms CPU"
            f"   paired: {to_floor:4.2f}x {floor}, {to_reference:4.2f}x {reference}"
        )


main()
