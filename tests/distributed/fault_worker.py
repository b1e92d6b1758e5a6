"""Run under `mpiexec -n 2 ... fault_worker.py MODE`: rank 1 misbehaves, rank 0 waits in an
all_reduce. MODE is raise (rank 1 raises), die (rank 1 is killed) or late (rank 1 never
calls the collective; rank 0 must time out with DistBackendError)."""
import datetime
import os
import signal
import sys
import time

import minigrad
import minigrad.distributed as dist

mode = sys.argv[1]
dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=3))
if dist.get_rank() == 1:
    if mode == "raise":
        raise ValueError("rank 1 failed on purpose")
    if mode == "die":
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(30)  # "late": never reaches the all_reduce
    sys.exit(0)
try:
    dist.all_reduce(minigrad.ones(3))
except dist.DistBackendError as error:
    print(f"rank 0 caught: {error}", flush=True)
    os._exit(3)  # a clean exit would make MPI wait for the late peer
print("rank 0: all_reduce returned without its peer", flush=True)
