"""The app model: widgets, screens, a navigation stack, focus, several apps on one device.

Everything here is renderer-independent Python. A *scenario* (static, JSON) describes the
device: its apps (each an ``AppSpec`` dict with screens and rows), the home screen, the theme
and the task. A *state* (dynamic, JSON) holds what changes: the foreground app, each app's
navigation stack, field values, toggles, focus, scroll rows and app data. ``view(scn, st)``
says what is on screen; ``apply(scn, st, event)`` is the app's behaviour, written once.

Backends only draw views and turn low-level input into :class:`~guigym.events.Event` s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from guigym.events import Event

HOME = "home"
#: Widget kinds a user can act on.
INTERACTIVE = frozenset({"button", "input", "checkbox", "toggle", "link", "radio", "icon"})
#: All widget kinds, in a fixed order (their index is the ``role`` id in observations).
KINDS = ("label", "button", "input", "checkbox", "toggle", "link", "radio", "icon")


@dataclass
class Widget:
    """One row of a screen (or one icon of the home screen).

    ``value``: the text of an input, the state of a checkbox/toggle, whether a radio option
    is selected. ``detail``: secondary text (the current choice of a setting, a subtitle).
    ``to``: for links, the screen they open. ``action``: for buttons, the app's handler name.
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
    option: str | None = None

    @property
    def interactive(self) -> bool:
        return self.kind in INTERACTIVE


@dataclass
class View:
    """What the screen shows: a title bar and a scrollable column of rows (or, on the home
    screen, a paged grid of app icons)."""

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

    def find(self, wid: str) -> Widget | None:
        for w in self.rows:
            if w.id == wid:
                return w
        return None

    def index(self, wid: str) -> int:
        for i, w in enumerate(self.rows):
            if w.id == wid:
                return i
        return -1


def copy_state(st: Any) -> Any:
    """Fast deep copy of plain JSON data (dicts, lists, scalars)."""
    if isinstance(st, dict):  # recurse only into containers: most values are scalars
        return {k: copy_state(v) if isinstance(v, (dict, list)) else v for k, v in st.items()}
    if isinstance(st, list):
        return [copy_state(v) if isinstance(v, (dict, list)) else v for v in st]
    return st


def row(wid: str, kind: str, label: str, **kw: Any) -> dict[str, Any]:
    """A row spec for an ``AppSpec`` screen (JSON form of a :class:`Widget`)."""
    d: dict[str, Any] = {"id": wid, "kind": kind, "label": label}
    d.update({k: v for k, v in kw.items() if v is not None})
    return d


class App:
    """Generic app behaviour over an ``AppSpec``.

    An ``AppSpec`` is ``{"kind", "name", "root", "screens": {sid: {"title", "rows": [...],
    "parent": sid | None, "pop_on_select": bool}}}``. Generic rules: a link pushes its
    screen; an input takes focus; a checkbox/toggle flips; a radio option selects itself
    into its group's value (and pops the screen when ``pop_on_select``); a button calls the
    family's handler ``on_button``. Families subclass this for buttons and dynamic rows.
    """

    kind = "generic"

    def initial_state(self, spec: dict[str, Any]) -> dict[str, Any]:
        """Stack at the root screen; every row that has a ``value`` and every choice group
        (``spec["defaults"]``) starts with its default, so values are always present."""
        values: dict[str, Any] = dict(spec.get("defaults", {}))
        for scr in spec["screens"].values():
            for r in scr["rows"]:
                if "value" in r and r["kind"] != "radio":
                    values[r["id"]] = r["value"]
        return {"stack": [spec["root"]], "scroll": {}, "focus": None, "values": values, "data": {}}

    # --- what is on screen -------------------------------------------------------------
    def title(self, spec: dict[str, Any], ast: dict[str, Any], sid: str) -> str:
        return spec["screens"][sid]["title"]

    def rows(self, spec: dict[str, Any], ast: dict[str, Any], sid: str) -> list[Widget]:
        values = ast["values"]
        out: list[Widget] = []
        for r in spec["screens"][sid]["rows"]:
            w = Widget(**r)
            if w.kind in ("input", "checkbox", "toggle", "label") and w.id in values:
                w.value = values[w.id]
            elif w.kind == "radio":
                w.value = values.get(w.group) == w.option
            if w.kind == "link" and w.group is not None:  # a link that shows a setting's choice
                w.detail = self.choice_label(spec, values.get(w.group))
            if w.kind == "label" and w.value == "":  # an empty message label is not drawn
                continue
            out.append(w)
        return out

    def choice_label(self, spec: dict[str, Any], option: Any) -> str:
        return str(spec.get("option_labels", {}).get(option, option if option is not None else ""))

    def parent(self, spec: dict[str, Any], sid: str) -> str | None:
        scr = spec["screens"].get(sid)
        return scr.get("parent") if scr else None

    def path_to(self, spec: dict[str, Any], sid: str) -> list[str] | None:
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

    # --- behaviour ---------------------------------------------------------------------
    def on_event(self, spec: dict[str, Any], ast: dict[str, Any], ev: Event, w: Widget | None, dev: dict[str, Any]) -> None:
        """Mutate ``ast`` (a private copy) for ``ev`` on the current screen."""
        sid = ast["stack"][-1]
        if ev.kind == "scroll":
            ast["scroll"][sid] = max(0, int(ast["scroll"].get(sid, 0)) + int(ev.value))
            return
        if w is None:
            return
        if ev.kind == "input" and w.kind == "input":
            ast["values"][w.id] = str(ev.value)
            ast["focus"] = w.id
        elif ev.kind == "toggle" and w.kind in ("checkbox", "toggle"):
            ast["values"][w.id] = bool(ev.value)
            self.on_toggle(spec, ast, w, dev)
        elif ev.kind == "click":
            if w.kind == "input":
                ast["focus"] = w.id
            elif w.kind == "link" and w.to is not None:
                self.push(ast, w.to)
            elif w.kind == "radio":
                ast["values"][w.group] = w.option
                if spec["screens"][sid].get("pop_on_select") and len(ast["stack"]) > 1:
                    self.pop(ast)
            elif w.kind in ("checkbox", "toggle"):
                ast["values"][w.id] = not bool(w.value)
                self.on_toggle(spec, ast, w, dev)
            elif w.kind == "button":
                self.on_button(spec, ast, w, dev)

    def on_button(self, spec: dict[str, Any], ast: dict[str, Any], w: Widget, dev: dict[str, Any]) -> None:
        """Family hook: a button was pressed. Default: buttons with ``to`` navigate."""
        if w.to is not None:
            self.push(ast, w.to)

    def on_toggle(self, spec: dict[str, Any], ast: dict[str, Any], w: Widget, dev: dict[str, Any]) -> None:
        """Family hook: a checkbox/toggle changed (its new value is already stored)."""

    @staticmethod
    def push(ast: dict[str, Any], sid: str) -> None:
        ast["stack"].append(sid)
        ast["focus"] = None

    @staticmethod
    def pop(ast: dict[str, Any]) -> None:
        ast["stack"].pop()
        ast["focus"] = None


#: App behaviours by ``AppSpec["kind"]``; families add theirs with :func:`register_app`.
APP_KINDS: dict[str, App] = {"generic": App()}


def register_app(cls: type[App]) -> type[App]:
    APP_KINDS[cls.kind] = cls()
    return cls


def app_of(scn: dict[str, Any], name: str) -> tuple[App, dict[str, Any]]:
    spec = scn["apps"][name]
    return APP_KINDS[spec["kind"]], spec


ICONS_PER_PAGE = 20  # 4 columns x 5 rows


def initial_state(scn: dict[str, Any], foreground: str) -> dict[str, Any]:
    """The device state at the start of an episode."""
    st: dict[str, Any] = {"fg": foreground, "page": 0, "apps": {}}
    for name, spec in scn["apps"].items():
        st["apps"][name] = APP_KINDS[spec["kind"]].initial_state(spec)
    return st


def view(scn: dict[str, Any], st: dict[str, Any]) -> View:
    """What the screen shows in state ``st``."""
    theme = scn.get("theme", {})
    if st["fg"] == HOME:
        names = scn["home"]["icons"]
        rows = [Widget(id=f"icon:{n}", kind="icon", label=n, value=scn["apps"][n].get("color")) for n in names]
        pages = max(1, -(-len(rows) // ICONS_PER_PAGE))
        return View(HOME, HOME, "", rows, grid=True, page=st["page"], pages=pages, theme=theme)
    app, spec = app_of(scn, st["fg"])
    ast = st["apps"][st["fg"]]
    sid = ast["stack"][-1]
    return View(
        st["fg"], sid, app.title(spec, ast, sid), app.rows(spec, ast, sid),
        scroll=int(ast["scroll"].get(sid, 0)), focus=ast["focus"], theme=theme,
    )


def find_app(scn: dict[str, Any], name: str) -> str | None:
    """The app called ``name`` (case-insensitive, surrounding spaces ignored), if any."""
    want = name.strip().casefold()
    for n in scn["apps"]:
        if n.casefold() == want:
            return n
    return None


def apply(scn: dict[str, Any], st: dict[str, Any], ev: Event, v: View | None = None) -> dict[str, Any]:
    """The next state after ``ev``. ``st`` is not modified."""
    new = copy_state(st)
    if ev.kind == "open_app":
        name = find_app(scn, str(ev.value))
        if name is not None:
            new["fg"] = name
        return new
    if ev.kind == "back":
        if new["fg"] == HOME:
            return new
        ast = new["apps"][new["fg"]]
        if len(ast["stack"]) > 1:
            App.pop(ast)
        elif scn.get("home", {}).get("enabled"):
            ast["focus"] = None
            new["fg"] = HOME
        return new
    if new["fg"] == HOME:
        if ev.kind == "page":
            pages = max(1, -(-len(scn["home"]["icons"]) // ICONS_PER_PAGE))
            new["page"] = min(pages - 1, max(0, new["page"] + int(ev.value)))
        elif ev.kind == "click" and ev.widget and ev.widget.startswith("icon:"):
            name = find_app(scn, ev.widget[5:])
            if name is not None:
                new["fg"] = name
        return new
    v = v if v is not None else view(scn, st)
    w = v.find(ev.widget) if ev.widget else None
    app, spec = app_of(scn, new["fg"])
    app.on_event(spec, new["apps"][new["fg"]], ev, w, new)
    return new


