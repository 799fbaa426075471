"""One attempt at the work on LangGraph's functional API, checkpointed to SQLite.

    python -m engines.langgraph_worker '<job json>'

The entrypoint reads the report when it runs, summarises the four sections as tasks, assembles the
digest and posts it as a task. Resuming (attempt 2 and later) invokes the same thread with no input, so
LangGraph restores what its checkpoint holds (or starts over when nothing was saved). With
``keyed_by_input`` each section's task is named by the hash of the text it read: the builder's fix, so a
changed section is not restored by position.
"""

from __future__ import annotations

import sqlite3
import sys

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.func import entrypoint, task

from engines.workload import SECTIONS, Job, assemble, finish, model_call, post, read_report, text_hash

THREAD = {"configurable": {"thread_id": "digest/q3-report"}}


def main(job: Job) -> None:
    saver = SqliteSaver(sqlite3.connect(job.folder / "langgraph.sqlite", check_same_thread=False))

    def summarise(section: str, text: str) -> dict:
        return model_call(job, section, text)

    by_position = task(name="summarise")(summarise)

    @task(name="post")
    def announce(digest: dict) -> dict:
        return post(job, digest)

    @entrypoint(checkpointer=saver)
    def digest_q3(_start) -> dict:
        report = read_report(job)
        parts = []
        for section in SECTIONS:
            step = (
                task(name=f"summarise-{section}-{text_hash(report[section])}")(summarise)
                if job.keyed_by_input
                else by_position
            )
            parts.append(step(section, report[section]).result())
        digest = assemble(parts)
        return {"digest": digest, "answer": announce(digest).result()}

    # Resume what the checkpoint holds; with nothing saved (durability "exit" before a crash) start over.
    start = None if saver.get_tuple(THREAD) is not None else {"start": True}
    result = digest_q3.invoke(start, THREAD, durability=job.durability)
    finish(job, result["digest"], result["answer"])


if __name__ == "__main__":
    main(Job.from_json(sys.argv[1]))
