"""Every setting flipped from every one of the 864 runs (issue 63): each of the fourteen settings to each of
its other values, 24 flips a run, 20,736 in all, and each flipped back. What the lead says is checked
against the two runs' events and invariants by a judge of this file's own, not by the model's comparison
(``compare_runs``): where the runs part, the newsletter's start, each invariant whose breach moved (read
off the frames' standings), one only a run judges, the end and the counts (read off the outcomes). Slow:
11,088 distinct runs."""

from __future__ import annotations

import json
from collections import Counter, defaultdict

import pytest

from app.content import sections, titles
from app.render.before_after import change_list, lead_text
from model import run, trace_dict
from model.analyses import compare_runs
from model.switches import ALL_SETTINGS, SETTING_BY_ID, Role, all_switches, allowed_values

pytestmark = pytest.mark.slow

#: How an event is told rather than what it did: its words; a count or a place that anything earlier
#: shifts (a call's number, the records it touched, the post whose answer a repeat returns); the
#: credentials its message carried; why it happened.
WORDS, PLACES, WHY = {"text", "label"}, {"call", "records"}, {"reason"}
CREDENTIALS, CARRIED_PLACES = {"token", "epoch", "pin", "key"}, {"post"}
COUNTS = ("model_calls", "steps_restored", "stale_writes_rejected", "stale_writes_applied", "posts_applied")


def deed(event: dict) -> str:
    """What an event did, by this file's judge: every field but how it is told."""
    kept = {k: v for k, v in event.items() if k not in WORDS | PLACES | WHY | {"carries", "redo"}}
    kept["carries"] = {k: v for k, v in event["carries"].items() if k not in CREDENTIALS | CARRIED_PLACES}
    kept["redo"] = [r["step"] for r in event["redo"]]  # which steps, not why
    return json.dumps(kept, sort_keys=True)


def telling(event: dict) -> str:
    """What an event did and how its credentials and reasons are told (only its words and places left out)."""
    return json.dumps({k: v for k, v in event.items() if k not in WORDS | PLACES}, sort_keys=True)


def first_tick(a: dict, b: dict, judge) -> int | None:
    for tick in range(max(len(a["ticks"]), len(b["ticks"]))):
        if tick >= len(a["ticks"]) or tick >= len(b["ticks"]):
            return tick  # one run has ended
        if [judge(e) for e in a["ticks"][tick]["events"]] != [judge(e) for e in b["ticks"][tick]["events"]]:
            return tick
    return None


def breaches(trace: dict) -> dict[str, int | None]:
    """Each invariant the run judges, and the first tick its frame stands broken (None: held)."""
    judged = trace["ticks"][0]["invariants"]
    return {
        i: next((f["tick"] for f in trace["ticks"] if f["invariants"][i] == "broken"), None) for i in judged
    }


def started(trace: dict) -> dict | None:
    """The newsletter's start as its event says: when, on which digest, quoting what."""
    for frame in trace["ticks"]:
        for event in frame["events"]:
            if event["kind"] == "newsletter-start":
                carried = event["carries"]
                return {"tick": frame["tick"], "digest": carried["digest"], "quote": carried["quote"]}
    return None


SAID: Counter = Counter()  # how often the judge said each section


def say(section: str, **fields) -> str:
    SAID[section] += 1
    return " ".join(sections("comparison")[section].format(**fields).split())


def newsletter_sentence(before: dict | None, after: dict | None) -> str:
    fields = {
        f"{name}_{k}": v for name, s in (("before", before), ("after", after)) for k, v in (s or {}).items()
    }
    if before is None:
        return say("newsletter starts", **fields)
    if after is None:
        return say("newsletter never starts", **fields)
    same = tuple(before[k] == after[k] for k in ("digest", "quote", "tick"))
    return say(NEWSLETTER_SAYS[same], **fields)


#: What the lead says of the newsletter's start in both runs, by whether they share its digest, its quote
#: and its tick: the judge's own table of the cases.
NEWSLETTER_SAYS = {
    (True, True, True): "newsletter same digest",
    (True, True, False): "newsletter same digest",
    (True, False, True): "newsletter still other quote",
    (False, True, True): "newsletter still other digest same quote",
    (False, False, True): "newsletter still other digest",
    (True, False, False): "newsletter other quote",
    (False, True, False): "newsletter other digest",
    (False, False, False): "newsletter other digest",
}


def expected_lead(setting: str, was: dict, now: dict, a: dict, b: dict, oa: dict, ob: dict) -> str:
    """The lead this file's judge finds true of the flip from run ``a`` to run ``b``."""
    said = [say("lead", changes=change_list(was, now, schedule=False))]
    held_a, held_b = breaches(a), breaches(b)
    moved = [i for i in held_a if i in held_b and held_a[i] != held_b[i]]
    once = [("before", i, held_a[i]) for i in held_a if i not in held_b]
    once += [("after", i, held_b[i]) for i in held_b if i not in held_a]
    counts = [k for k in COUNTS if oa[k] != ob[k]]
    first = first_tick(a, b, deed)
    if first is None:
        # "every invariant is as before": nothing the lead leaves out may differ.
        assert not moved and not once and not counts and started(a) == started(b), "nothing changes, yet"
        told = first_tick(a, b, telling)
        said.append(say("same") if told is None else say("same told", first=told))
        idle = SETTING_BY_ID[setting].role is Role.PROTECTION
        return " ".join([*said, say("idle protection" if idle else "idle other")])
    said.append(say("parts", first=first))
    if started(a) != started(b):
        said.append(newsletter_sentence(started(a), started(b)))
    named = titles("invariants")
    for i in moved:
        kind = "broken now" if held_a[i] is None else "held now" if held_b[i] is None else "moved"
        said.append(say(kind, title=named[i], before=held_a[i], after=held_b[i]))
    for name, i, tick in once:
        when = "now" if name == "after" else "no longer"
        said.append(say(f"judged {when} {'held' if tick is None else 'broken'}", title=named[i], tick=tick))
    if len(a["ticks"]) != len(b["ticks"]):
        said.append(say("ends", before=len(a["ticks"]) - 1, after=len(b["ticks"]) - 1))
    if counts:
        listed = "; ".join(f"{say(f'count {k}')} {oa[k]} → {ob[k]}" for k in counts)
        said.append(say("counts", counts=listed))
    return " ".join(said)


#: Sentences the judge must have found true of some flip, so that none of its branches goes untried.
EXERCISED = (
    "parts", "same", "same told", "idle protection", "idle other", "newsletter still other digest",
    "newsletter other digest", "newsletter same digest", "newsletter starts", "broken now", "held now",
    "moved", "judged now broken", "judged now held", "judged no longer broken", "judged no longer held",
    "newsletter never starts", "newsletter still other quote", "newsletter still other digest same quote",
    "ends", "counts",
)  # fmt: skip


def test_every_flip_s_lead_is_what_the_two_runs_bear_out():
    runs = {}

    def of(switches):
        if switches not in runs:
            done = run(switches)
            runs[switches] = (trace_dict(done), done.outcome().to_dict())
        return runs[switches]

    wrong, flips = [], 0
    SAID.clear()
    for base in all_switches():
        for setting in ALL_SETTINGS:
            for value in allowed_values(setting):
                if getattr(base, setting).value == value:
                    continue
                flips += 1
                after = base.replace(**{setting: value})
                (a, oa), (b, ob) = of(base), of(after)
                was, now = {setting: getattr(base, setting).value}, {setting: value}
                # The flip, and the flip back (the reader switching the setting back to the 864's value).
                for x, y, ox, oy, before, later in ((a, b, oa, ob, was, now), (b, a, ob, oa, now, was)):
                    lead = lead_text(compare_runs(x, y))
                    try:
                        expected = expected_lead(setting, before, later, x, y, ox, oy)
                    except AssertionError as error:
                        expected = f"({error})"
                    if lead != expected:
                        wrong.append((base.to_dict(), setting, before, later, lead, expected))
    assert flips == 864 * 24 == 20_736
    assert not wrong, f"{len(wrong)} leads say what the runs do not: {wrong[:3]}"
    assert [s for s in EXERCISED if not SAID[s]] == []


def test_an_event_s_words_are_a_function_of_its_fields_one_setting_away_from_the_864():
    """The fast test (tests/model/test_event_fields.py) over the 864; here over every run one setting
    away from them, the settings beyond the article among them."""
    said = defaultdict(set)
    seen = set()
    for base in all_switches():
        for setting in ALL_SETTINGS:
            for value in allowed_values(setting):
                switches = base.replace(**{setting: value})
                if switches in seen:
                    continue
                seen.add(switches)
                for frame in trace_dict(run(switches))["ticks"]:
                    for event in frame["events"]:
                        fields = json.dumps(
                            {k: v for k, v in event.items() if k not in WORDS}, sort_keys=True
                        )
                        said[fields].add((event["text"], event["label"]))
    assert len(seen) > 864
    ambiguous = {fields: words for fields, words in said.items() if len(words) > 1}
    assert not ambiguous, next(iter(ambiguous.items()))
