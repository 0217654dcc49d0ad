"""navcore_scheduler: the frame (``World.tick``: updates applied, observers
told, budgeted work), the frame's path requests, served within a time
budget, re-planned after updates; and a job system with dependencies."""
from .jobs import JobHandle, JobScheduler
from .requests import PathHandle
from .scheduler import Scheduler

__all__ = ["Scheduler", "JobScheduler", "JobHandle", "PathHandle"]
