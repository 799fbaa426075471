"""One attempt at the work on DBOS Transact, with its system database on PostgreSQL.

    python -m engines.dbos_worker '<job json>'

By position: one workflow ``digest/q3-report`` whose steps are the four summaries and the post; a later
attempt launches DBOS, which recovers the pending workflow and replays its recorded steps. Keyed by input
(the builder's fix): every section summary is its own workflow whose ID carries the hash of the text it
read, and the post is a workflow whose ID names the digest, so a changed section gets a new identity.
(Child workflows inside one parent do not do this: the parent's replay returns the child recorded at that
position, whatever ID is asked for, as a probe here showed.)
"""

from __future__ import annotations

import sys

from dbos import DBOS, SetWorkflowID

from engines.workload import SECTIONS, Job, assemble, finish, model_call, post, read_report, text_hash

WORKFLOW = "digest/q3-report"


def main(job: Job) -> None:
    DBOS(config={"name": "digest-q3", "system_database_url": job.dbos_url, "run_admin_server": False})

    @DBOS.step()
    def summarise(section: str, text: str) -> dict:
        return model_call(job, section, text)

    @DBOS.step()
    def announce_step(digest: dict) -> dict:
        return post(job, digest)

    @DBOS.workflow()
    def digest_q3() -> dict:
        report = read_report(job)
        parts = [summarise(section, report[section]) for section in SECTIONS]
        digest = assemble(parts)
        return {"digest": digest, "answer": announce_step(digest)}

    @DBOS.workflow()
    def summary_of(section: str, text: str) -> dict:
        return summarise(section, text)

    @DBOS.workflow()
    def announce(digest: dict) -> dict:
        return announce_step(digest)

    DBOS.launch()  # recovers this executor's pending workflows, if any
    try:
        if job.keyed_by_input:
            report = read_report(job)
            parts = []
            for section in SECTIONS:
                with SetWorkflowID(f"{WORKFLOW}/{section}/{text_hash(report[section])}"):
                    parts.append(summary_of(section, report[section]))
            digest = assemble(parts)
            with SetWorkflowID(f"{WORKFLOW}/announce/{digest['digest']}"):
                result = {"digest": digest, "answer": announce(digest)}
        elif job.attempt == 1:
            with SetWorkflowID(WORKFLOW):
                result = digest_q3()
        else:
            result = DBOS.retrieve_workflow(WORKFLOW).get_result()
        finish(job, result["digest"], result["answer"])
    finally:
        DBOS.destroy()


if __name__ == "__main__":
    main(Job.from_json(sys.argv[1]))
