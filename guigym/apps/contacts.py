"""Contacts: look up, edit, favourite and delete people in an address book.

Description:
    A Contacts app: an alphabetical list of people (a search field above it at medium and
    hard), one detail screen per person (phone, email, a "Favourite" switch, Edit, Delete, a
    Call button that places a call and a distractor Message button), an editor with pre-filled
    Phone and Email fields, and a confirmation dialog for Delete ("Delete Grace Hill?" with
    Cancel / Delete over the dimmed detail screen). Names are drawn from the catalog's 24 x 19
    = 456 first/last pairs; phone numbers (800 area codes x 10,000 lines), email addresses (4
    patterns x 8 domains, digits at random), favourites, themes and the task vary with the
    seed. Distinct instances: at easy alone, C(456, 5) > 1.6e11 name sets before phones and
    emails, so the generator yields far more scenarios than any run can see.
Instruction:
    "What is Grace Hill's phone number?", "What is Bob Lee's email address?", "Change Grace
    Hill's phone number to 415-555-0137", "Delete Bob Lee from your contacts", "Add Zoe King to
    favourites"; at hard two of them joined ("Delete Bob Lee, then tell me Zoe King's
    email address."), the question always last.
Actions:
    Click, Scroll, Back, OpenApp, Type and Answer (this family's action space has Answer:
    ``type`` is ``Discrete(6)``). Answer ends an information task; in a task that asks nothing
    it is a no-op with an ``action_error``.
Levels:
    * easy: 5-8 people (the list fits on the screen), one task.
    * medium: 14-24 people (Scroll or search), a search field that may hold a stale query
      hiding the person, one task. The oracle searches for the person by name unless their row
      is in view or one Scroll away.
    * hard: 25-40 people, the search field, two tasks on two people chained (the first edits
      both phone and email, toggles a favourite or deletes; the second deletes, through the
      confirmation dialog, or asks a question). The template "edit both, then delete" has a
      15-step reference from reset where it searches for both people (60 of the 72 such seeds
      among 0-299; 11-14 steps on the others, where a person's row is in view, or one Scroll
      away, and clicked instead); the others 5-14.
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when the address book equals the one at the start plus exactly the instructed
    changes (an edit of another person, an unwanted favourite or a stray deletion is not
    success) and, for a question, the answer matches the fact after
    :func:`guigym.answers.answers_match`'s normalisation (case, spaces, quotes; a phone number
    or email is text, so it must be given as shown). Failure (terminated) when a person the
    task does not delete is deleted (there is no undo), when a call is placed (Call: no task
    asks for one, and it cannot be taken back), or when an answer is given that does not make
    the task a success (wrong, or before the other task is done).
Registered ids:
    ``GuiGym-Contacts-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import App, Widget, id_problems, register_app, row
from guigym.apps.catalog import ICON_COLORS
from guigym.apps.family import CALL_PLACED, Family, Goal, answer_failure, missing, pick, sample, theme
from guigym.apps.schema import AppSpec, AppState, Card, DeviceState, Scenario, Task, record_id, sub_id
from guigym.apps.tools import PEOPLE, call_problems, calls_placed, place_call

APP = "Contacts"
DOMAINS = ("mail.com", "example.org", "inbox.net", "post.io", "webmail.co", "fastmail.example", "home.example", "work.example")
#: (people, search field) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], bool]] = {"easy": ((5, 8), False), "medium": ((14, 24), True), "hard": ((25, 40), True)}
ASK_PHONE = ("What is {n}'s phone number?", "Find {n}'s phone number and tell me.", "Which number does {n} have?")
ASK_EMAIL = ("What is {n}'s email address?", "Look up {n}'s email and tell me.", "Which email address does {n} use?")
TELL = {"phone": "tell me {n}'s phone number", "email": "tell me {n}'s email address"}
EDIT_ONE = ("Change {n}'s {f} to {v}", "Update the {f} of {n} to {v}", "Set {n}'s {f} to {v}")
EDIT_BOTH = ("Change {n}'s phone number to {p} and email to {e}", "Update {n}: phone {p}, email {e}")
DELETE = ("Delete {n} from your contacts", "Remove the contact {n}", "Delete {n}")
FAV_ON = ("Add {n} to favourites", "Mark {n} as a favourite", "Make {n} a favourite contact")
FAV_OFF = ("Remove {n} from favourites", "Unfavourite {n}", "Take {n} off your favourites")
JOINS = (", then ", ". Then ", "; after that, ")
FIELD_NAMES = {"phone": "phone number", "email": "email address"}


class ContactTask(TypedDict):
    type: str  # "ask", "edit", "delete" or "fav"
    person: int  # the person's ``Card["id"]``
    field: str | None  # ask: "phone" / "email"
    phone: str | None  # edit: the new phone number (None: unchanged)
    email: str | None  # edit: the new email address (None: unchanged)
    fav: bool | None  # fav: the new value


class ContactsTask(Task):
    tasks: list[ContactTask]  # in the instruction's order; a question is always last


# --- screens and ids -------------------------------------------------------------------------
def person_screen(pid: int) -> str:
    """A person's detail screen (and its link on the list), by ``Card["id"]``.

    >>> person_screen(3), person_of("p:3"), editor_screen(3), dialog_screen(3), person_of("e:3"), person_of("main")
    ('p:3', 3, 'e:3', 'd:3', 3, None)
    """
    return f"p:{pid}"


def editor_screen(pid: int) -> str:
    return f"e:{pid}"


def dialog_screen(pid: int) -> str:
    """The "Delete …?" confirmation dialog of a person."""
    return f"d:{pid}"


def person_of(sid: str) -> int | None:
    """The person a detail, editor or dialog screen is about (None for other screens)."""
    return record_id(sid, "p", "e", "d")


def fav_id(pid: int) -> str:
    return f"fav:{pid}"


def _find(state: AppState, pid: int) -> Card | None:
    return next((c for c in state["data"]["people"] if c["id"] == pid), None)


# --- the app ---------------------------------------------------------------------------------
@register_app
class AddressBook(App):
    """``data["people"]``: the current cards, in list order. Detail, editor and dialog screens
    are made on the fly from them (a deleted person's screens show nothing). Call records the
    call in ``data["calls"]`` (:func:`~guigym.apps.tools.place_call`)."""

    kind = "addressbook"
    dialog_prefix = "d:"  # the delete confirmation

    def initial_state(self, spec: AppSpec) -> AppState:
        state = super().initial_state(spec)
        state["data"]["people"] = [dict(c) for c in spec["cards"]]
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """People (the scenario's and the state's) with unique ids >= 0: their screens are
        named by them ("p:3")."""
        return [*super().state_problems(spec, state), *id_problems(spec["cards"], "spec.cards"),
                *id_problems(state["data"]["people"], "data.people"), *call_problems(state)]

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        pid = person_of(sid)
        if pid is None:
            return super().parent(spec, sid)
        return "main" if sid.startswith("p:") else person_screen(pid)

    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        pid = person_of(sid)
        if pid is None:
            return super().title(spec, state, sid)
        card = _find(state, pid)
        name = card["name"] if card else "Contact"
        return {"p": name, "e": "Edit contact", "d": f"Delete {name}?"}[sid[0]]

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        pid = person_of(sid)
        if pid is None:
            out = super().rows(spec, state, sid)
            if sid == "main":  # the people that match the search, in list order
                query = str(state["values"].get("search", "")).strip().casefold()
                out += [Widget(person_screen(c["id"]), "link", c["name"], detail="Favourite" if c["fav"] else "", to=person_screen(c["id"]))
                        for c in state["data"]["people"] if query in c["name"].casefold()]
            return out
        card = _find(state, pid)
        if card is None:
            return []
        vals = state["values"]
        if sid.startswith("p:"):
            return [
                Widget(sub_id(sid, "phone"), "label", f"Phone: {card['phone']}", span=0),  # a long one wraps (guigym.layout)
                Widget(sub_id(sid, "email"), "label", f"Email: {card['email']}", span=0),
                Widget(fav_id(pid), "toggle", "Favourite", value=card["fav"]),
                Widget(sub_id(sid, "edit"), "button", "Edit", to=editor_screen(pid), action="edit"),
                Widget(sub_id(sid, "delete"), "button", "Delete", to=dialog_screen(pid), action="delete"),
                Widget(sub_id(sid, "call"), "button", "Call", action="call"),
                Widget(sub_id(sid, "message"), "button", "Message", action="message"),
                *([Widget(sub_id(sid, "msg"), "label", vals[sub_id(sid, "msg")])] if vals.get(sub_id(sid, "msg")) else []),
            ]
        if sid.startswith("e:"):
            err = vals.get(sub_id(sid, "error"), "")
            return [
                Widget(sub_id(sid, "phone"), "input", "Phone", value=vals.get(sub_id(sid, "phone"), ""), placeholder="Phone number"),
                Widget(sub_id(sid, "email"), "input", "Email", value=vals.get(sub_id(sid, "email"), ""), placeholder="name@example.com"),
                *([Widget(sub_id(sid, "error"), "label", err, style="error")] if err else []),
                Widget(sub_id(sid, "save"), "button", "Save", action="save", style="primary"),
                Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
            ]
        return [  # the dialog: its panel, then its buttons (left to right)
            Widget(sub_id(sid, "dialog"), "dialog", f"Delete {card['name']}?", detail="This contact will be removed."),
            Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
            Widget(sub_id(sid, "confirm"), "button", "Delete", action="confirm", style="danger"),
        ]

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        sid = state["stack"][-1]
        pid = person_of(sid)
        card = _find(state, pid) if pid is not None else None
        vals = state["values"]
        if card is None:
            return
        if w.action == "edit":  # a fresh editor holds the person's current values
            ed = editor_screen(pid)  # type: ignore[arg-type]
            vals.update({sub_id(ed, "phone"): card["phone"], sub_id(ed, "email"): card["email"], sub_id(ed, "error"): ""})
            self.push(state, ed)
        elif w.action == "delete":
            self.push(state, dialog_screen(pid))  # type: ignore[arg-type]
        elif w.action in ("call", "message"):  # Call places a call (a side effect); Message only says so
            verb = "Calling" if w.action == "call" else "Opening messages for"
            vals[sub_id(sid, "msg")] = f"{verb} {card['name']}..."
            if w.action == "call":
                place_call(state, sid)
        elif w.action == "save":
            phone, email = (str(vals.get(sub_id(sid, k), "")).strip() for k in ("phone", "email"))
            if not any(ch.isdigit() for ch in phone):
                vals[sub_id(sid, "error")] = "Enter a phone number"
            elif "@" not in email:
                vals[sub_id(sid, "error")] = "Enter a valid email address"
            else:
                card.update({"phone": phone, "email": email})
                vals[sub_id(sid, "error")] = ""
                self.pop(state)
        elif w.action == "cancel":
            self.pop(state)
        elif w.action == "confirm":  # gone for good: back to the list
            state["data"]["people"] = [c for c in state["data"]["people"] if c["id"] != pid]
            del state["stack"][1:]
            state["focus"] = None

    def on_toggle(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        if w.id.startswith("fav:"):
            card = _find(state, int(w.id[4:]))
            if card is not None:
                card["fav"] = bool(state["values"].pop(w.id))  # the card holds it, not a row value


# --- generation ------------------------------------------------------------------------------
def phone_number(rng: np.random.Generator) -> str:
    """A US-style number, '415-555-0137' (area 200-999, line 0000-9999)."""
    return f"{int(rng.integers(200, 1000))}-555-{int(rng.integers(0, 10000)):04d}"


def email_address(rng: np.random.Generator, name: str) -> str:
    """One of four patterns of the name at one of :data:`DOMAINS`, digits at random."""
    first, last = name.lower().split()
    user = pick(rng, (f"{first}.{last}", f"{first[0]}{last}", f"{first}{last[0]}", f"{last}.{first}"))
    if rng.random() < 0.5:
        user += str(int(rng.integers(1, 100)))
    return f"{user}@{pick(rng, DOMAINS)}"


class ContactsFamily(Family):
    name = "Contacts"
    description = "An address book: answer a phone/email question, edit, favourite or delete (confirmation dialog) a person."
    apps = (APP,)
    task_type = ContactsTask
    asks_questions = True
    #: The tasks' types in the instruction's order.
    templates = {"easy": ("ask", "edit", "delete", "fav"), "medium": ("ask", "edit", "delete", "fav"),
                 "hard": ("edit+delete", "edit+ask", "fav+delete", "fav+ask", "delete+delete", "delete+ask")}

    def template(self, scenario: Scenario) -> str:
        return "+".join(t["type"] for t in self._tasks(scenario))

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        (lo, hi), search = LEVEL_SIZES[level]
        names = sorted(sample(rng, PEOPLE, int(rng.integers(lo, hi + 1))))
        cards: list[Card] = [
            {"id": i, "name": n, "phone": phone_number(rng), "email": email_address(rng, n), "fav": bool(rng.random() < 0.3)}
            for i, n in enumerate(names)
        ]
        who = sample(rng, range(len(cards)), 2 if level == "hard" else 1)
        if level == "hard":
            kinds = [pick(rng, ("edit", "edit", "fav", "delete")), pick(rng, ("delete", "ask"))]
        else:
            kinds = [pick(rng, ("ask", "ask", "edit", "delete", "fav"))]
        tasks = [self._task(rng, level, k, cards[p]) for k, p in zip(kinds, who)]
        text = "".join((pick(rng, JOINS) if i else "") + self._clause(rng, t, cards, first=i == 0, last=i == len(tasks) - 1)
                       for i, t in enumerate(tasks))
        if not text.endswith(("?", ".")):
            text += "."
        rows = [row("search", "input", "Search", placeholder="Search contacts", value="")] if search else []
        spec: AppSpec = {
            "kind": "addressbook", "name": APP, "root": "main", "color": list(pick(rng, ICON_COLORS)), "cards": cards,
            "screens": {"main": {"title": pick(rng, ("Contacts", "People", "Address book")), "parent": None, "rows": rows}},
        }
        values: dict[str, dict[str, Any]] = {}
        if search and rng.random() < 0.5:  # a stale query someone left: it may hide the person
            values[APP] = {"search": pick(rng, names).split()[int(rng.integers(2))]}
        task: ContactsTask = {"instruction": text, "tasks": tasks}
        return {
            "family": self.name, "level": level, "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]},
            "theme": theme(rng), "start": {"fg": APP, "values": values}, "task": task,
        }

    def _task(self, rng: np.random.Generator, level: str, kind: str, card: Card) -> ContactTask:
        t: ContactTask = {"type": kind, "person": card["id"], "field": None, "phone": None, "email": None, "fav": None}
        if kind == "ask":
            t["field"] = pick(rng, ("phone", "email"))
        elif kind == "edit":
            fields = ("phone", "email") if level == "hard" else (pick(rng, ("phone", "email")),)
            if "phone" in fields:  # a new number (the same one would be a task done at reset)
                t["phone"] = phone_number(rng)
                while t["phone"] == card["phone"]:
                    t["phone"] = phone_number(rng)
            if "email" in fields:
                t["email"] = email_address(rng, card["name"])
                while t["email"] == card["email"]:
                    t["email"] = email_address(rng, card["name"])
        elif kind == "fav":
            t["fav"] = not card["fav"]
        return t

    def _clause(self, rng: np.random.Generator, t: ContactTask, cards: list[Card], first: bool, last: bool) -> str:
        n = cards[t["person"]]["name"]
        if t["type"] == "ask":
            if first:
                return pick(rng, ASK_PHONE if t["field"] == "phone" else ASK_EMAIL).format(n=n)
            return TELL[t["field"]].format(n=n)  # type: ignore[index]
        if t["type"] == "edit":
            if t["phone"] is not None and t["email"] is not None:
                text = pick(rng, EDIT_BOTH).format(n=n, p=t["phone"], e=t["email"])
            else:
                f = "phone" if t["phone"] is not None else "email"
                text = pick(rng, EDIT_ONE).format(n=n, f=FIELD_NAMES[f], v=t[f])  # type: ignore[literal-required]
        elif t["type"] == "delete":
            text = pick(rng, DELETE).format(n=n)
        else:
            text = pick(rng, FAV_ON if t["fav"] else FAV_OFF).format(n=n)
        return text if first else text[0].lower() + text[1:]

    # --- progress --------------------------------------------------------------------------
    @staticmethod
    def _tasks(scenario: Scenario) -> list[ContactTask]:
        return cast(ContactsTask, scenario["task"])["tasks"]

    def _expected(self, scenario: Scenario) -> dict[int, Card]:
        """The address book the task asks for, by person id: the start's plus the changes."""
        out = {c["id"]: dict(c) for c in scenario["apps"][APP]["cards"]}
        for t in self._tasks(scenario):
            if t["type"] == "delete":
                out.pop(t["person"], None)
            elif t["type"] == "edit":
                out[t["person"]].update({k: t[k] for k in ("phone", "email") if t[k] is not None})
            elif t["type"] == "fav":
                out[t["person"]]["fav"] = bool(t["fav"])
        return out  # type: ignore[return-value]

    def _ask(self, scenario: Scenario) -> ContactTask | None:
        return next((t for t in self._tasks(scenario) if t["type"] == "ask"), None)

    def _fact(self, scenario: Scenario, t: ContactTask) -> str:
        return str(self._expected(scenario)[t["person"]][t["field"]])  # type: ignore[literal-required]

    def question(self, scenario: Scenario) -> bool:
        return self._ask(scenario) is not None

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each task of a known type about a person of the scenario's address book (a delete of a
        missing one loaded as done), a question about a field the person's screen shows."""
        ids = {c["id"] for c in scenario["apps"][APP]["cards"]}
        out: list[str] = []
        for i, t in enumerate(self._tasks(scenario)):
            w = f"$.task.tasks[{i}]"
            out += missing(f"{w}.type", t["type"], ("ask", "edit", "delete", "fav"), "Contacts task type")
            out += missing(f"{w}.person", t["person"], ids, "person of the scenario's Contacts")
            if t["type"] == "ask":
                out += missing(f"{w}.field", t["field"], ("phone", "email"), "field a person's screen shows")
        return out

    def _book_ok(self, scenario: Scenario, state: DeviceState) -> bool:
        have = {c["id"]: c for c in state["apps"][APP]["data"]["people"]}
        return have == self._expected(scenario)

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        if not self._book_ok(scenario, state) or calls_placed(state["apps"][APP]):
            return False
        ask = self._ask(scenario)
        if ask is None:
            return True
        from guigym.answers import answers_match

        return "answer" in state and answers_match(state["answer"], self._fact(scenario, ask))

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        if calls_placed(state["apps"][APP]):  # no undo
            return CALL_PLACED
        have = {c["id"] for c in state["apps"][APP]["data"]["people"]}
        if not set(self._expected(scenario)) <= have:  # no undo
            return "a contact that should stay was deleted"
        if "answer" not in state or self.success(scenario, state):
            return False
        ask = self._ask(scenario)
        return answer_failure(state, self._fact(scenario, ask) if ask is not None else None)

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        app_state = state["apps"][APP]
        have = {c["id"]: c for c in app_state["data"]["people"]}
        want = self._expected(scenario)
        # the instructed changes in order, then any other difference undone (list order)
        order = [t["person"] for t in self._tasks(scenario) if t["type"] != "ask"]
        order += [c["id"] for c in app_state["data"]["people"] if c["id"] not in order]
        for pid in order:
            if pid not in have or have[pid] == want.get(pid):
                continue
            if pid not in want:
                return self._towards(state, have[pid], Goal(APP, dialog_screen(pid), sub_id(dialog_screen(pid), "confirm"), "press"))
            card, goal = have[pid], want[pid]
            ed = editor_screen(pid)
            if (card["phone"], card["email"]) != (goal["phone"], goal["email"]):
                if app_state["stack"][-1] != ed:  # the Edit button pre-fills the editor
                    return self._towards(state, card, Goal(APP, person_screen(pid), sub_id(person_screen(pid), "edit"), "press"))
                for f in ("phone", "email"):
                    if app_state["values"].get(sub_id(ed, f)) != goal[f]:
                        return Goal(APP, ed, sub_id(ed, f), "set", goal[f])
                return Goal(APP, ed, sub_id(ed, "save"), "press")
            return self._towards(state, card, Goal(APP, person_screen(pid), fav_id(pid), "set", goal["fav"]))
        ask = self._ask(scenario)
        if ask is not None and "answer" not in state:
            card = have[ask["person"]]
            sid = person_screen(card["id"])
            return self._towards(state, card, Goal(APP, sid, sub_id(sid, ask["field"]), "answer", self._fact(scenario, ask)))  # type: ignore[arg-type]
        return None

    @staticmethod
    def _towards(state: DeviceState, card: Card, goal: Goal) -> Goal:
        """``goal``; but on the list, when it has a search field, first search for ``card``'s
        name (a long list is searched, not scrolled, and a stale query may hide them),
        unless the query already shows them alone or their row is on screen (``otherwise``)."""
        app_state = state["apps"][APP]
        if app_state["stack"] != ["main"] or "search" not in app_state["values"]:
            return goal
        query = str(app_state["values"]["search"]).strip().casefold()
        shown = [c["id"] for c in app_state["data"]["people"] if query in c["name"].casefold()]
        if query != card["name"].casefold() and shown != [card["id"]]:
            return replace(goal, otherwise=Goal(APP, "main", "search", "set", card["name"]))
        return goal
