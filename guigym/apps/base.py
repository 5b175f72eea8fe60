"""The app model: widgets, screens, a navigation stack, focus, several apps on one device.

Everything here is renderer-independent Python. A *scenario* (static, JSON; see
:mod:`guigym.apps.schema`) describes the device: its apps (each an ``AppSpec`` with screens
and rows), the home screen, the theme and the task. A *device state* (dynamic, JSON) holds
what changes: the foreground app, each app's navigation stack, field values, toggles, focus,
scroll rows and app data. ``view(scenario, state)`` says what is on screen;
``apply(scenario, state, event)`` is the apps' behaviour, written once.

Backends only draw views and turn low-level input into :class:`~guigym.events.Event` s.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from guigym.apps.schema import AppSpec, AppState, DeviceState, RowSpec, Scenario, icon_app, icon_id
from guigym.events import Event

HOME = "home"
#: Longest value a text field keeps, in code points (HTML's ``maxlength``): typed text beyond it is dropped.
MAX_FIELD_LEN = 256
#: Longest answer kept in the state: one more than ``answers.MAX_ANSWER_CHARS``, so an over-long one still never matches.
MAX_ANSWER_LEN = 1_001
#: Widget kinds a user can act on.
INTERACTIVE = frozenset({"button", "input", "checkbox", "toggle", "link", "radio", "icon", "select", "textarea"})
#: Kinds that take typed text (focus, then Type).
TEXT_KINDS = frozenset({"input", "textarea"})
#: The roles of widgets in observations, in a fixed order (the index is the ``role`` id of an
#: element; part of every id's observation space, so it never changes within a version).
KINDS = ("label", "button", "input", "checkbox", "toggle", "link", "radio", "icon")
#: Kinds added since, reported under the role they play: a multi-line text field is a text
#: field; a select, like a settings link that shows its choice, opens a list of options.
ROLE_OF = {"textarea": "input", "select": "link"}


def role_id(kind: str) -> int:
    """The observation ``role`` of a widget kind (an index into :data:`KINDS`).

    >>> role_id("button"), role_id("textarea") == role_id("input")
    (1, True)
    """
    return KINDS.index(ROLE_OF.get(kind, kind))
#: Screen id prefix of a select's dropdown menu (a modal screen made on the fly): ``menu:<select id>``.
MENU_PREFIX = "menu:"


@dataclass
class Widget:
    """One row of a screen (or one icon of the home screen).

    ``value``: the text of an input, the state of a checkbox/toggle, whether a radio option
    is selected. ``detail``: secondary text (the current choice of a setting, a subtitle).
    ``to``: for links, the screen they open. ``action``: for buttons, the app's handler name
    (or one of :data:`WIDGET_ACTIONS`, which the base :class:`App` handles itself).
    ``options``: a select's options. ``cells``: widgets side by side in this one row (kind
    ``cells``; ``weights`` their relative widths). ``span``: rows of height (a multi-line
    text field; 0 for a label: as many rows as its text needs at the drawn font scale and font,
    a line each, see :mod:`guigym.layout`). The composite widgets of :mod:`guigym.apps.widgets` are made of these.
    """

    id: str
    kind: str
    label: str
    value: Any = None
    placeholder: str = ""
    secret: bool = False
    style: str = ""
    detail: str = ""
    to: str | None = None
    action: str | None = None
    group: str | None = None
    option: Any = None
    options: list[Any] | None = None
    cells: list[Widget] | None = None
    weights: list[int] | None = None
    span: int = 1

    @property
    def interactive(self) -> bool:
        return self.kind in INTERACTIVE

    @classmethod
    def of(cls, spec: Any) -> Widget:
        """A widget from its JSON form (a row spec; ``cells`` given as row specs too)."""
        if isinstance(spec, Widget):
            return spec
        d = dict(spec)
        if d.get("cells") is not None:
            d["cells"] = [cls.of(c) for c in d["cells"]]
        return cls(**d)


@dataclass
class View:
    """What the screen shows: a title bar and a scrollable column of rows (or, on the home
    screen, a paged grid of app icons). A modal dialog is a view whose ``rows`` are the
    dialog's (a ``dialog`` panel, then its buttons) and whose ``backdrop`` is the view under
    it, drawn dimmed and inert."""

    app: str
    screen: str
    title: str
    rows: list[Widget]
    scroll: int = 0
    focus: str | None = None
    grid: bool = False
    page: int = 0
    pages: int = 1
    theme: dict[str, Any] = field(default_factory=dict)
    backdrop: View | None = None

    def find(self, wid: str) -> Widget | None:
        """The widget ``wid`` (a row, or a cell of a row)."""
        for w in self.rows:
            if w.id == wid:
                return w
            if w.cells:
                for c in w.cells:
                    if c.id == wid:
                        return c
        return None

    def index(self, wid: str) -> int:
        """The index of the row that holds widget ``wid`` (-1: none)."""
        for i, w in enumerate(self.rows):
            if w.id == wid or (w.cells and any(c.id == wid for c in w.cells)):
                return i
        return -1

    def widgets(self) -> list[Widget]:
        """Every widget of the view, cells in place of their rows."""
        out: list[Widget] = []
        for w in self.rows:
            out.extend(w.cells if w.cells else (w,))
        return out


def copy_state(state: Any) -> Any:
    """Fast deep copy of plain JSON data (dicts, lists, scalars): a dict or list (of a subclass
    too) comes back as a new plain ``dict`` or ``list``; anything else is shared."""
    t = type(state)
    if t is dict or t is list:  # the usual case: copied in C, then only the containers in it replaced
        out = state.copy()
        for k, v in (out.items() if t is dict else enumerate(out)):
            tv = type(v)
            if tv is dict or tv is list or (tv not in _SCALARS and isinstance(v, (dict, list))):
                out[k] = copy_state(v)
        return out
    if isinstance(state, dict):  # recurse only into containers: most values are scalars
        return {k: copy_state(v) if isinstance(v, (dict, list)) else v for k, v in state.items()}
    if isinstance(state, list):
        return [copy_state(v) if isinstance(v, (dict, list)) else v for v in state]
    return state


#: Types :func:`copy_state` shares without asking whether they are containers.
_SCALARS = frozenset({str, int, bool, float, type(None), tuple})


def printable(text: str) -> str:
    """``text`` without NUL characters, with surrogate pairs joined into their character and
    lone surrogates replaced by U+FFFD (as a browser stores them): a string every renderer
    draws and every encoder accepts. Valid text comes back unchanged.

    >>> printable("a\\x00b\\ud800c")
    'ab\\ufffdc'
    """
    text = text.replace("\x00", "")
    if not text.isascii():  # a no-op on valid Unicode
        text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def clean_text(text: str) -> str:
    """What a text field stores of typed ``text`` (the one rule, so every backend shows the
    same string): :func:`printable`, then cut to :data:`MAX_FIELD_LEN` code points.

    >>> clean_text("a\\x00b"), len(clean_text("x" * 1000))
    ('ab', 256)
    """
    return printable(text)[:MAX_FIELD_LEN]


_TRAILING_BREAKS = re.compile(r"(?:\r\n|\r|\n)+\Z")
_BREAK = re.compile(r"\r\n|\r|\n")


def field_text(text: str, multiline: bool = False) -> str:
    """What a field of kind ``input`` (``multiline``: ``textarea``) stores of typed ``text``:
    line breaks as a browser's field keeps them — a one-line field drops trailing breaks and
    turns the others into spaces, a multi-line one keeps them as ``\\n`` — then
    :func:`clean_text`. Both backends store exactly this.

    >>> field_text("a\\r\\nb\\n"), field_text("a\\r\\nb\\n", multiline=True)
    ('a b', 'a\\nb\\n')
    """
    if multiline:
        text = _BREAK.sub("\n", text)
    else:
        text = _BREAK.sub(" ", _TRAILING_BREAKS.sub("", text))
    return clean_text(text)


def row(wid: str, kind: str, label: str, **kw: Any) -> RowSpec:
    """A row spec for an ``AppSpec`` screen (JSON form of a :class:`Widget`); options that
    are None are left out.

    >>> row("user", "input", "Username", value="", to=None)
    {'id': 'user', 'kind': 'input', 'label': 'Username', 'value': ''}
    """
    d: dict[str, Any] = {"id": wid, "kind": kind, "label": label}
    d.update({k: v for k, v in kw.items() if v is not None})
    return d  # type: ignore[return-value]


def id_problems(records: list[Any], where: str, key: str = "id", *, next_id: Any = None,
                next_where: str = "data.next") -> list[str]:
    """Where the ``key`` of ``records`` (dicts) is not a unique int >= 0: the apps name a
    record's screens by its id's digits ("t:3") and find a record by its id (``set_state``'s
    checks of an app's ``state_problems``). With ``next_id`` (the app's counter, at
    ``next_where``, for a new record's id): also where, the ids being fine, it is not above
    every id (a new record would take an existing one's).

    >>> id_problems([{"id": 0}, {"id": 0}, {"id": -1}], "data.threads")
    ['data.threads[1].id: 0 is not a unique int >= 0', 'data.threads[2].id: -1 is not a unique int >= 0']
    >>> id_problems([{"id": 0}, {"id": 4}], "data.notes", next_id=3)
    ['data.next: 3 is not above every id in data.notes (4)']
    """
    seen: set[int] = set()
    out = []
    for i, r in enumerate(records):
        v = r[key]
        if isinstance(v, bool) or not isinstance(v, int) or v < 0 or v in seen:
            out.append(f"{where}[{i}].{key}: {v!r:.40} is not a unique int >= 0")
        else:
            seen.add(v)
    if next_id is not None and not out and next_id <= max(seen, default=-1):
        out.append(f"{next_where}: {next_id!r:.40} is not above every id in {where} ({max(seen)})")
    return out


class App:
    """Generic app behaviour over an :class:`~guigym.apps.schema.AppSpec`.

    Generic rules: a link pushes its screen; an input takes focus; a checkbox/toggle flips;
    a radio option selects itself into its group's value (and pops the screen when the
    screen has ``pop_on_select``); a button calls the hook ``on_button``. Apps with their
    own behaviour subclass this (buttons, rows made from app data) and register their
    ``kind`` with :func:`register_app`. Hooks get the app's spec and a private copy of its
    :class:`~guigym.apps.schema.AppState` to mutate.
    """

    kind = "generic"
    #: Screens made on the fly whose id starts with this prefix are dialogs (an app whose dialogs
    #: are not in ``spec["screens"]``); ``None``: only ``ScreenSpec["modal"]`` says so.
    dialog_prefix: str | None = None

    def initial_state(self, spec: AppSpec) -> AppState:
        """Stack at the root screen; every row that has a ``value`` and every choice group
        (``spec["defaults"]``) starts with its default, so values are always present."""
        values: dict[str, Any] = dict(spec.get("defaults", {}))
        for scr in spec["screens"].values():
            for r in scr["rows"]:
                if "value" in r and r["kind"] != "radio":
                    values[r["id"]] = r["value"]
        return {"stack": [spec["root"]], "scroll": {}, "focus": None, "values": values, "data": {}}

    # --- what is on screen -------------------------------------------------------------
    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        return spec["screens"][sid]["title"]

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        values = state["values"]
        out: list[Widget] = []
        for r in spec["screens"][sid]["rows"]:
            w = Widget.of(r)
            for c in w.cells or (w,):
                if c.kind in ("input", "textarea", "select", "checkbox", "toggle", "label") and c.id in values:
                    c.value = values[c.id]
                elif c.kind == "radio":
                    c.value = values.get(c.group) == c.option  # type: ignore[arg-type]
            if w.kind == "link" and w.group is not None:  # a link that shows a setting's choice
                w.detail = self.choice_label(spec, values.get(w.group))
            if w.kind == "label" and w.value == "":  # an empty message label is not drawn
                continue
            out.append(w)
        return out

    def tile(self, sid: str, w: Widget) -> bool:
        """Whether row ``w`` of screen ``sid`` is an item of a collection that the ``layout``
        variation (:data:`LAYOUTS`) may show as a grid tile (a product of a catalogue, an entry
        of a folder, a saved note). Default: none (the app ignores the axis)."""
        return False

    def with_permission(self, spec: AppSpec, when: str) -> AppSpec:
        """``spec`` gated by a runtime permission prompt (``guigym.variation``'s ``permission``
        axis), asked ``when``; only app kinds that need one have it (the contacts, for the
        messenger's picker and Mail's To dropdowns: ``guigym.apps.permission.ContactsGate``)."""
        raise NotImplementedError(f"app kind {self.kind!r} asks for no permission")

    def is_modal(self, spec: AppSpec, sid: str) -> bool:
        """Whether screen ``sid`` is a dialog over the screen below it (``ScreenSpec["modal"]``,
        or an id starting with :attr:`dialog_prefix`)."""
        if sid.startswith(MENU_PREFIX) or (self.dialog_prefix is not None and sid.startswith(self.dialog_prefix)):
            return True
        scr = spec["screens"].get(sid)
        return bool(scr and scr.get("modal"))

    def choice_label(self, spec: AppSpec, option: Any) -> str:
        return str(spec.get("option_labels", {}).get(option, option if option is not None else ""))

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        scr = spec["screens"].get(sid)
        return scr.get("parent") if scr else None

    def path_to(self, spec: AppSpec, sid: str) -> list[str] | None:
        """Screens from the root to ``sid`` along links, or None if no link leads there."""
        path = [sid]
        seen = {sid}
        while path[0] != spec["root"]:
            p = self.parent(spec, path[0])
            if p is None or p in seen:
                return None
            seen.add(p)
            path.insert(0, p)
        return path

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """What in ``state`` (already of the shape of :meth:`initial_state`'s: see
        ``guigym.apps.snapshot``) this app cannot show or act on: values of the right type but
        out of their domain (a date that is no date). ``set_state`` refuses a snapshot with
        any; ``[]`` by default."""
        return []

    # --- behaviour ---------------------------------------------------------------------
    def on_event(self, spec: AppSpec, state: AppState, ev: Event, w: Widget | None) -> None:
        """Mutate ``state`` (a private copy) for ``ev`` on the current screen."""
        sid = state["stack"][-1]
        if ev.kind == "scroll":
            state["scroll"][sid] = max(0, int(state["scroll"].get(sid, 0)) + int(ev.value))
            return
        if w is None:
            return
        if ev.kind == "click" and sid.startswith(MENU_PREFIX):  # a select's dropdown: pick, close
            if w.kind == "radio":
                state["values"][w.group] = w.option  # type: ignore[index]
                self.pop(state)
            return
        if ev.kind == "input" and w.kind in TEXT_KINDS:
            state["values"][w.id] = field_text(str(ev.value), multiline=w.kind == "textarea")
            state["focus"] = w.id
        elif ev.kind == "toggle" and w.kind in ("checkbox", "toggle"):
            state["values"][w.id] = bool(ev.value)
            self.on_toggle(spec, state, w)
        elif ev.kind == "click":
            if w.kind in TEXT_KINDS:
                state["focus"] = w.id
            elif w.kind == "select":
                self.push(state, MENU_PREFIX + w.id)
            elif w.kind == "button" and w.action in WIDGET_ACTIONS:
                widget_action(state["values"], w)
            elif w.kind == "link" and w.to is not None:
                self.push(state, w.to)
            elif w.kind == "radio":
                state["values"][w.group] = w.option  # type: ignore[index]
                if spec["screens"][sid].get("pop_on_select") and len(state["stack"]) > 1:
                    self.pop(state)
            elif w.kind in ("checkbox", "toggle"):
                state["values"][w.id] = not bool(w.value)
                self.on_toggle(spec, state, w)
            elif w.kind == "button":
                self.on_button(spec, state, w)

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        """Hook: a button was pressed. Default: buttons with ``to`` navigate."""
        if w.to is not None:
            self.push(state, w.to)

    def on_toggle(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        """Hook: a checkbox/toggle changed (its new value is already stored)."""

    @staticmethod
    def push(state: AppState, sid: str) -> None:
        state["stack"].append(sid)
        state["focus"] = None

    @staticmethod
    def pop(state: AppState) -> None:
        state["stack"].pop()
        state["focus"] = None


class SeenScreens(App):
    """Mixin: an app that remembers which record screens were opened, in ``data["seen"]`` (the
    record numbers, first opening first; an oracle reads a fact there before it carries it;
    never compared). Put it before the app's class (``class ShopSeen(SeenScreens, ShopApp)``)
    and override :meth:`seen_id`, the parser of a screen id."""

    def seen_id(self, sid: str) -> int | None:
        """The record whose screen ``sid`` is (None: a screen not remembered)."""
        raise NotImplementedError

    def initial_state(self, spec: AppSpec) -> AppState:
        state = super().initial_state(spec)
        state["data"]["seen"] = []
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        seen = state["data"]["seen"]
        bad = [f"data.seen: {seen!r:.40} is not a list of record numbers (ints >= 0)"]
        return [*super().state_problems(spec, state),
                *([] if all(type(r) is int and r >= 0 for r in seen) else bad)]

    def on_event(self, spec: AppSpec, state: AppState, ev: Event, w: Widget | None) -> None:
        super().on_event(spec, state, ev, w)
        rid = self.seen_id(state["stack"][-1])
        if rid is not None and rid not in state["data"]["seen"]:
            state["data"]["seen"].append(rid)


#: App behaviours by ``AppSpec["kind"]``; app modules add theirs with :func:`register_app`.
APP_KINDS: dict[str, App] = {"generic": App()}


def register_app(cls: type[App]) -> type[App]:
    """Class decorator: ``AppSpec`` s of kind ``cls.kind`` behave as ``cls``."""
    if cls.kind in APP_KINDS and type(APP_KINDS[cls.kind]) is not cls:
        raise ValueError(f"app kind {cls.kind!r} is already registered by {type(APP_KINDS[cls.kind]).__name__}")
    APP_KINDS[cls.kind] = cls()
    return cls


def app_of(scenario: Scenario, name: str) -> tuple[App, AppSpec]:
    """The behaviour and spec of the app called ``name``."""
    spec = scenario["apps"][name]
    return APP_KINDS[spec["kind"]], spec


ICONS_PER_PAGE = 20  # 4 columns x 5 rows


def initial_state(scenario: Scenario, foreground: str) -> DeviceState:
    """The device state before the scenario's start values (every app at its root)."""
    state: DeviceState = {"fg": foreground, "page": 0, "apps": {}}
    for name, spec in scenario["apps"].items():
        state["apps"][name] = APP_KINDS[spec["kind"]].initial_state(spec)
    return state


def start_state(scenario: Scenario) -> DeviceState:
    """The device state at the start of an episode: ``scenario["start"]`` applied."""
    state = initial_state(scenario, scenario["start"]["fg"])
    for app, values in scenario["start"].get("values", {}).items():
        state["apps"][app]["values"].update(values)
    if "popup" in scenario:
        state["popup"] = int(scenario["popup"]["after"])
    return state


#: The screen id of an interruption's dialog, and the id of an adversarial banner's row
#: (``guigym.variation``): both are device-level, drawn over or into whatever app is in front.
POPUP_SCREEN = "popup"
BANNER_ID = "banner"


def popup_showing(scenario: Scenario, state: DeviceState) -> bool:
    return state.get("popup") == 0 and "popup" in scenario


def _popup_view(scenario: Scenario, under: View) -> View:
    p = scenario["popup"]
    rows = [Widget(POPUP_SCREEN, "dialog", p["title"], detail=p["detail"])]
    rows += [Widget(f"{POPUP_SCREEN}.{bid}", "button", label, style=style) for bid, label, style in p["buttons"]]
    return View(under.app, POPUP_SCREEN, under.title, rows, theme=under.theme, backdrop=under)


def home_pages(scenario: Scenario) -> int:
    return max(1, -(-len(scenario["home"]["icons"]) // ICONS_PER_PAGE))


def view(scenario: Scenario, state: DeviceState) -> View:
    """What the screen shows in ``state``."""
    v = _device_view(scenario, state)
    rel = scenario.get("relabel")
    if rel and v.app in rel:  # held-out chrome labels (the ``labels`` variation): the app's own screens only
        v = relabel_view(v, rel[v.app])
    if popup_showing(scenario, state) and v.backdrop is None:  # over a dialog it waits (see guigym.variation)
        v = _popup_view(scenario, v)
    var = scenario.get("variation")
    if var and var.get("language", "en") != "en":  # another interface language (guigym.i18n): shown strings only
        from guigym.i18n import localize

        v = localize(scenario, v)
    return v


def relabel_view(v: View, table: dict[str, dict[str, str]]) -> View:
    """A copy of ``v`` with the labels ``table`` names (``{widget kind: {label: new label}}``,
    ``guigym.variation``'s ``labels`` axis) replaced: only a widget of that kind (cells too, the
    backdrop's too), never a composite control's button (a tab, a stepper, a day:
    :data:`WIDGET_ACTIONS`) nor an adversarial banner. Ids, values and actions are unchanged, so
    events, the oracle's goals and ``success`` are those of the unvaried screen."""

    def w_(w: Widget) -> Widget:
        if w.cells:
            cells = [w_(c) for c in w.cells]
            return w if all(a is b for a, b in zip(cells, w.cells)) else replace(w, cells=cells)
        new = table.get(w.kind, {}).get(w.label)
        if new is None or w.id == BANNER_ID or w.action in WIDGET_ACTIONS:
            return w
        return replace(w, label=new)

    back = relabel_view(v.backdrop, table) if v.backdrop is not None else None
    rows = [w_(w) for w in v.rows]
    if back is v.backdrop and all(a is b for a, b in zip(rows, v.rows)):  # nothing relabelled (the train split's table
        return v  # names the held-out synonyms, which the families never show): the view as it is
    return replace(v, rows=rows, backdrop=back)


def _device_view(scenario: Scenario, state: DeviceState) -> View:
    theme = scenario.get("theme", {})
    if state["fg"] == HOME:
        names, looks = scenario["home"]["icons"], scenario["home"].get("looks")
        if looks:  # the ``icons`` variation: another app's colour (and glyph: ``detail``), its own label
            apps = scenario["apps"]
            rows = [Widget(id=icon_id(n), kind="icon", label=n, value=apps[looks[n][0]].get("color"), detail=looks[n][1][:1].upper())
                    for n in names]
        else:
            rows = [Widget(id=icon_id(n), kind="icon", label=n, value=scenario["apps"][n].get("color")) for n in names]
        return View(HOME, HOME, "", rows, grid=True, page=state["page"], pages=home_pages(scenario), theme=theme)
    app, spec = app_of(scenario, state["fg"])
    app_state = state["apps"][state["fg"]]
    banner = scenario.get("banner")
    top = None
    if banner is not None and "after" in banner:  # adversarial content inside the app's own rows, looking like them
        top = Widget(BANNER_ID, banner["kind"], banner["text"], detail=banner.get("detail", ""))
    elif banner is not None:  # adversarial content at the top of every app screen (not on dialogs)
        top = Widget(BANNER_ID, banner["kind"], banner["text"], style="primary" if banner["kind"] == "button" else "error")
    at = int(banner["after"]) if banner is not None and "after" in banner else 0
    return _screen_view(state["fg"], app, spec, app_state, len(app_state["stack"]) - 1, theme, top, at, scenario.get("descriptions"))


def _screen_view(name: str, app: App, spec: AppSpec, app_state: AppState, depth: int, theme: dict[str, Any],
                 banner: Widget | None = None, banner_at: int = 0, descriptions: dict[str, Any] | None = None) -> View:
    """The view of the screen at ``depth`` of the stack (a dialog's: with the one below as
    backdrop); ``banner``: a row put on every screen that is not a dialog, first or (a content
    hint, see ``guigym.variation``) after ``banner_at`` of the screen's rows; ``descriptions``:
    the long content texts of ``guigym.variation``'s ``descriptions`` axis (:mod:`guigym.descriptions`)."""
    sid = app_state["stack"][depth]
    top = depth == len(app_state["stack"]) - 1
    modal = bool(depth) and app.is_modal(spec, sid)
    backdrop = _screen_view(name, app, spec, app_state, depth - 1, theme, banner, banner_at, descriptions) if modal else None
    if sid.startswith(MENU_PREFIX):  # a select's dropdown, made from the select under it
        title, rows = (backdrop.title, menu_rows(backdrop, sid, app_state["values"])) if backdrop is not None else ("", [])
    else:
        title, rows = app.title(spec, app_state, sid), app.rows(spec, app_state, sid)
        how = theme.get("layout") if theme else None
        if how is not None and how != "list" and not modal:  # the collection as a grid of tiles (guigym.variation)
            rows = tile_rows(rows, app, sid, how)
        if descriptions is not None and not modal:  # long texts in the app's content (guigym.descriptions)
            from guigym.descriptions import insert

            rows = insert(rows, descriptions, app.kind, sid)
        if banner is not None and not modal:
            at = min(banner_at, len(rows))
            rows = [*rows[:at], banner, *rows[at:]]
    return View(name, sid, title, rows, scroll=int(app_state["scroll"].get(sid, 0)), focus=app_state["focus"] if top else None,
                theme=theme, backdrop=backdrop)


#: The ``layout`` variation (``guigym.variation``): how an app shows the items of a collection
#: (the rows :meth:`App.tile` marks) — ``list`` (the default): a row each; else tiles, side by
#: side, ``(columns, rows of height)`` each: ``grid`` 2 columns, ``compact_grid`` 3.
LAYOUTS: dict[str, tuple[int, int]] = {"grid": (2, 2), "compact_grid": (3, 2)}
#: Id prefix of a row of tiles (``tiles:<its first tile's id>``): a ``cells`` row, never a target.
TILES_PREFIX = "tiles:"


def tile_rows(rows: list[Widget], app: App, sid: str, how: str) -> list[Widget]:
    """``rows`` of screen ``sid`` with each run of collection items (:meth:`App.tile`) laid out
    as tiles (:data:`LAYOUTS`): ``cells`` rows of ``columns`` link tiles (style ``tile``, the
    same ids, labels and targets), the last one short (its tiles keep their width). ``rows``
    itself is not modified.

    >>> from guigym.apps.shop import MAIN, product_screen
    >>> items = [Widget(product_screen(i), "link", f"P{i}", to=product_screen(i)) for i in range(3)]
    >>> out = tile_rows([Widget("cart", "link", "Cart"), *items], APP_KINDS["shop"], MAIN, "grid")
    >>> [(w.id, [c.id for c in w.cells or ()]) for w in out]
    [('cart', []), ('tiles:p:0', ['p:0', 'p:1']), ('tiles:p:2', ['p:2'])]
    """
    if how not in LAYOUTS:
        raise ValueError(f"unknown layout {how!r}; expected 'list' or one of {sorted(LAYOUTS)}")
    cols, span = LAYOUTS[how]
    out: list[Widget] = []
    run: list[Widget] = []

    def flush() -> None:
        for k in range(0, len(run), cols):
            chunk = run[k:k + cols]
            out.append(Widget(TILES_PREFIX + chunk[0].id, "cells", "", cells=chunk, weights=[1] * cols, span=span))
        run.clear()

    for w in rows:
        if not w.cells and app.tile(sid, w):
            run.append(replace(w, style="tile"))
        else:
            flush()
            out.append(w)
    flush()
    return out


def menu_rows(below: View, sid: str, values: dict[str, Any]) -> list[Widget]:
    """The rows of the dropdown ``sid`` of a select on ``below``: a ``menu`` panel (the select's
    label), then one radio row per option (``<select id>.opt<i>``); none when the select is gone."""
    wid = sid[len(MENU_PREFIX):]
    sel = below.find(wid)
    if sel is None or sel.kind != "select":
        return []
    rows = [Widget(sid, "menu", sel.label)]
    for i, (value, label) in enumerate(sel.options or []):
        rows.append(Widget(f"{wid}.opt{i}", "radio", str(label), value=values.get(wid) == value, group=wid, option=value))
    return rows


#: Button actions the base :class:`App` carries out itself (the composite widgets of
#: :mod:`guigym.apps.widgets`): ``set`` stores ``option`` into ``values[group]``; ``step`` stores
#: the value the button shows (its ``value``, else ``values[group]``) plus ``option`` (an int),
#: within ``options = [lo, hi, wrap]``; ``month`` stores the month shown (its ``detail``, else
#: ``values[group]``, ``"YYYY-MM"``) moved by ``option`` months. Acting on what the screen shows
#: keeps a family's defaults (rows built before any value is stored) in one place.
WIDGET_ACTIONS = frozenset({"set", "step", "month"})


def widget_action(values: dict[str, Any], w: Widget) -> None:
    """Carry out the :data:`WIDGET_ACTIONS` button ``w`` on ``values``."""
    key = str(w.group)
    if w.action == "set":
        values[key] = w.option
    elif w.action == "step":
        lo, hi, wrap = w.options if w.options else (-(10**9), 10**9, False)
        v = int(w.value if w.value is not None else values.get(key, lo)) + int(w.option)  # from the value shown
        values[key] = lo + (v - lo) % (hi - lo + 1) if wrap else min(hi, max(lo, v))
    elif w.action == "month":
        y, m = (int(p) for p in str(w.detail or values[key]).split("-")[:2])  # from the month shown
        k = y * 12 + (m - 1) + int(w.option)
        values[key] = f"{k // 12:04d}-{k % 12 + 1:02d}"


def find_app(scenario: Scenario, name: str) -> str | None:
    """The app called ``name`` (case-insensitive, surrounding spaces ignored), if any."""
    want = name.strip().casefold()
    for n in scenario["apps"]:
        if n.casefold() == want:
            return n
    return None


def _next_state(state: DeviceState) -> DeviceState:
    """A copy of ``state`` to change: the foreground app's state is a deep copy, the other
    apps' states are shared (events change only the foreground app; states are never
    mutated once made, so sharing is safe and saves copying every app on the device)."""
    apps = dict(state["apps"])
    fg = state["fg"]
    if fg in apps:
        apps[fg] = copy_state(apps[fg])
    # the keys in their order (get_state's JSON keeps it); any other value copied as before
    return {k: apps if k == "apps" else copy_state(v) if isinstance(v, (dict, list)) else v for k, v in state.items()}  # type: ignore[return-value]


def apply(scenario: Scenario, state: DeviceState, ev: Event, v: View | None = None) -> DeviceState:
    """The next state after ``ev`` (``v``: the view of ``state``, if already made).
    ``state`` is not modified, and the new state shares the apps ``ev`` cannot change."""
    new = _next_state(state)
    if popup_showing(scenario, state):
        v = v if v is not None else view(scenario, state)
        if v.screen == POPUP_SCREEN:  # an interruption is modal: a button of it or Back closes it, nothing else acts
            if ev.kind == "back" or (ev.kind == "click" and str(ev.widget).startswith(POPUP_SCREEN + ".")):
                new["popup"] = -1
            return new
    if ev.widget == BANNER_ID:  # the adversarial banner's button (or content hint's link) does nothing
        return new
    if ev.kind == "open_app":
        name = find_app(scenario, str(ev.value))
        if name is not None:
            new["fg"] = name
        return new
    if ev.kind == "answer":  # the reply ends an information task; the family judges it
        new["answer"] = printable(str(ev.value))[:MAX_ANSWER_LEN]
        return new
    if ev.kind == "back":
        if new["fg"] == HOME:
            return new
        app_state = new["apps"][new["fg"]]
        if len(app_state["stack"]) > 1:
            App.pop(app_state)
        elif scenario.get("home", {}).get("enabled"):
            app_state["focus"] = None
            new["fg"] = HOME
        return new
    if new["fg"] == HOME:
        if ev.kind == "page":
            new["page"] = min(home_pages(scenario) - 1, max(0, new["page"] + int(ev.value)))
        elif ev.kind == "click" and ev.widget:
            icon = icon_app(ev.widget)
            name = find_app(scenario, icon) if icon is not None else None
            if name is not None:
                new["fg"] = name
        return new
    v = v if v is not None else view(scenario, state)
    w = v.find(ev.widget) if ev.widget else None
    app, spec = app_of(scenario, new["fg"])
    app.on_event(spec, new["apps"][new["fg"]], ev, w)
    return new
