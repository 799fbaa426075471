"""Named mutants: small deliberate bugs, each applied alone to a copy of the tree, and the fast lane run
against it. A mutant the suite does not catch is a hole in the tests.

    .venv/bin/python -m tests.mutants            # every mutant; prints caught/survived and the score
    .venv/bin/python -m tests.mutants --list     # their names
    .venv/bin/python -m tests.mutants NAME ...   # only these
    .venv/bin/python -m tests.mutants --set r5   # only a set (its names' prefix): round five's

The first eleven are the mutation pass's table (issue: a suite that catches real bugs); the rest guard
the model's rules one by one, but the last set ("r5-"), written from the code alone, without reading
tests/ first (issue 65). Nothing here is collected by pytest (the file's name has no test_ prefix).

Each mutated tree's committed explorer results are stamped with the mutated code's digest (``restamp``),
as ``python -m app.shared --refresh`` would stamp them, so only a change in behaviour catches a mutant.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAST_LANE = [
    "-m",
    "not browser and not engines and not pyodide and not server and not slow",
    "-x",
    "-q",
    "-p",
    "no:cacheprovider",
    "-n",  # both cores, as the README's fast lane
    "2",
]


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    place: str = ""  # the area, where the file's own is not it (the worker's rules live in moves.js)

    @property
    def area(self) -> str:
        """Where the bug is: the score is given by area, so a hole shows where it is."""
        if self.place:
            return self.place
        for start, area in AREAS:
            if self.path.startswith(start):
                return area
        raise ValueError(f"mutant {self.name}: no area for {self.path}")


#: The areas, by where a file is (first match): the renderers and the page model are Python both pages
#: run; the light page's rules and the shared worker's are the browser code in app/views/js/moves.js and
#: frame.js (the worker's ``stamp`` and ``joiningActions`` are moves.js's).
AREAS = (
    ("model/explore.py", "explorer"),
    ("model/graph.py", "explorer"),
    ("model/state.py", "explorer"),
    ("model/", "model"),
    ("app/render/", "renderers"),
    ("app/page.py", "page model"),
    ("app/state.py", "page model"),
    ("app/url.py", "page model"),
    ("app/light.py", "light page"),
    ("app/views/js/", "light page"),
    ("sitebuild/", "build"),
    ("classroom/", "class mode"),
    ("static/", "light page"),
)


MUTANTS = (
    Mutant(
        "acceptance-fences-one-epoch-late",
        "model/controller.py",
        "if fencing_on and attempt.token < records.epoch.value:",
        "if fencing_on and attempt.token < records.epoch.value - 1:",
    ),
    Mutant(
        "misled-ignores-never-accepted",
        "model/invariants.py",
        "if never_accepted or stale:",
        "if stale:",
    ),
    Mutant("scrubber-stops-short", "app/render/controls.py", 'max="{end}" ', 'max="{end - 1}" '),
    Mutant(
        "selfcheck-shows-the-trace-digest-for-the-864",
        "sitebuild/pages.py",
        '<td><code>{expected["sweep_digest"][:16]}</code></td>',
        '<td><code>{expected["main_trace_digest"][:16]}</code></td>',
    ),
    Mutant(
        "overall-smallest-orders-faults-first",
        "model/explore.py",
        'key = (case["ticks"], case["faults"], case["breach_tick"])',
        'key = (case["faults"], case["ticks"], case["breach_tick"])',
    ),
    Mutant(
        "ties-prefer-the-case-farthest-from-the-story",
        "model/explore.py",
        "measure = (schedule.faults(), _changes(schedule))",
        "measure = (schedule.faults(), -_changes(schedule))",
    ),
    Mutant(
        "space-drops-crashes",
        "model/explore.py",
        'if fields["silent_at"] == "none" and fields["silent_for"]',
        'if fields["silent_for"] is None or fields["silent_at"] == "none" and fields["silent_for"]',
    ),
    Mutant(
        "badge-held-when-broken",
        "app/render/outcome.py",
        'state = frame["invariants"][inv["id"]]',
        'state = "held"',
    ),
    Mutant(
        "handout-omits-broken-badges",
        "app/render/handout.py",
        "{badges_html(trace, end, outcome)}",
        "{badges_html(trace, 0, outcome)}",
    ),
    Mutant("view-ignored", "app/url.py", 'UrlFlag("view", "view",', 'UrlFlag("figure", "view",'),
    Mutant(
        "pre-render-wrong-chapter",
        "sitebuild/light.py",
        '**_frames(f"?preset={preset}{flags}")',
        '**_frames("?preset=main")',
    ),
    Mutant(
        "no-reconcile-against-the-announced-digest",
        "model/controller.py",
        "and world.switches.controller is ControllerRules.COMPLETED\n        ):\n            # None",
        "and False\n        ):\n            # None",
    ),
    Mutant(
        "no-rebuild-after-a-stale-pin",
        "model/controller.py",
        "self.rebuild_due = True  # admitted below",
        "pass  # admitted below",
    ),
    Mutant(
        "suspicion-one-beat-late",
        "model/controller.py",
        "if attempt.missed < tolerated:",
        "if attempt.missed <= tolerated:",
    ),
    Mutant(
        "journal-skips-the-input-hash",
        "model/attempt.py",
        "input_hash=self._key_of(world, part) if world.switches.pins is Pins.ON else None,",
        "input_hash=None,",
    ),
    Mutant("bound-ignored", "model/simulation.py", "\n    world.stopped_at_limit = True\n", "\n"),
    # The page model (app/page.py), which both pages wrap: a rule broken here is broken on both.
    Mutant(
        "ending-shown-one-tick-late",
        "app/page.py",
        "return self.revealed or self.state.tick >= self.state.end_tick",
        "return self.revealed or self.state.tick > self.state.end_tick",
    ),
    Mutant(
        "reveal-outlives-its-run",
        "app/page.py",
        'self.param.update(revealed=False, explanation="")',
        'self.param.update(explanation="")',
    ),
    Mutant(
        "the-tours-back-moves-the-player",
        "app/page.py",
        'if part == "tour":',
        'if part == "tour" and action != "back":',
    ),
    Mutant(
        "light-player-without-its-badges",
        "app/light.py",
        '"player": page.player_html(badges_always=True),',
        '"player": page.player_html(),',
    ),
    Mutant(
        "pre-render-one-tick-short",
        "sitebuild/light.py",
        "for tick in range(page.state.end_tick + 1):",
        "for tick in range(page.state.end_tick):",
    ),
    Mutant(
        "diagram-rows-overlap-by-their-pad",
        "app/render/diagram.py",
        "        y += height[lane]",
        "        y += height[lane] - pad",
    ),
    # The graph explorer: a clone that forgets, a merge that loses schedules, a fork never taken.
    Mutant(
        "resume-forgets-missed-heartbeats",
        "model/state.py",
        "attributes = a._asdict()",
        'attributes = a._asdict() | {"missed": 0}',
    ),
    Mutant("merge-keeps-one-set", "model/graph.py", "node[0] |= group", "node[0] = group"),
    Mutant(
        "disagreement-never-forks",
        "model/graph.py",
        "self.forks.extend(mask for _, mask in others)",
        "self.forks.clear()",
    ),
    # The renderers: what the picture says, read from the trace's fields.
    Mutant(
        "journal-row-misreads-the-plan",
        "app/render/diagram.py",
        'said["journal changed" if redone_why == "other-version" else "journal redone"]',
        'said["journal changed" if redone_why != "other-version" else "journal redone"]',
    ),
    Mutant(
        "breach-sentence-about-the-wrong-event",
        "app/render/diagram.py",
        "    if broken:  # the sentence is about the event that broke it",
        "    if False:  # the sentence is about the event that broke it",
    ),
    Mutant(
        "feed-row-never-says-it-forgot",
        "app/render/diagram.py",
        'return "feed", said if gone else ""',
        'return "feed", ""',
    ),
    Mutant(
        "key-moments-said-again",
        "app/render/diagram.py",
        "named = {name: mark for name, mark in named.items() if name not in seen}",
        "named = dict(named)",
    ),
    Mutant(
        "artifact-chip-without-its-attempt",
        "app/render/names.py",
        'f"{names.get(d, d)} (#{n})"',
        'f"{names.get(d, d)}"',
    ),
    # The light page's rules (app/views/js/moves.js, frame.js), under node --test in the fast lane.
    Mutant(
        "a-move-at-the-same-time-is-news",
        "app/views/js/frame.js",
        "return at > shownAt;",
        "return at >= shownAt;",
    ),
    Mutant(
        "group-follows-older-ticks",
        "app/views/js/frame.js",
        "if (at && !isNews(at, shown())) return;",
        "if (at && !isNews(at, 0)) return;",
    ),
    Mutant(
        "pre-render-back-steps-two",
        "app/views/js/moves.js",
        'if (action === "back") return clamp(tick - 1);',
        'if (action === "back") return clamp(tick - 2);',
    ),
    Mutant(
        "every-tick-waits-for-python",
        "app/views/js/moves.js",
        'const kept = entry[0] === "go" ? done.filter(([action]) => action !== "go") : [...done];',
        "const kept = [...done];",
    ),
    Mutant(
        "tour-next-past-the-last-step",
        "app/views/js/moves.js",
        "next >= 1 && next <= steps",
        "next >= 1 && next <= steps + 1",
    ),
    # The shared worker's rules (its stamp of a page's last move, a joining frame's moves): moves.js.
    Mutant(
        "worker-restamps-a-tick-that-stayed",
        "app/views/js/moves.js",
        "return [tick, tick === before ? when : at];",
        "return [tick, at];",
        place="shared worker",
    ),
    Mutant(
        "late-frame-pulls-the-group-back",
        "app/views/js/moves.js",
        "if (pageMovedAt === null || isNews(at, pageMovedAt)) return actions;",
        "return actions;",
        place="shared worker",
    ),
    Mutant(
        "a-switch-pushed-is-late-news",
        "app/views/js/moves.js",
        "return !push.moved || !isNews(shownAt, push.at);",
        "return !isNews(shownAt, push.at);",
    ),
    Mutant(
        "a-time-no-clock-gives-is-taken",
        "app/views/js/frame.js",
        "return Number.isFinite(at) && at > 0 && at <= clock + 60000 ? at : 0;",
        "return at > 0 ? at : 0;",
    ),
    Mutant(
        "any-call-reaches-python",
        "app/views/js/moves.js",
        "if (!CALLS.includes(call)) return",
        "if (false) return",
        place="shared worker",
    ),
    Mutant(
        "a-page-calls-without-limit",
        "app/views/js/moves.js",
        "return [[second, count], count <= MOST_CALLS_A_SECOND];",
        "return [[second, count], true];",
        place="shared worker",
    ),
    # What a redraw keeps of a run (app/state.py's made_run) and what a step draws (app/light.py).
    Mutant(
        "a-run-made-for-its-switches-alone",
        "app/state.py",
        "made = _MADE.pop((switches, schedule), None)",
        "made = next((v for (k, _), v in list(_MADE.items()) if k == switches), None)",
    ),
    Mutant(
        "a-step-draws-the-fixed-parts-again",
        "app/light.py",
        'moved = action in MOVES and part != "tour" and before == page.story()',
        "moved = False",
    ),
    # Round five (issue 65): written from the code alone, without reading tests/ first, as a new
    # maintainer would plant bugs a user would notice; each name starts with "r5-" (``--set r5``).
    Mutant(
        "r5-a-changed-answer-is-refused-as-too-fast",
        "classroom/store.py",
        "if before and now - before[0][1] < MIN_SECONDS_BETWEEN_CHANGES:",
        "if before and now - before[0][1] > MIN_SECONDS_BETWEEN_CHANGES:",
    ),
    Mutant(
        "r5-the-shift-counts-those-who-stayed-right",
        "classroom/render.py",
        "came = {was: n for (was, now), n in moves.items() if now in good and was not in good}",
        "came = {was: n for (was, now), n in moves.items() if now in good}",
    ),
    Mutant(
        "r5-other-students-are-told-an-answer-is-in",
        "classroom/hub.py",
        "if phone.student == student:",
        "if phone.student != student:",
    ),
    Mutant(
        "r5-a-tap-made-offline-is-not-sent-again",
        "classroom/channel.py",
        "if choice != mine:",
        "if choice == mine:",
    ),
    Mutant(
        "r5-the-projector-goes-a-tick-past-the-question",
        "classroom/teacher.py",
        "if held is not None and s.tick > held:",
        "if held is not None and s.tick > held + 1:",
    ),
    Mutant(
        "r5-tour-next-stops-before-the-last-step",
        "app/views/js/moves.js",
        "return next !== step && next >= 1 && next <= steps ? next : null;",
        "return next !== step && next >= 1 && next < steps ? next : null;",
    ),
    Mutant(
        "r5-a-full-queue-keeps-the-oldest-moves",
        "app/views/js/moves.js",
        "return kept.length > limit ? kept.slice(kept.length - limit) : kept;",
        "return kept.length > limit ? kept.slice(0, limit) : kept;",
    ),
    Mutant(
        "r5-a-group-is-told-the-schedule-changed-when-it-did-not",
        "app/light.py",
        "before[1] != self.state.schedule_overrides())",
        "before[1] == self.state.schedule_overrides())",
    ),
    Mutant(
        "r5-play-at-the-end-does-not-start-again",
        "app/state.py",
        "if not self.playing and self.tick >= self.end_tick:",
        "if not self.playing and self.tick > self.end_tick:",
    ),
    Mutant(
        "r5-a-broken-badge-is-explained-as-held",
        "app/page.py",
        'said = "broken" if breach else "held"',
        'said = "held" if breach else "broken"',
    ),
    Mutant(
        "r5-a-badge-tells-a-breach-still-to-come",
        "app/render/outcome.py",
        'if state == "broken" else ""',
        'if inv["breach"] else ""',
    ),
    Mutant(
        "r5-none-is-said-in-the-singular",
        "app/render/outcome.py",
        'return f"{n} {one if n == 1 else many}"',
        'return f"{n} {one if n <= 1 else many}"',
    ),
    Mutant(
        "r5-the-first-acceptance-is-the-last",
        "model/outcome.py",
        "first_accepted_current_at=min(accepted_at) if accepted_at else None,",
        "first_accepted_current_at=max(accepted_at) if accepted_at else None,",
    ),
    Mutant(
        "r5-the-newsletter-takes-another-versions-acceptance",
        "model/newsletter.py",
        "acceptances = [a for a in acceptances if a.version == world.report.name]",
        "acceptances = [a for a in acceptances if a.version != world.report.name]",
    ),
    Mutant(
        "r5-the-last-answer-has-no-verdict-before-python",
        "sitebuild/light.py",
        'for chosen in ["", *map(str, range(len(step.answers)))]:',
        'for chosen in ["", *map(str, range(len(step.answers) - 1))]:',
    ),
)


def tree_copy(into: Path) -> Path:
    """The tracked files (and the untracked ones not ignored) of the working tree, copied."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return into


def restamp(tree: Path) -> str:
    """Stamp the committed explorer results with the mutated model's digest, as a refresh would: the
    stamp is the app's and the build's cache key, not a finding, so a mutant must be caught by what it
    changes, never by the digest of its code changing. Returns the digest."""
    digest = subprocess.run(
        [sys.executable, "-c", "from model.explore import source_digest; print(source_digest())"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    results = tree / "app" / "explore-results.json"
    text, stamped = re.subn(
        r'"model": "[0-9a-f]+"', f'"model": "{digest}"', results.read_text("ascii"), count=1
    )
    if stamped != 1:
        raise SystemExit(f"{results.name} names no model digest to stamp")
    results.write_text(text, encoding="ascii")
    return digest


def run_mutant(mutant: Mutant) -> tuple[bool, float]:
    """Whether the fast lane fails (the mutant is caught), and how long it took."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = tree_copy(Path(tmp))
        path = tree / mutant.path
        text = path.read_text(encoding="utf-8")
        if text.count(mutant.old) != 1:
            raise SystemExit(f"mutant {mutant.name}: its text is not found once in {mutant.path}; update it")
        path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
        restamp(tree)
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "pytest", *FAST_LANE],  # the whole fast lane, as the README runs it
            cwd=tree,
            capture_output=True,
            text=True,
        )
        return done.returncode != 0, time.monotonic() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutants", description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="mutants to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument("--set", metavar="PREFIX", help='only the mutants named PREFIX-… ("r5")')
    args = parser.parse_args(argv)
    known = {m.name: m for m in MUTANTS if not args.set or m.name.startswith(f"{args.set}-")}
    if args.list:
        print("\n".join(known))
        return 0
    unknown = [n for n in args.names if n not in known]
    if unknown:
        parser.error(f"unknown mutant {unknown[0]!r}; the mutants are: {', '.join(known)}")
    chosen = [known[n] for n in args.names] or list(known.values())
    score: dict[str, list[int]] = {}
    for mutant in chosen:
        killed, seconds = run_mutant(mutant)
        score.setdefault(mutant.area, [0, 0])[0] += killed
        score[mutant.area][1] += 1
        print(
            f"{'caught  ' if killed else 'SURVIVED'} {mutant.area:<14} {mutant.name:<44} {seconds:6.1f} s",
            flush=True,
        )
    for area, (caught, planted) in score.items():
        print(f"{area:<14} {caught} of {planted} caught{'' if caught == planted else '  <- a hole'}")
    caught, planted = (sum(counts) for counts in zip(*score.values(), strict=True))
    print(f"score: {caught} of {planted} caught")
    return 0 if caught == planted else 1


if __name__ == "__main__":
    sys.exit(main())
