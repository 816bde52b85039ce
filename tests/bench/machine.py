"""The machine's fixed costs: what a ratio to the floor does not scale away.

    python3 tests/bench/machine.py [ROUNDS]

A `check` starts two programs where the floor (`python3 -I -S -c pass`) starts one, forks, wakes
processes on the other core and copies pages shared since the fork. On a VM those cost what the
hypervisor makes them cost, not what the CPU's speed does, so the same build reads a different
ratio on another machine: print these beside a benchmark's figures to tell machines apart.

Printed, medians of ROUNDS (default 200):
  - a program's start: /bin/true started and waited for (fork, exec, the C library's start, exit),
    and on x86-64 a program of three instructions that exits at once, without a C library (the
    difference is the C library's start: on a VM where `cpuid` traps, mostly its probing of the
    caches, which every program pays);
  - the floor itself, with WORKSHOP_PYTHON (else python3);
  - a pipe round trip between two processes on one core, and on two (the second core's wake-up);
  - how long a forked child waits to first run while its parent stays busy for 2 ms (a child
    queued on its parent's core waits for the parent);
  - a page fault: the first write to a fresh page, and to a page shared since a fork.
"""

import mmap
import os
import platform
import statistics
import struct
import subprocess
import sys
import tempfile
import time

PAGE = mmap.PAGESIZE


def median_ms(times):
    return statistics.median(times) / 1e6


def started(command, rounds):
    times = []
    for _ in range(rounds):
        begin = time.perf_counter_ns()
        subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter_ns() - begin)
    return median_ms(times)


def without_libc(folder):
    """A static x86-64 program with no C library: `exit(0)` in three instructions, loaded at
    0x400000 by one segment that also holds the ELF header."""
    code = bytes.fromhex("b83c000000" "31ff" "0f05")  # mov eax, 60; xor edi, edi; syscall
    base, start = 0x400000, 64 + 56
    size = start + len(code)
    header = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    header += struct.pack("<HHIQQQIHHHHHH", 2, 0x3E, 1, base + start, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    segment = struct.pack("<IIQQQQQQ", 1, 5, 0, base, base, size, size, 0x1000)
    path = os.path.join(folder, "exit0")
    with open(path, "wb") as program:
        program.write(header + segment + code)
    os.chmod(path, 0o755)
    return path


def round_trip_us(child_core, parent_core, trips):
    """The mean of many round trips back to back, as a run of calls makes them."""
    there, here = os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {child_core})
        while True:
            byte = os.read(there[0], 1)
            if byte in (b"", b"q"):
                os._exit(0)
            os.write(here[1], byte)
    os.sched_setaffinity(0, {parent_core})
    time.sleep(0.01)
    begin = time.perf_counter_ns()
    for _ in range(trips):
        os.write(there[1], b"x")
        os.read(here[0], 1)
    spent = (time.perf_counter_ns() - begin) / trips / 1e3
    os.write(there[1], b"q")
    os.waitpid(pid, 0)
    for fd in (*there, *here):
        os.close(fd)
    return spent


def forked_child_waits_ms(rounds, busy_ns=2_000_000):
    waits = []
    for _ in range(rounds):
        read, write = os.pipe()
        begin = time.monotonic_ns()
        pid = os.fork()
        if pid == 0:
            os.write(write, str(time.monotonic_ns()).encode())
            os._exit(0)
        end = time.monotonic_ns() + busy_ns
        while time.monotonic_ns() < end:
            pass
        first_run = int(os.read(read, 64))
        os.waitpid(pid, 0)
        os.close(read)
        os.close(write)
        waits.append(first_run - begin)
    return median_ms(waits)


def fault_us(pages):
    """The first write to fresh pages, then (in a forked child) to the same pages, now shared."""
    memory = mmap.mmap(-1, pages * PAGE)
    begin = time.perf_counter_ns()
    for page in range(pages):
        memory[page * PAGE] = 1
    fresh = (time.perf_counter_ns() - begin) / pages / 1e3
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        begin = time.perf_counter_ns()
        for page in range(pages):
            memory[page * PAGE] = 2
        os.write(write, str((time.perf_counter_ns() - begin) / pages / 1e3).encode())
        os._exit(0)
    copied = float(os.read(read, 64))
    os.waitpid(pid, 0)
    return fresh, copied


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 200
    python = os.environ.get("WORKSHOP_PYTHON", "python3")
    cores = sorted(os.sched_getaffinity(0))
    print(f"cores: {len(cores)}, load now: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"interpreter: {python}")
    print(f"a program's start (/bin/true):        {started(['/bin/true'], rounds):6.2f} ms")
    if platform.machine() == "x86_64" and sys.platform == "linux":
        with tempfile.TemporaryDirectory() as folder:
            bare = started([without_libc(folder)], rounds)
        print(f"the same with no C library:           {bare:6.2f} ms")
    print(f"the floor (-I -S -c pass):            {started([python, '-I', '-S', '-c', 'pass'], rounds):6.2f} ms")
    print(f"a pipe round trip, one core:          {round_trip_us(cores[0], cores[0], rounds * 10):6.1f} us")
    if len(cores) > 1:
        print(f"a pipe round trip, two cores:         {round_trip_us(cores[0], cores[1], rounds * 10):6.1f} us")
    print(f"a forked child's wait, parent busy 2 ms: {forked_child_waits_ms(min(rounds, 100)):5.2f} ms")
    fresh, copied = fault_us(4096)
    print(f"a page fault, fresh page:             {fresh:6.2f} us")
    print(f"a page fault, page shared since fork: {copied:6.2f} us")


main()
