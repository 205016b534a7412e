"""The Dask backend of `polo-lineup batch` (``--backend dask``): the same per-clip work
(vision.batch.process_clip: staging folder, atomic install, done.json, a failure recorded
as a row) run as tasks on a Dask distributed cluster instead of local processes.

- No ``--scheduler``: a LocalCluster of ``workers`` single-threaded worker processes is
  started for the batch and closed after it (a way to try the backend on one machine).
- ``--scheduler tcp://HOST:8786``: the clips go to that running cluster. Its workers must
  see the clips, the model file and the output folder at the same paths (a shared file
  system) and have polo-lineup installed.

Each task loads the detector once per worker process (vision.batch.shared_detector) and
limits OpenCV and torch to the worker's threads. A worker lost while on a clip (crash,
out of memory, killed) fails that clip with an error row; Dask's own retries are off, so a
clip that kills workers cannot take the cluster down one worker after another. Per-clip
frame progress bars are a local-backend feature: here the bar counts clips.
"""
from __future__ import annotations

import os
from typing import Callable, Sequence

from vision.batch import BatchError, ClipJob, _base_row, limit_threads, one_line, process_clip

CONNECT_TIMEOUT = "15s"          # how long to try reaching a --scheduler
LOST = "the Dask worker was lost while analysing this clip"


def _task(job: ClipJob, threads: int) -> dict:
    """process_clip on a Dask worker, with its share of the CPU threads."""
    limit_threads(threads)
    return process_clip(job)


def _client(workers: int, scheduler: str | None):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise BatchError("--backend dask needs dask[distributed]: pip install 'dask[distributed]'") from None
    if scheduler:
        try:
            return Client(scheduler, timeout=CONNECT_TIMEOUT), None
        except (OSError, TimeoutError, ValueError) as exc:
            raise BatchError(f"cannot reach the Dask scheduler at {scheduler}: {one_line(exc)}") from None
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=40)
    return Client(cluster), cluster


def run_on_dask(jobs: Sequence[ClipJob], workers: int, scheduler: str | None,
                record: Callable[[ClipJob, dict], None]) -> None:
    """Run `jobs` on a Dask cluster, calling `record(job, row)` as each clip finishes."""
    from dask.distributed import as_completed
    client, cluster = _client(workers, scheduler)
    futures = {}
    try:
        n_workers = max(1, len(client.scheduler_info().get("workers", {})) or workers)
        threads = max(1, (os.cpu_count() or 1) // n_workers) if scheduler is None else 0
        for i, job in enumerate(jobs):
            fut = client.submit(_task, job, threads, key=f"polo-clip-{i}-{job.name}", pure=False, retries=0)
            futures[fut] = job
        for fut in as_completed(list(futures)):
            job = futures[fut]
            try:
                row = fut.result()
            except Exception as exc:  # noqa: BLE001 - KilledWorker, CommClosedError...: that clip fails
                row = {**_base_row(job), "error": f"{LOST}: {type(exc).__name__}: {one_line(exc)}"}
            record(job, row)
    finally:
        for fut in futures:
            if not fut.done():
                fut.cancel()
        client.close()
        if cluster is not None:
            cluster.close()
