"""One attempt at the work on Restate: a deployment the Restate server invokes, and the client that asks.

    python -m engines.restate_worker '<job json>'

The process serves the handlers below (an ASGI app on Hypercorn, at ``job.listen_port``), registers
itself with the server's admin API at ``job.deployment_url`` (the scenario's forwarder, which points at
the live attempt as a load balancer would), and then asks the server's ingress for the result. The
server, not this process, owns the invocation: it journals every ``ctx.run`` as it finishes, and when a
deployment stops answering it closes that stream and replays the journal on whichever process answers
next. A process killed or stopped loses nothing the server recorded, and a stopped one that wakes finds
its stream gone.

By position: one ``Digest/run`` invocation (idempotency key ``digest/q3-report``) whose ``ctx.run``
steps are the four summaries and the post; a later attempt asks again with the same key and gets the
same invocation, finished from its journal. Keyed by input (the builder's fix): each summary is its own
``Summary/summarise`` invocation whose idempotency key carries the hash of the text it read, and the
post is an ``Announce/announce`` invocation keyed by the digest, so a changed section gets a new
identity while an unchanged one is answered from the server's record.
"""

from __future__ import annotations

import asyncio
import json
import sys
import traceback
import urllib.request

import restate
from hypercorn.asyncio import serve
from hypercorn.config import Config

from engines.workload import SECTIONS, Job, assemble, finish, model_call, post, read_report, text_hash

WORKFLOW = "digest/q3-report"
AS_DICT = restate.RunOptions(type_hint=dict)


def handlers(job: Job) -> list:
    """The three services, their steps journaled by the server (``ctx.run``)."""
    digest_service = restate.Service("Digest")
    summary_service = restate.Service("Summary")
    announce_service = restate.Service("Announce")

    @digest_service.handler()
    async def run(ctx: restate.Context, _request: dict) -> dict:
        async def body():
            report = read_report(job)  # read on every replay, as the other engines' workflow code does
            parts = [
                await ctx.run_typed(section, model_call, AS_DICT, job, section, report[section])
                for section in SECTIONS
            ]
            digest = assemble(parts)
            return {"digest": digest, "answer": await ctx.run_typed("post", post, AS_DICT, job, digest)}

        return await noted(job, "Digest/run", body())

    @summary_service.handler()
    async def summarise(ctx: restate.Context, request: dict) -> dict:
        section, text = request["section"], request["text"]
        return await ctx.run_typed(section, model_call, AS_DICT, job, section, text)

    @announce_service.handler()
    async def announce(ctx: restate.Context, digest: dict) -> dict:
        return await ctx.run_typed("post", post, AS_DICT, job, digest)

    return [digest_service, summary_service, announce_service]


async def noted(job: Job, handler: str, body):
    """Run a handler's body and append how it ended to ``handlers.log``: the stale-owner scenario reads
    what Restate did to a handler that woke after its stream was given to a successor."""
    try:
        result = await body
        ended = "returned"
        return result
    except BaseException as error:
        ended = "".join(traceback.format_exception_only(error)).strip() or type(error).__name__
        raise
    finally:
        with open(job.folder / "handlers.log", "a") as log:
            log.write(json.dumps({"attempt": job.attempt, "handler": handler, "ended": ended}) + "\n")


def http(url: str, body: object, headers: dict | None = None, timeout: float = 300) -> dict:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json", **(headers or {})}
    )
    with urllib.request.urlopen(request, timeout=timeout) as response:
        text = response.read()
    return json.loads(text) if text else {}


def ask(job: Job) -> dict:
    """The client's side: ask the ingress for each invocation by its idempotency key and wait for it."""

    def call(target: str, body: object, key: str) -> dict:
        return http(f"{job.restate_ingress}/{target}", body, {"idempotency-key": key})

    if not job.keyed_by_input:
        return call("Digest/run", {}, WORKFLOW)
    report = read_report(job)
    parts = [
        call("Summary/summarise", {"section": s, "text": report[s]}, f"{WORKFLOW}/{s}/{text_hash(report[s])}")
        for s in SECTIONS
    ]
    digest = assemble(parts)
    return {
        "digest": digest,
        "answer": call("Announce/announce", digest, f"{WORKFLOW}/announce/{digest['digest']}"),
    }


async def main(job: Job) -> None:
    config = Config()
    config.bind = [f"127.0.0.1:{job.listen_port}"]
    config.accesslog = None
    config.errorlog = str(job.folder / f"deployment-{job.attempt}.log")
    # The server multiplexes invocations over long-lived HTTP/2 connections; Hypercorn's defaults would
    # close them under it.
    config.h2_max_concurrent_streams = 2**31 - 1
    config.keep_alive_timeout = 2**31 - 1
    stop = asyncio.Event()
    server = asyncio.create_task(
        serve(restate.app(handlers(job)), config, mode="asgi", shutdown_trigger=stop.wait)
    )
    try:
        # Registering makes the server call the deployment (discovery), so it must be listening first.
        for _ in range(100):
            try:
                await asyncio.to_thread(
                    http,
                    f"{job.restate_admin}/deployments",
                    {"uri": job.deployment_url, "force": True},
                    None,
                    10,
                )
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            raise RuntimeError(f"could not register {job.deployment_url} with {job.restate_admin}")
        result = await asyncio.to_thread(ask, job)
        finish(job, result["digest"], result["answer"])
    finally:
        stop.set()
        await server


if __name__ == "__main__":
    asyncio.run(main(Job.from_json(sys.argv[1])))
