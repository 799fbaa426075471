"""The pure renderers and the pages built from them, checked in the fast lane: what a mutation pass
showed only Chromium caught, caught here in seconds."""

from __future__ import annotations

import re

import pytest

from app.render.controls import player_html
from app.render.handout import handout_html
from app.render.outcome import badge_items, badges_html, so_far_html
from app.state import FIGURES, SPEEDS, ReaderState
from model import Switches, run, trace_dict
from tests.conftest import ROOT


def _trace(**switches):
    result = run(Switches(**switches))
    return trace_dict(result), result.outcome().to_dict()


def test_the_scrubber_reaches_the_last_tick():
    trace, _ = _trace()
    end = trace["end_tick"]
    html = player_html(3, end, False, "1×", list(SPEEDS))
    scrub = re.search(r'<input type="range" min="0" max="(\d+)"', html)
    assert scrub and int(scrub.group(1)) == end


@pytest.mark.parametrize("switches", [{"fencing": "off"}, {"pins": "off"}, {"post_key": "none"}])
def test_badges_say_broken_where_the_model_broke_and_held_elsewhere(switches):
    trace, outcome = _trace(**switches)
    end = trace["end_tick"]
    items = {i["id"]: i for i in badge_items(trace, end, outcome)}
    for inv in trace["invariants"]:
        item = items[inv["id"]]
        if inv["breach"]:
            assert item["state"] == "broken" and item["mark"] == "✖"
            assert item["words"] == f"broken at t{inv['breach']['tick']}"
        else:
            assert (item["state"], item["mark"], item["words"]) == ("held", "✔", "held")
    broken = {i for i, item in items.items() if item["state"] == "broken" and i != "finished"}
    assert set(outcome["invariants_broken"]) == broken
    assert items["finished"]["state"] == ("held" if outcome["finished"] else "broken")
    html = badges_html(trace, end, outcome)
    assert html.count("broken at t") == len(outcome["invariants_broken"])


def test_the_handout_names_every_broken_invariant_and_where():
    trace, outcome = _trace(fencing="off", pins="off", post_key="none")
    html = handout_html(trace, outcome, Switches(fencing="off").to_dict(), None)
    broken = [i for i in trace["invariants"] if i["breach"]]
    assert len(broken) >= 2
    for inv in broken:
        assert f"broken at t{inv['breach']['tick']}" in html
    assert html.count("broken at t") == len(broken)


@pytest.mark.parametrize("figure", FIGURES)
def test_a_figure_link_opens_that_figure(figure):
    state = ReaderState()
    assert state.apply_query(f"?embed=1&view={figure}&tick=5") == []
    assert (state.embed, state.view, state.tick) == (True, figure, 5)
    assert f"view={figure}" in state.to_query()


def test_the_selfcheck_page_shows_each_digest_in_its_own_row():
    from sitebuild.pages import selfcheck_body

    expected = {"runs": 864, "sweep_digest": "a" * 64, "main_trace_digest": "b" * 64, "python": "3.12"}
    html = selfcheck_body(expected)
    sweep_row = html.split('<th scope="row">outcomes of all 864</th>')[1].split("</tr>")[0]
    trace_row = html.split('<th scope="row">full main trace</th>')[1].split("</tr>")[0]
    assert "a" * 16 in sweep_row and "b" * 16 not in sweep_row
    assert "b" * 16 in trace_row and "a" * 16 not in trace_row


def test_no_function_of_the_app_runs_over_fifty_lines():
    """Small enough to read at once: a longer function is split by what it draws (class mode's too)."""
    import ast

    long = []
    for path in sorted([*(ROOT / "app").rglob("*.py"), *(ROOT / "classroom").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                if node.end_lineno - node.lineno + 1 > 50:
                    long.append(f"{path.relative_to(ROOT)}:{node.name}")
    assert long == []


#: Methods that take a string apart: in a renderer they would read a model fact out of words.
PARSING = {"split", "rsplit", "partition", "rpartition", "removeprefix", "removesuffix", "startswith",
           "endswith", "splitlines", "strip", "lstrip", "rstrip"}  # fmt: skip
#: Where a renderer takes apart text that is no model's: Graphviz's own SVG, and a state's name made an id.
NOT_THE_MODEL_S = {"app/render/lifecycle_layout.py:template", "app/render/lifecycle_layout.py:slug"}


def test_no_renderer_reads_a_model_fact_out_of_words():
    """The renderers draw what the trace's fields say (an event's attempt, step, parts, what a plan redoes,
    whether the newsletter's digest is current): none splits, strips or matches a label, a lane's name, an
    instance's name or a paragraph. Allowed: collapsing whitespace (" ".join(words.split())), and an
    event's ``label`` or ``text`` read only to be written out as a template's {label} or {text}."""
    import ast

    found = []
    for path in sorted((ROOT / "app" / "render").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        parent = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        where = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                where.update(dict.fromkeys(ast.walk(node), node.name))
        for node in ast.walk(tree):
            name = f"{path.relative_to(ROOT)}:{where.get(node, '')}"
            called = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            method = node.func.attr if called else ""
            if method in PARSING:
                above = parent.get(node)
                joined = isinstance(above, ast.Call) and getattr(above.func, "attr", "") == "join"
                collapsing = not node.args and (method == "strip" or method == "split" and joined)
                if not collapsing and name not in NOT_THE_MODEL_S:
                    found.append(f"{name}: {ast.unparse(node)}")
            words = isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
            if words and node.slice.value in ("label", "text"):
                above = parent.get(node)
                written_out = isinstance(above, ast.Dict) and any(
                    isinstance(k, ast.Constant) and k.value == node.slice.value and v is node
                    for k, v in zip(above.keys, above.values, strict=True)
                )
                if not written_out:
                    found.append(f"{name}: {ast.unparse(above)}")
    assert found == []


HASH = re.compile(r"\b[0-9a-f]{8}\b")


@pytest.mark.parametrize("preset", ["main", "pins-off", "no-key", "all-off"])
def test_the_readers_records_lifecycles_and_text_name_no_hash(preset):
    """Digests, keys and what a journal entry read are named ("digest 1", "key A", "s2 of v1"); the hash
    is a tooltip only (a title attribute), never text on the page."""
    from app.render.lifecycles import lifecycles_html
    from app.render.records import records_html
    from app.render.text import events_table_html
    from app.state import PRESETS

    trace = trace_dict(run(Switches(**PRESETS[preset])))
    end = trace["end_tick"]
    shown = records_html(trace, end) + lifecycles_html(trace, end) + events_table_html(trace, end)
    assert "digest 1" in shown
    assert ("key A" in shown) == (PRESETS[preset].get("post_key", "per-operation") != "none")
    assert not HASH.search(shown)  # nor in a hover text


def test_the_outcome_names_broken_invariants_as_the_badges_do():
    """A reader meets the badges' names, never the invariants' ids (stale-write, double-acceptance)."""
    from app.content import titles
    from app.render.outcome import outcome_html
    from model import Switches, run, trace_dict

    result = run(Switches(fencing="off", change="never"))
    outcome, trace = result.outcome().to_dict(), trace_dict(result)
    html = outcome_html(outcome, trace, trace["end_tick"])
    broken = outcome["invariants_broken"]
    assert len(broken) == 2
    for invariant in broken:
        assert titles("invariants")[invariant] in html and invariant not in html


def test_the_wider_lifecycle_drawing_is_shown_only_for_a_run_that_takes_a_transition_beyond_the_article():
    """Every run outside the 864 lists the transitions beyond the article, but the drawing that shows
    them is twice as wide, so its type shrinks to fit a column: it is worth that only where the run
    takes one of them (the feed rejecting a per-work key's post), not in the chapters that never do."""
    from app.render.lifecycles import lifecycles_html
    from app.url import OUTSIDE_ARTICLE, PRESETS

    def drawn(switches: Switches) -> set[str]:
        trace = trace_dict(run(switches))
        html = lifecycles_html(trace, trace["end_tick"])
        return set(re.findall(r'<g id="move-([^"]+)"', html))

    beyond_edges = {"unknown--found-confirmed", "running--receiver-rejects", "unconfirmed--receiver-rejects"}
    for name in OUTSIDE_ARTICLE:
        assert not drawn(Switches(**PRESETS[name])) & beyond_edges, name
    rejected = Switches(change="after-acceptance", post_key="per-work")
    assert beyond_edges <= drawn(rejected)


def test_no_cell_of_the_records_carries_a_hash_as_its_hover_text():
    """The records name a hash by its letters; a reader hovering a cell is not shown the hash (issue 45)."""
    import re

    from app.render.records import records_html
    from model import Switches, run, trace_dict

    trace = trace_dict(run(Switches()))
    for tick in range(trace["end_tick"] + 1):
        html = records_html(trace, tick)
        assert not re.search(r'title="[^"]*\b[0-9a-f]{8}\b', html), tick


def test_each_artifact_is_named_by_its_digest_and_the_attempt_that_built_it():
    """The artifact lifecycle's instances are the model's (a digest by an attempt); the chips and the
    text alternative name both, from the trace's candidates: with fencing and pins off two candidates are
    built, #2's first, then #1's stale one."""
    from app.render.lifecycles import lifecycles_html

    trace = trace_dict(run(Switches(fencing="off", pins="off")))
    shown = lifecycles_html(trace, trace["end_tick"])
    assert set(re.findall(r"digest \d+ \(#\d\)", shown)) == {"digest 1 (#2)", "digest 2 (#1)"}
    assert " by #" not in shown  # the model's instance name is never shown as it is


def test_sessions_showing_one_run_at_one_tick_draw_its_diagram_once(monkeypatch):
    """A class's phones show the teacher's run at the teacher's tick: the diagram and the key moments are
    drawn once for all of them; another tick, or another run before a switch, is drawn anew."""
    import app.page as page_module
    from app.page import PageModel

    drawn = {"diagram": 0, "moments": 0}

    def counted(name, real):
        def call(*args, **kwargs):
            drawn[name] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(page_module, "_DRAWN", page_module.OrderedDict())
    monkeypatch.setattr(page_module, "diagram_html", counted("diagram", page_module.diagram_html))
    monkeypatch.setattr(page_module, "key_moments", counted("moments", page_module.key_moments))
    phones = [PageModel() for _ in range(5)]
    for phone in phones:
        phone.state.go(6)
    shown = [phone.diagram_html() for phone in phones]
    marks = [phone.moments() for phone in phones]
    assert drawn == {"diagram": 1, "moments": 1} and len(set(shown)) == 1 and marks[0] == marks[4]
    phones[0].state.go(7)
    assert phones[0].diagram_html() != shown[0] and drawn["diagram"] == 2
    phones[1].act("set", "fencing=off")  # another run, with the one before it drawn faintly in it
    phones[1].diagram_html(), phones[2].diagram_html()  # the second is the t6 already drawn
    assert drawn["diagram"] == 3
    assert phones[1].moments() != marks[0] and drawn["moments"] == 2
    marks[0].clear()  # a page's own copy: the kept moments are untouched
    assert phones[3].moments() == marks[4] != []


def test_the_counts_so_far_say_one_in_the_singular_and_none_or_many_in_the_plural():
    """ "0 model calls", "1 model call", "6 model calls": at every tick of a run, each count the line
    names reads with its noun in the number it takes in English (the run has all three)."""
    trace, _ = _trace()
    seen = set()
    for tick in range(trace["end_tick"] + 1):
        counts = trace["ticks"][tick]["counts"]
        line = so_far_html(trace, tick)
        for key, one, many in (
            ("model_calls", "model call", "model calls"),
            ("posts_applied", "post", "posts"),
        ):
            n = counts[key]
            seen.add(min(n, 2))
            assert re.search(rf"\b{n} {one if n == 1 else many}[,.]", line), (tick, line)
    assert seen == {0, 1, 2}


def test_a_badge_names_no_tick_of_a_breach_still_to_come():
    """Before an invariant breaks, its badge says it held so far and gives no tick away; from the breach's
    tick on, it says where it broke."""
    trace, outcome = _trace(fencing="off")
    breaches = {inv["id"]: inv["breach"]["tick"] for inv in trace["invariants"] if inv["breach"]}
    assert breaches
    for tick in range(trace["end_tick"] + 1):
        for item in badge_items(trace, tick, outcome):
            if item["id"] in breaches and tick < breaches[item["id"]]:
                assert item["state"] != "broken" and " at t" not in item["words"], (tick, item)
            elif item["id"] in breaches:
                assert item["words"] == f"broken at t{breaches[item['id']]}", (tick, item)
