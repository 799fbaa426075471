"""The recorded real-engine results beside the model's predictions (content/engine-results.json)."""

from __future__ import annotations

from html import escape

from app.render.controls import named_value

FIELD_WORDS = {
    "calls_by_attempt": "model calls by attempt",
    "steps_restored": "steps restored",
    "digest_figure": "the digest quotes",
    "posts_applied": "posts the feed applied",
    "duplicate_posts": "duplicate posts",
}


def _value(field: str, value) -> str:
    if field == "calls_by_attempt":
        return ", ".join(f"#{k} {v}" for k, v in value.items())
    return str(value)


def engines_html(data: dict) -> str:
    """The recorded real-engine results beside the model's predictions (from content/engine-results.json)."""
    names = {e: v.get("name", e) for e, v in data["engines"].items()}  # the record says each engine's name
    versions = ", ".join(f"{names[e]} {v['version']} ({v['package']})" for e, v in data["engines"].items())
    if data.get("restate_server"):
        versions += f", on {data['restate_server']}"
    out = [
        f'<p class="engines-versions">Recorded with {escape(versions)} by '
        f"<code>{escape(data['generated_by'])}</code>.</p>"
    ]
    scenarios: dict[str, list] = {}
    for row in data["results"]:
        scenarios.setdefault(row["scenario"], []).append(row)
    for rows in scenarios.values():
        out.append(
            f'<table class="engines"><caption>{escape(rows[0]["title"])}</caption><thead><tr>'
            '<th scope="col">engine</th><th scope="col">how</th><th scope="col">observed</th>'
            '<th scope="col">the model, for the matching switches</th><th '
            'scope="col">verdict</th></tr></thead><tbody>'
        )
        out += [_engine_row(row, names.get(row["engine"], row["engine"])) for row in rows]
        out.append("</tbody></table>")
    return "".join(out)


def _engine_row(row: dict, name: str) -> str:
    """One engine's run of a scenario: what it did, what the model says for those switches, the verdict."""
    switches = "; ".join(
        named_value(k, v)
        for k, v in row["switches"].items()
        if k in ("silent", "checkpoints", "change", "pins", "post_key", "fencing", "poster")
    )
    if row["compared"]:
        seen = "; ".join(f"{FIELD_WORDS.get(f, f)}: {_value(f, row['observed'][f])}" for f in row["compared"])
        said = "; ".join(f"{FIELD_WORDS.get(f, f)}: {_value(f, row['model'][f])}" for f in row["compared"])
        verdict = "✔ matches" if row["matches"] else "✖ differs"
    else:
        o = row["observed"]
        seen = (
            f"stale worker's writes that landed: {o['stale_store_writes_landed']}; it finished: "
            f"{'yes' if o['stale_worker_finished'] else 'no'}; more calls: "
            f"{o['stale_calls_after_continue']}; new posts: {o['posts_after_continue']}"
        )
        said = "; ".join(
            f"{k}: {v['stale_writes_rejected']} stale write(s) rejected, {v['stale_writes_applied']} applied"
            for k, v in row["model"].items()
        )
        verdict = f"closest: fencing {row['matching_fencing']}"
    note = f'<div class="note">{escape(row["note"])}</div>' if row["note"] else ""
    return (
        f'<tr><th scope="row">{escape(name)}</th>'
        f"<td>{escape(row['variant'])}</td>"
        f"<td>{escape(seen)}{note}</td><td>{escape(said)}<div "
        f'class="note">{escape(switches)}</div></td>'
        f"<td><strong>{escape(verdict)}</strong></td></tr>"
    )
