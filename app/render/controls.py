"""The reader's controls as HTML: the switch groups, the presets and the player. Every button carries
``data-action`` and ``data-value`` (what it asks for) and ``data-key`` (so focus survives a redraw);
the selected value is shown by ``aria-pressed``, a mark and the word, never by colour alone."""

from __future__ import annotations

from html import escape

from app.content import heading, markdown_html, pairs, text, title_and_body, titles
from model.switches import SETTINGS, Role, allowed_values


def card_button(card: str, action: str, label: str, value: str | None = None, *, primary: bool = False,
                disabled: bool = False) -> str:  # fmt: skip
    """A button of a card beside the diagram (the tour's, a class's): its class and key name the card
    and the action ("tour-check"), its value what the action takes, if anything."""
    taken = "" if value is None else f' data-value="{escape(value)}"'
    return (
        f'<button type="button" class="{card}-{action}{" chosen" if primary else ""}" data-action="{action}"'
        f'{taken} data-key="{card}-{action}"{" disabled" if disabled else ""}>{escape(label)}</button>'
    )


def value_words(setting: str, value: str) -> str:
    """A switch's value as the reader reads it (content/values.md); its name stays in links. A value the
    file does not know (from a trace made elsewhere) is shown as it is."""
    return pairs("values", setting).get(value, value)


def named_value(setting: str, value: str) -> str:
    """A switch and its value as the switch panel says them: "Checkpoints: only at the end"."""
    return f"{titles('switches').get(setting, setting)}: {value_words(setting, value)}"


def _option(setting: str, value: str, chosen: bool) -> str:
    mark = '<span class="mark" aria-hidden="true">●</span> ' if chosen else ""
    return (
        f'<button type="button" class="option{" chosen" if chosen else ""}" '
        f'aria-pressed="{str(chosen).lower()}" title="{setting}={value}" '
        f'data-action="set" data-value="{setting}={value}" '
        f'data-key="{setting}={value}">{mark}{escape(value_words(setting, value))}</button>'
    )


def switch_html(setting: str, current: str, replaced: bool = False) -> str:
    title, doc = title_and_body(text("switches", setting))
    options = "".join(_option(setting, v, v == current) for v in allowed_values(setting))
    # A schedule value that replaces this switch's timing says so: the switch alone no longer tells.
    note = (
        '<div class="switch-replaced">Its timing is replaced by the schedule (see above).</div>'
        if replaced
        else ""
    )
    return (
        f'<div class="switch" role="group" aria-labelledby="label-{setting}">'
        f'<div class="switch-label" id="label-{setting}" title="{setting}"><strong>{escape(title)}</strong>'
        "</div>"
        f'<div class="switch-doc">{markdown_html(doc)}</div>{note}'
        f'<div class="options switch-{setting}">{options}</div></div>'
    )


def switches_html(values: dict[str, str], advanced_open: bool, replaced: frozenset[str] = frozenset()) -> str:
    """Every setting, grouped by its role as the model declares it; ``replaced``: event switches whose
    timing a schedule value replaces."""

    def group(role: Role) -> str:
        return "".join(switch_html(s.id, values[s.id], s.id in replaced) for s in SETTINGS if s.role is role)

    expanded = str(advanced_open).lower()
    return (
        f"<h2>{escape(heading('events'))}</h2>{group(Role.EVENT)}"
        f"<h2>{escape(heading('protections'))}</h2>{group(Role.PROTECTION)}"
        f'<button type="button" class="disclosure" aria-expanded="{expanded}" '
        'aria-controls="advanced-settings" '
        f'data-action="advanced" data-value="{"close" if advanced_open else "open"}" data-key="advanced">'
        f'<span aria-hidden="true">{"▾" if advanced_open else "▸"}</span> '
        f"{escape(heading('advanced'))}</button>"
        f'<div id="advanced-settings" class="advanced"{"" if advanced_open else " hidden"}>'
        f"{group(Role.ADVANCED)}</div>"
    )


def chapters_html(names: list[str], active: str | None, beyond: tuple[str, ...] = ()) -> str:
    """The chapters as one menu: the article's, then those of ``beyond`` (outside the article) in a group
    of their own. One control on the first screen where a row of buttons took seven; a run that matches
    no chapter shows "Your own run", which cannot be chosen."""

    def option(name: str) -> str:
        chosen = " selected" if name == active else ""
        return f'<option value="{name}"{chosen}>{escape(title_and_body(text("presets", name))[0])}</option>'

    own = "" if active in names else '<option value="" selected disabled>Your own run</option>'
    inside = "".join(option(n) for n in names if n not in beyond)
    outside = [n for n in names if n in beyond]
    group = (
        f'<optgroup label="{escape(heading("outside"))}">{"".join(option(n) for n in outside)}</optgroup>'
        if outside
        else ""
    )
    return (
        '<label class="chapters"><span class="chapters-label">Chapter</span> '
        f'<select class="chapter-menu" data-action="preset" data-key="chapters">{own}{inside}{group}'
        "</select></label>"
    )


#: Back, play and forward: Home and End (and the scrubber's ends) go to the first and last tick.
PLAYER_BUTTONS = (
    ("back", "◀", "Back"),
    ("toggle", "", ""),
    ("forward", "▶", "Forward"),
)


def player_html(
    tick: int,
    end: int,
    playing: bool,
    speed: str,
    speeds: list[str],
    keys: bool = True,
    moments: list[tuple[int, str, str]] = (),
) -> str:
    """The player; ``keys`` adds the line that names the keyboard shortcuts; no ``speeds``, no speed group
    (a figure's compact player). The run's key ``moments`` (tick, mark, words) are marks on the scrubber
    that jump there."""
    buttons = []
    for action, icon, word in PLAYER_BUTTONS:
        if action == "toggle":
            icon, word = ("⏸", "Pause") if playing else ("▶", "Play")
        css = "play" if action == "toggle" else action
        buttons.append(
            f'<button type="button" class="{css}" data-action="{action}" data-key="{action}">'
            f'<span aria-hidden="true">{icon}</span> <span class="word">{word}</span></button>'
        )
    # The buttons and the scrubber on one line where it fits: the diagram needs the height.
    return (
        f'<div class="player-row"><div class="player">{"".join(buttons)}</div>'
        + playbar_html(tick, end, speed, speeds, moments)
        + "</div>"
        + (KEYS_LINE if keys else "")
    )


def playbar_html(
    tick: int,
    end: int,
    speed: str,
    speeds: list[str],
    moments: list[tuple[int, str, str]],
) -> str:
    """The tick on show, the scrubber with its key moments, and the speeds (none: no speed group)."""
    speed_options = "".join(
        f'<option value="{escape(s)}"{" selected" if s == speed else ""}>{escape(s)}</option>' for s in speeds
    )
    marks = "".join(f'<option value="{t}" label="t{t}: {escape(words)}"></option>' for t, _, words in moments)
    listed = ' list="key-moments"' if moments else ""
    speeds_html = (
        '<label class="speed"><span class="speed-label">Speed</span> '
        f'<select data-action="speed" data-key="speed">{speed_options}</select></label>'
        if speeds
        else ""
    )
    return (
        '<div class="playbar">'
        f'<span class="tick-text"><span class="tick-now">t{tick}</span> <span class="tick-end">/ '
        f"t{end}</span></span>"
        '<div class="scrubber">'
        f'<label class="scrub"><span class="sr-only">Tick</span><input type="range" min="0" max="{end}" '
        f'step="1"{listed} '
        f'value="{tick}" data-action="go" data-key="scrub" aria-valuetext="Tick t{tick} of t{end}"></label>'
        + (f'<datalist id="key-moments">{marks}</datalist>' if moments else "")
        + moment_marks_html(tick, end, moments)
        + f"</div>{speeds_html}</div>"
    )


def _pause_button(pause: bool | None) -> str:
    if pause is None:
        return ""
    return (
        f'<button type="button" class="option wait{" chosen" if pause else ""}" '
        f'aria-pressed="{str(pause).lower()}" '
        f'data-action="pause" data-value="{"off" if pause else "on"}" data-key="pause" '
        'title="Play waits a few seconds at each key moment, so its caption can be read">'
        "Play waits at each</button>"
    )


def moment_marks_html(tick: int, end: int, moments: list[tuple[int, str, str]]) -> str:
    """The key moments as marks under the scrubber's track, each at its tick and a button that jumps
    there, named in words ("t8: #1 fenced"), which show beside it on hover and on focus; a list, for a
    screen reader to count. The strip is one line tall whatever the run (two on a phone), so nothing under
    it moves when a switch changes the moments."""
    from app.render.diagram import SYMBOL  # the diagram's marks; it imports this module's words

    marks, last = [], [-9, -9]  # the tick of the last mark on each of a phone's two lines
    for t, mark, words in moments:
        symbol, css = SYMBOL[mark]
        # On a phone a mark is a 24 px target and ticks may be 18 px apart: a mark within two ticks of the
        # last on its line takes the other line, so marks on one line stay 8 px apart and more.
        line = 0 if t - last[0] >= 2 else 1 if t - last[1] >= 2 else 0
        last[line] = t
        # The range's thumb is about 16 px wide, so its centre runs from 8 px to the width less 8 px; a mark
        # (18 px wide) is kept 9 px from either end, so the last one ends inside the page.
        where = f"calc({t / max(end, 1):.4f} * (100% - 18px) + 9px)"
        # A long run's ticks are closer than a mark is wide: each mark is then as wide as a tick's step,
        # so two moments a tick apart touch rather than overlap.
        size = f"min(18px, calc((100% - 18px) / {max(end, 1)}))"
        said = escape(f"t{t}: {words}")
        marks.append(
            f'<li class="line-{line}" style="left: {where}">'
            f'<button type="button" class="moment-mark {css}{" current" if t == tick else ""}" '
            f'style="min-width: {size}" data-action="go" data-value="{t}" data-key="moment-mark-{t}" '
            f'aria-label="Key moment {said}"><span aria-hidden="true">{symbol}</span></button>'
            f'<span class="moment-words" aria-hidden="true">{said}</span></li>'
        )
    return f'<ul class="moment-marks" aria-label="Key moments">{"".join(marks)}</ul>'


def moments_html(tick: int, moments: list[tuple[int, str, str]], pause: bool | None = None) -> str:
    """The key moments in words, as buttons that jump to their tick, each with its mark (the one on show
    is marked as the current step): the diagram's history, under it; ``pause`` (unless None) adds the
    toggle for whether Play waits at each."""
    from app.render.diagram import SYMBOL  # the diagram's marks; it imports this module's words

    items = []
    for t, mark, words in moments:
        symbol, css = SYMBOL[mark]
        current = ' aria-current="step"' if t == tick else ""
        items.append(
            f'<li><button type="button" class="moment{" current" if t == tick else ""}" data-action="go" '
            f'data-value="{t}" data-key="moment-{t}"{current}><span class="mark {css}" aria-hidden="true">'
            f"{symbol}</span> t{t} {escape(words)}</button></li>"
        )
    return (
        '<div class="moments-list"><strong id="moments-head">Key moments:</strong> '
        f'<ol class="moments" aria-labelledby="moments-head">{"".join(items)}</ol>'
        f"{_pause_button(pause)}</div>"
    )


KEYS_LINE = (
    '<p class="keys">Keys: Space plays or pauses, ← and → step, '
    "Home and End jump to the first and last tick.</p>"
)


def tabs_html(tabs: list[tuple[str, str]], active: str) -> str:
    """A tablist of ``(id, title)``: the chosen tab is ``aria-selected`` and the only one in the Tab order
    (arrow keys move between tabs, as the WAI-ARIA tabs pattern has it)."""
    items = "".join(
        f'<button type="button" role="tab" id="tab-{tab}" class="tab tab-{tab}" '
        f'aria-selected="{str(tab == active).lower()}" '
        f'tabindex="{0 if tab == active else -1}" data-action="tab" '
        f'data-value="{tab}" '
        f'data-key="tab-{tab}">{escape(title)}</button>'
        for tab, title in tabs
    )
    return f'<div class="tabs" role="tablist" aria-label="Views">{items}</div>'


def header_html(
    title: str,
    notices: list[str],
    chapters: list[str],
    preset: str | None,
    schedule_words: str | None,
    editable: bool = True,
    beyond: tuple[str, ...] = (),
    tour_href: str = "",
) -> str:
    """The top of the page after its ``title`` (HTML): what was wrong with the link, the chapters as one
    menu (none: no menu; those in ``beyond`` in a group of their own), the link into the tour (to
    ``tour_href``, if any), and a note when the run is not on the article's schedule (``schedule_words``;
    ``editable`` offers the Explore view). The chapter's words are the lead's (``lead_html``): they share
    its place of fixed height, so nothing under them moves."""
    menu = chapters_html(chapters, preset, beyond) if chapters else ""
    tour = f'<a class="tour-link" href="{escape(tour_href)}">Take the guided tour</a>' if tour_href else ""
    line = f'<div class="chapter-line">{menu}{tour}</div>' if menu or tour else ""
    note = schedule_note_html(schedule_words, editable) if schedule_words else ""
    return title + notice_html(notices) + line + note


def lead_html(words: str, buttons: str = "") -> str:
    """The sentence between the player and the diagram, in a place of fixed height (the stylesheet's):
    the chapter's words, or what the reader's last switch changed with its ``buttons``."""
    return f'<div class="lead" role="status">{markdown_html(words)}{buttons}</div>'


def notice_html(notices: list[str]) -> str:
    """What was wrong with the link, as escaped text: a reader's value is never markup."""
    if not notices:
        return ""
    items = "".join(f"<li>{escape(n)}</li>" for n in notices)
    return f'<div class="notice" role="status"><strong>About this link:</strong><ul>{items}</ul></div>'


def schedule_note_html(words: str, editable: bool) -> str:
    """That the run is not on the article's schedule, in words, with the way back (and, where the Explore
    view is at hand, the way to edit it)."""
    back = '<button type="button" data-action="article-schedule" data-key="article-schedule">'
    edit = '<button type="button" data-action="edit-schedule" data-key="edit-schedule">'
    return (
        f'<div class="schedule-note"><strong>Not the article\'s schedule:</strong> {escape(words)}. '
        f"{back}Back to the article's schedule</button>"
        + (f" {edit}Edit it (Explore)</button>" if editable else "")
        + "</div>"
    )
