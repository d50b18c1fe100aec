"""Ctrl-C (SIGINT; a notebook's interrupt) stops a running simulation: KeyboardInterrupt,
at once rather than at the simulation's end."""

import signal
import subprocess
import sys
import time

LONG_RUN = """
import sys, time, arcsim
print("started", flush=True)
t = time.time()
try:
    # The OFAR paper's full network for 10 million cycles: hours, unless stopped.
    arcsim.run(**{"simulation.measure_cycles": 10_000_000})
except KeyboardInterrupt as e:
    print("KeyboardInterrupt after", round(time.time() - t, 1), "s:", e, flush=True)
    sys.exit(0)
print("not interrupted", flush=True)
sys.exit(1)
"""


def test_ctrl_c_stops_a_run_with_keyboard_interrupt():
    p = subprocess.Popen([sys.executable, "-c", LONG_RUN], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "started"
    time.sleep(2)
    p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise AssertionError("the run did not stop within 60 s of SIGINT")
    assert p.returncode == 0, (out, err)
    assert "KeyboardInterrupt after" in out and "interrupted" in out, (out, err)
