#!/usr/bin/env python3
"""Saturation throughput of one N-port switch with FIFO input queues (head-of-line blocking).

Every input always has a packet at its head, for a uniformly random output (the source's own
port included, as BookSim2's uniform traffic, or excluded, as arcsim's); each cycle every
output takes one of the inputs whose head wants it, at random, and the winner draws a new
destination. The cross-check (README.md) compares BookSim2's and arcsim's one-switch runs
with this model: the two simulators' uniform traffic differs in the source's own port.

    python3 tools/booksim/hol_model.py [CYCLES]
"""
import random
import sys


def saturation(ports, self_allowed, cycles, seed=1):
    rng = random.Random(seed)

    def destination(src):
        if self_allowed:
            return rng.randrange(ports)
        d = rng.randrange(ports - 1)
        return d if d < src else d + 1

    head = [destination(i) for i in range(ports)]
    sent = 0
    for _ in range(cycles):
        wanting = {}
        for i, d in enumerate(head):
            wanting.setdefault(d, []).append(i)
        for inputs in wanting.values():
            winner = rng.choice(inputs)
            head[winner] = destination(winner)
            sent += 1
    return sent / (ports * cycles)


if __name__ == "__main__":
    cycles = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    for n in (4, 8):
        print(f"{n} ports: {saturation(n, True, cycles):.4f} with packets to the source, "
              f"{saturation(n, False, cycles):.4f} without")
