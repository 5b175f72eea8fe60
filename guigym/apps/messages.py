"""Messages: send, reply, resend and delete text conversations, and answer from them.

Description:
    A Messages app: a list of conversations, most recent first (each row: the contact's name,
    "• " before it while unread, and "time · last message" under it), a "New message" button,
    one screen per conversation (the messages as rows, "Alice: …" for theirs and "You: …" for
    yours, a failed one in red, "(Not delivered)", with a Retry button under it; then a Message
    field, Send and "Delete conversation"), a new-message screen (a "To" row that opens a
    contact picker, a Message field, Send; it keeps its draft until sent) and a confirmation dialog for the delete
    ("Delete this conversation?" with Cancel / Delete). Names come from the catalog's
    24 x 19 = 456 first/last pairs; messages from templates with slots (16 things, 12 events,
    8 days), addresses from 1-998 x 16 streets x 6 kinds (95,808), suggested times from 12 x 4
    x 2 = 96 clock times, the in-app time and the conversations' times from the seed. With
    ``language="de"`` the texts are German, from the same draws (``guigym.i18n.de_content.messages``:
    "Danke für die Fotos!", addresses as "Eichenweg 12"; times as the apps show them).
    Distinct instances: at easy alone, C(456, 3) > 1.5e7 sets of conversation partners before
    any message, time or task is drawn, so the generator yields far more scenarios than a run
    can see.
Instruction:
    'Send "Thanks for the tickets!" to Grace Hill', 'Reply "See you tonight" to the most recent
    conversation', "Resend the message to Bob Lee that was not delivered", "Delete the
    conversation with Zoe King", "What address did Alice Smith send?", "What time did Bob Lee
    suggest?"; at hard two of them joined ('Send "…" to Zoe King, then delete the conversation
    with Bob Lee.'), a question or a delete always second.
Actions:
    Click, Scroll, Back, OpenApp, Type and Answer (``type`` is ``Discrete(6)``, as in
    Contacts). Answer ends an information task; in a task that asks nothing it is a no-op with
    an ``action_error``.
Levels:
    * easy: 3-5 conversations of 1-3 messages, 3-4 more contacts (6-9 in all) (every screen fits), one task.
    * medium: 10-14 conversations of 2-5 messages (Scroll), 4-7 more contacts, stale drafts left in
      some Message fields (the target's, half the time: Send it unchanged and the task fails),
      a failed message elsewhere half the time (Retry it and the task fails), one task.
    * hard: 16-22 conversations of 3-8 messages, 8-11 more contacts (24-33), two tasks chained on two
      people, the second a delete (through the dialog) or a question. The template "send to
      someone without a conversation, then delete a conversation far down the list" has a
      reference of at least 15 steps from reset (the contact is low in the picker, the
      conversation low in the list and long: 15-19 steps on each of the 83 such seeds
      among 0-299); the others 5-15.
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when the conversations equal the ones at the start plus exactly the instructed
    changes, compared per contact as (sent by you, text, not delivered) message lists (read
    marks, drafts, times and list order are not compared; a sent text is compared as stored,
    stripped of surrounding spaces) and, for a question, the answer matches the fact after
    :func:`guigym.answers.answers_match`'s normalisation (so "7:30 PM" = "19:30"; an address is
    text). Failure (terminated) when that can no longer happen: a message that should not be
    there (an extra one, one to the wrong person, a stale draft sent), a conversation deleted
    that should stay, a failed message resent that the task did not ask for, or an answer that
    does not make the task a success.
Registered ids:
    ``GuiGym-Messages-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import Widget, id_problems, register_app, row
from guigym.apps.catalog import ICON_COLORS
from guigym.apps.family import CONVERSATION_DELETED, NEW_CONVERSATION, WRONG_MESSAGES, Family, Goal, pick, sample, theme
from guigym.apps.family import answer_failure, missing
from guigym.apps.permission import ContactsGate, permission_goal
from guigym.apps.schema import AppSpec, AppState, DeviceState, Scenario, Task, Thread, record_id, sub_id
from guigym.apps.tools import PEOPLE, time_label
from guigym.events import Event
from guigym.i18n.content import tables

APP = "Messages"
NEW, PICK = "new", "pick"  # the new-message screen and its contact picker
TO = "new.to"  # the value holding the picked recipient
#: (conversations, messages per conversation, contacts without a conversation) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], tuple[int, int], tuple[int, int]]] = {
    "easy": ((3, 5), (1, 3), (3, 4)), "medium": ((10, 14), (2, 5), (4, 7)), "hard": ((16, 22), (3, 8), (8, 11)),
}
THINGS = ("tickets", "keys", "photos", "charger", "umbrella", "receipt", "book", "cake", "map", "notes", "invoice", "snacks",
          "blanket", "camera", "headphones", "recipe")
EVENTS = ("concert", "game", "party", "meeting", "dinner", "interview", "trip", "class", "match", "wedding", "show", "hike")
DAYS = ("tomorrow", "tonight", "on Monday", "on Tuesday", "on Friday", "this weekend", "next week", "on Sunday")
#: Small talk: no digits (no message but a fact message holds an address or a time) and no
#: apostrophes (plans quote a text to type in single quotes).
CHAT = (
    "Did you see the {thing}?", "Thanks for the {thing}!", "Can you bring the {thing}?", "I found the {thing}",
    "Do not forget the {thing}", "How was the {event}?", "Are you coming to the {event}?", "The {event} was great",
    "Running a bit late", "Sounds good", "Call me later", "See you {day}", "Good luck with the {event}!",
    "Where did you put the {thing}?", "I will send the {thing} {day}", "Got it, thanks", "Can we talk {day}?",
    "Let me check and get back to you", "I will bring the {thing} {day}", "Who is going to the {event}?",
)
STREETS = ("Oak", "Maple", "Cedar", "Pine", "Elm", "Lake", "Hill", "Park", "River", "Mill", "Church", "Main", "Bay", "Forest",
           "Spring", "Sunset")
STREET_KINDS = ("Street", "Avenue", "Road", "Lane", "Drive", "Court")
#: An address from its house number, street and street kind (German puts the number last).
ADDRESS = "{n} {street} {kind}"
#: A suggested time by half of the day and hour (1-12), its minutes ``{m}`` to fill in ('7:{m} PM').
CLOCK: dict[str, tuple[str, ...]] = {ap: tuple(f"{h}:{{m}} {ap}" for h in range(1, 13)) for ap in ("AM", "PM")}
SAY_ADDRESS = ("Meet me at {a}", "The party is at {a}", "My new address is {a}", "I am at {a} now", "Come over to {a}")
SAY_TIME = ("How about {t}?", "Shall we meet at {t}?", "Can we do {t} instead?", "Dinner at {t}?", "I will be there at {t}")
SEND = ('Send "{x}" to {n}', 'Text {n}: "{x}"', 'Message {n} "{x}"')
REPLY = ('Reply "{x}" to the most recent conversation', 'Answer the latest conversation with "{x}"')
RESEND = ("Resend the message to {n} that was not delivered", "Retry the failed message to {n}")
DELETE = ("Delete the conversation with {n}", "Remove your conversation with {n}")
ASK = {"address": ("What address did {n} send?", "Which address did {n} give you?"),
       "time": ("What time did {n} suggest?", "Which time did {n} propose?")}
JOINS = (", then ", ". Then ", "; after that, ")
WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
#: A message is its text after one mark (plain strings: a state copy per step stays cheap).
THEIRS, MINE, FAILED = "<", ">", "!"  # from them; from you; from you, not delivered (Retry sends it)
LONG = 8  # messages of the long conversation the >= 15-step template deletes


class MessageTask(TypedDict):
    type: str  # "send", "reply", "resend", "delete" or "ask"
    name: str  # the contact
    text: str | None  # send / reply: the message
    index: int | None  # resend: the failed message; ask: the message holding the fact
    field: str | None  # ask: "address" / "time"
    fact: str | None  # ask: the answer


class MessagesTask(Task):
    tasks: list[MessageTask]  # in the instruction's order


Book = dict[str, list[str]]  # contact -> their conversation's messages


# --- screens and ids -------------------------------------------------------------------------
def thread_screen(tid: int) -> str:
    """A conversation's screen (and its link on the list), by ``Thread["id"]``.

    >>> thread_screen(3), dialog_screen(3), thread_of("t:3"), thread_of("d:3"), thread_of("new")
    ('t:3', 'd:3', 3, 3, None)
    """
    return f"t:{tid}"


def dialog_screen(tid: int) -> str:
    """The "Delete this conversation?" dialog of a conversation."""
    return f"d:{tid}"


def thread_of(sid: str) -> int | None:
    return record_id(sid, "t", "d")


def bubble_id(tid: int, k: int) -> str:
    return sub_id(thread_screen(tid), f"m{k}")


def retry_id(tid: int, k: int) -> str:
    return sub_id(thread_screen(tid), f"retry{k}")


def pick_id(k: int) -> str:
    """The picker's radio row of the ``k``-th contact (``spec["contacts"]`` order)."""
    return f"to:{k}"


def _by_name(threads: list[Thread], name: str) -> Thread | None:
    return next((t for t in threads if t["name"] == name), None)


def _by_id(threads: list[Thread], tid: int) -> Thread | None:
    return next((t for t in threads if t["id"] == tid), None)


# --- the app ---------------------------------------------------------------------------------
@register_app
class Messenger(ContactsGate):
    """``data["threads"]``: the conversations, most recent first; ``data["next"]``: the next
    new conversation's id. Conversation and dialog screens are made on the fly from them.
    Gated by the contacts permission (``guigym.apps.permission``), the prompt shows when the
    app opens or when the contact picker does; until allowed the picker lists nobody."""

    kind = "messenger"
    dialog_prefix = "d:"  # the delete confirmation
    contacts_use = "Choose who to message from your contacts"

    def initial_state(self, spec: AppSpec) -> AppState:
        state = super().initial_state(spec)
        state["data"]["threads"] = [{**t, "msgs": list(t["msgs"])} for t in spec["threads"]]
        state["data"]["next"] = 1 + max((t["id"] for t in spec["threads"]), default=-1)
        state["values"].update({TO: "", "new.text": "", "new.error": ""})
        self.gate_state(spec, state)
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """Threads (the scenario's and the state's) with unique ids >= 0 (below ``next``), a
        name with a word (a bubble from them shows the first) and each message a marker ("<",
        ">" or "!") then its text."""
        out = super().state_problems(spec, state)
        for where, threads, nxt in (("spec.threads", spec["threads"], None),
                                    ("data.threads", state["data"]["threads"], state["data"]["next"])):
            out += id_problems(threads, where, next_id=nxt)
            for i, t in enumerate(threads):
                if not t["name"].split():
                    out.append(f"{where}[{i}].name: {t['name']!r:.40} has no word")
                k = next((k for k, m in enumerate(t["msgs"]) if m[:1] not in (THEIRS, MINE, FAILED)), None)
                if k is not None:
                    out.append(f"{where}[{i}].msgs[{k}]: {t['msgs'][k]!r:.40} does not start with {THEIRS!r}, {MINE!r} or {FAILED!r}")
        return out

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        tid = thread_of(sid)
        if tid is None:
            return super().parent(spec, sid)
        return "main" if sid.startswith("t:") else thread_screen(tid)

    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        tid = thread_of(sid)
        if tid is None:
            return super().title(spec, state, sid)
        t = _by_id(state["data"]["threads"], tid)
        return "Delete this conversation?" if sid.startswith("d:") else t["name"] if t else "Conversation"

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        vals = state["values"]
        if sid == PICK and not self.contacts_allowed(spec, state):  # gated: nobody to pick
            return self.blocked_rows(spec, PICK)
        if sid == PICK:  # every contact, alphabetical; picking one closes the picker
            return [Widget(pick_id(k), "radio", n, value=vals.get(TO) == n, group=TO, option=n)
                    for k, n in enumerate(spec["contacts"])]
        if sid == NEW:
            err = vals.get("new.error", "")
            return [
                Widget("new.pick", "link", "To", detail=vals.get(TO) or "Choose a contact", to=PICK),
                Widget("new.text", "input", "Message", value=vals.get("new.text", ""), placeholder="Text message"),
                *([Widget("new.error", "label", err, style="error")] if err else []),
                Widget("new.send", "button", "Send", action="send_new", style="primary"),
            ]
        tid = thread_of(sid)
        if tid is None:
            out = super().rows(spec, state, sid)
            if sid == "main":
                out += [Widget(thread_screen(t["id"]), "link", ("\u2022 " if t["unread"] else "") + t["name"],
                               detail=f"{t['time']} \u00b7 {_preview(t)}", to=thread_screen(t["id"]))
                        for t in state["data"]["threads"]]
            return out
        t = _by_id(state["data"]["threads"], tid)
        if t is None:
            return []
        if sid.startswith("d:"):
            return [
                Widget(sub_id(sid, "dialog"), "dialog", "Delete this conversation?", detail="This cannot be undone."),
                Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
                Widget(sub_id(sid, "confirm"), "button", "Delete", action="confirm", style="danger"),
            ]
        first = t["name"].split()[0]
        out = []
        for k, m in enumerate(t["msgs"]):
            if m[0] == FAILED:
                out += [Widget(bubble_id(tid, k), "label", f"You: {m[1:]} (Not delivered)", style="error", span=0),
                        Widget(retry_id(tid, k), "button", "Retry", action="retry")]
            else:
                mine = m[0] == MINE
                out.append(Widget(bubble_id(tid, k), "label", f"{'You' if mine else first}: {m[1:]}", style="muted" if mine else "",
                                  span=0))  # a long message wraps onto more rows (guigym.layout)
        err = vals.get(sub_id(sid, "error"), "")
        return [
            *out,
            Widget(sub_id(sid, "compose"), "input", "Message", value=vals.get(sub_id(sid, "compose"), ""), placeholder="Text message"),
            *([Widget(sub_id(sid, "error"), "label", err, style="error")] if err else []),
            Widget(sub_id(sid, "send"), "button", "Send", action="send", style="primary"),
            Widget(sub_id(sid, "delete"), "button", "Delete conversation", to=dialog_screen(tid), action="delete"),
        ]

    def on_event(self, spec: AppSpec, state: AppState, ev: Event, w: Widget | None) -> None:
        opened = state["stack"][-1] != PICK
        super().on_event(spec, state, ev, w)
        if opened and state["stack"][-1] == PICK:
            self.ask_first(spec, state)  # the picker needs the contacts: ask first (gated, undecided)
        tid = thread_of(state["stack"][-1])
        if tid is not None:  # an opened conversation is read
            t = _by_id(state["data"]["threads"], tid)
            if t is not None and t["unread"]:
                t["unread"] = False

    def picks_contact(self, spec: AppSpec, goal: Goal) -> bool:
        return goal.screen == PICK

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        sid = state["stack"][-1]
        vals = state["values"]
        data = state["data"]
        now = spec["now"]
        if w.action == "new":  # the new-message screen keeps its draft until it is sent
            self.push(state, NEW)
            return
        if self.answer_prompt(state, w):  # the permission prompt: decided, it does not come back
            return
        if w.action == "send_new":
            text, name = str(vals.get("new.text", "")).strip(), str(vals.get(TO, ""))
            if not name or not text:
                vals["new.error"] = "Choose a contact" if not name else "Type a message"
                return
            t = _by_name(data["threads"], name)
            if t is None:  # a new conversation
                t = {"id": data["next"], "name": name, "time": now, "unread": False, "msgs": []}
                data["next"] += 1
                data["threads"].insert(0, t)
            _append(data, t, text, now)
            vals.update({TO: "", "new.text": "", "new.error": ""})
            state["stack"][1:] = [thread_screen(t["id"])]  # the conversation, over the list
            state["focus"] = None
            return
        tid = thread_of(sid)
        t = _by_id(data["threads"], tid) if tid is not None else None
        if t is None:
            return
        if w.action == "send":
            key = sub_id(sid, "compose")
            text = str(vals.get(key, "")).strip()
            if not text:
                vals[sub_id(sid, "error")] = "Type a message"
                return
            _append(data, t, text, now)
            vals.update({key: "", sub_id(sid, "error"): ""})
            state["focus"] = None
        elif w.action == "retry":  # delivered now, where it stood
            k = int(w.id.rsplit("retry", 1)[1])
            t["msgs"][k] = MINE + t["msgs"][k][1:]
        elif w.action == "delete":
            self.push(state, dialog_screen(t["id"]))
        elif w.action == "cancel":
            self.pop(state)
        elif w.action == "confirm":  # gone for good: back to the list
            data["threads"] = [x for x in data["threads"] if x["id"] != t["id"]]
            del state["stack"][1:]
            state["focus"] = None


def _append(data: dict[str, Any], t: Thread, text: str, now: str) -> None:
    """Send ``text`` in ``t``: it moves to the top of the list."""
    t["msgs"].append(MINE + text)
    t["time"] = now
    data["threads"] = [t, *(x for x in data["threads"] if x is not t)]


def _preview(t: Thread) -> str:
    if not t["msgs"]:
        return ""
    m = t["msgs"][-1]
    return ("" if m[0] == THEIRS else "You: ") + m[1:]


# --- generation ------------------------------------------------------------------------------
# Content comes from ``tables(__name__)``: this module's tables, or German ones inside
# ``generating_in("de")`` (Phone and CrossApp call these too, and get their language's).
def chat(rng: np.random.Generator) -> str:
    T = tables(__name__)
    return pick(rng, T.CHAT).format(thing=pick(rng, T.THINGS), event=pick(rng, T.EVENTS), day=pick(rng, T.DAYS))


def address(rng: np.random.Generator) -> str:
    T = tables(__name__)
    n = int(rng.integers(1, 999))  # drawn in this order: number, street, kind
    street = pick(rng, T.STREETS)
    return T.ADDRESS.format(n=n, street=street, kind=pick(rng, T.STREET_KINDS))


def clock_time(rng: np.random.Generator) -> str:
    """A time someone suggests: '7:30 PM' (hours 1-12, quarter hours, AM/PM)."""
    h = int(rng.integers(1, 13))
    m = pick(rng, ("00", "15", "30", "45"))
    return tables(__name__).CLOCK[pick(rng, ("AM", "PM"))][h - 1].format(m=m)


def fact_message(rng: np.random.Generator, field: str) -> tuple[str, str]:
    """(message text, the fact in it)."""
    T = tables(__name__)
    fact = address(rng) if field == "address" else clock_time(rng)
    return pick(rng, T.SAY_ADDRESS if field == "address" else T.SAY_TIME).format(a=fact, t=fact), fact


def when(now: int, age: int) -> str:
    """How the list shows a message ``age`` minutes before ``now`` (minutes after midnight on a Wednesday)."""
    t = now - age
    if t >= 0:
        return time_label(t)
    return "Yesterday" if t >= -1440 else WEEKDAYS[(2 + t // 1440) % 7]


class MessagesFamily(Family):
    name = "Messages"
    description = "Text conversations: send, reply, resend a failed message, delete (dialog), answer what someone sent."
    apps = (APP,)
    task_type = MessagesTask
    asks_questions = True
    permission_apps = (APP,)
    _memo: tuple[Scenario, Book] | None = None
    #: The tasks' types in the instruction's order ("send_new": to someone without a conversation).
    templates = {"easy": ("send", "send_new", "reply", "resend", "delete", "ask"),
                 "medium": ("send", "send_new", "reply", "resend", "delete", "ask"),
                 "hard": tuple(f"{a}+{b}" for a in ("send_new", "send", "reply", "resend") for b in ("delete", "ask"))}

    def template(self, scenario: Scenario) -> str:
        have = {t["name"] for t in scenario["apps"][APP]["threads"]}
        return "+".join("send_new" if t["type"] == "send" and t["name"] not in have else t["type"] for t in self._tasks(scenario))

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        (tlo, thi), (mlo, mhi), (clo, chi) = LEVEL_SIZES[level]
        n_threads = int(rng.integers(tlo, thi + 1))
        n_contacts = n_threads + int(rng.integers(clo, chi + 1))
        if level == "hard":
            first = pick(rng, ("send_new", "send_new", "send", "reply", "resend"))
            second = "delete" if first == "send_new" and rng.random() < 0.5 else pick(rng, ("delete", "ask"))
            kinds = [first, second]
        else:
            kinds = [pick(rng, ("send", "send_new", "reply", "resend", "delete", "ask", "ask"))]
        long_delete = kinds == ["send_new", "delete"]
        contacts = sorted(sample(rng, PEOPLE, n_contacts))
        # "send_new" is to someone without a conversation (for the long template: low in the picker)
        new_to = pick(rng, contacts[15:] if long_delete else contacts) if "send_new" in kinds else None
        partners = sample(rng, [n for n in contacts if n != new_to], n_threads)  # in list order, most recent first
        names: list[str] = []  # who each task is about: distinct people
        for k in kinds:
            if k == "send_new":
                names.append(new_to)  # type: ignore[arg-type]
            elif k == "reply":
                names.append(partners[0])
            else:
                pool = [n for n in partners if n not in names]
                if long_delete:
                    pool = [n for n in partners[13:] if n not in names]
                names.append(pick(rng, pool))
        now = int(rng.integers(13 * 60, 21 * 60))
        ages = sorted(sample(rng, range(1, 5 * 1440), n_threads))
        threads: list[Thread] = []
        for i, n in enumerate(partners):
            count = LONG if long_delete and n == names[1] else int(rng.integers(mlo, mhi + 1))
            msgs = [(MINE if rng.random() < 0.5 else THEIRS) + chat(rng) for _ in range(count)]
            msgs[0] = THEIRS + msgs[0][1:]  # every conversation has something from them: deleting it cannot be undone
            threads.append({"id": i, "name": n, "time": when(now, ages[i]), "unread": bool(rng.random() < 0.3), "msgs": msgs})
        tasks = [self._task(rng, k, n, threads) for k, n in zip(kinds, names)]
        if level != "easy":
            self._distract(rng, threads, names)
        text = "".join((pick(rng, JOINS) if i else "") + self._clause(rng, t, first=i == 0) for i, t in enumerate(tasks))
        if not text.endswith(("?", ".")):
            text += "."
        spec: AppSpec = {
            "kind": "messenger", "name": APP, "root": "main", "color": list(pick(rng, ICON_COLORS)),
            "threads": threads, "contacts": contacts, "now": time_label(now),
            "screens": {
                "main": {"title": pick(rng, ("Messages", "Chats", "Conversations")), "parent": None, "rows": [
                    row("new", "button", pick(rng, ("New message", "Start chat", "Compose")), to=NEW, action="new", style="primary"),
                ]},
                NEW: {"title": "New message", "parent": "main", "rows": []},
                PICK: {"title": "Choose a contact", "parent": NEW, "rows": [], "pop_on_select": True},
            },
        }
        values: dict[str, dict[str, Any]] = {}
        if level != "easy":  # stale drafts someone left (the target's, half the time)
            drafts = {sub_id(thread_screen(t["id"]), "compose"): chat(rng) for t in threads if rng.random() < 0.2}
            target = _by_name(threads, names[0])
            if target is not None and rng.random() < 0.5:
                drafts[sub_id(thread_screen(target["id"]), "compose")] = chat(rng)
            texts = {t["text"] for t in tasks}
            for k, d in drafts.items():  # a draft is never the text to send (that would make Send alone right)
                while d in texts:
                    d = drafts[k] = chat(rng)
            if drafts:
                values[APP] = drafts
        task: MessagesTask = {"instruction": text, "tasks": tasks}
        return {
            "family": self.name, "level": level, "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]},
            "theme": theme(rng), "start": {"fg": APP, "values": values}, "task": task,
        }

    def _task(self, rng: np.random.Generator, kind: str, name: str, threads: list[Thread]) -> MessageTask:
        t: MessageTask = {"type": "send" if kind == "send_new" else kind, "name": name, "text": None, "index": None, "field": None,
                          "fact": None}
        th = _by_name(threads, name)
        if kind in ("send", "send_new", "reply"):
            t["text"] = chat(rng)
        elif kind == "resend":  # its last message failed
            assert th is not None
            th["msgs"].append(FAILED + chat(rng))
            t["index"] = len(th["msgs"]) - 1
        elif kind == "ask":  # one message from them holds the fact
            assert th is not None
            field = pick(rng, ("address", "time"))
            msg, fact = fact_message(rng, field)
            k = int(rng.integers(0, len(th["msgs"]) + 1))
            th["msgs"].insert(k, THEIRS + msg)
            t.update({"index": k, "field": field, "fact": fact})
        return t

    @staticmethod
    def _distract(rng: np.random.Generator, threads: list[Thread], names: list[str]) -> None:
        """Facts and a failed message in conversations the task is not about."""
        free = [t for t in threads if t["name"] not in names]
        for t in free:
            if rng.random() < 0.25:
                t["msgs"].append(THEIRS + fact_message(rng, pick(rng, ("address", "time")))[0])
        if free and rng.random() < 0.5:
            pick(rng, free)["msgs"].append(FAILED + chat(rng))

    @staticmethod
    def _clause(rng: np.random.Generator, t: MessageTask, first: bool) -> str:
        n = t["name"]
        if t["type"] == "ask":
            text = pick(rng, ASK[t["field"]]).format(n=n)  # type: ignore[index]
        elif t["type"] == "send":
            text = pick(rng, SEND).format(n=n, x=t["text"])
        elif t["type"] == "reply":
            text = pick(rng, REPLY).format(x=t["text"])
        elif t["type"] == "resend":
            text = pick(rng, RESEND).format(n=n)
        else:
            text = pick(rng, DELETE).format(n=n)
        if not first:
            text = _tell(t) if t["type"] == "ask" else text[0].lower() + text[1:]
        return text

    # --- progress --------------------------------------------------------------------------
    @staticmethod
    def _tasks(scenario: Scenario) -> list[MessageTask]:
        return cast(MessagesTask, scenario["task"])["tasks"]

    @staticmethod
    def _book(threads: list[Thread]) -> Book:
        return {t["name"]: t["msgs"] for t in threads}

    def _start(self, scenario: Scenario) -> Book:
        return self._book(scenario["apps"][APP]["threads"])

    def _expected(self, scenario: Scenario) -> Book:
        """The conversations the task asks for: the start's plus the changes (memoised for the
        last scenario, by identity: success is checked on every step; never mutate it)."""
        memo = self._memo
        if memo is not None and memo[0] is scenario:
            return memo[1]
        out = {k: list(v) for k, v in self._start(scenario).items()}
        for t in self._tasks(scenario):
            if t["type"] in ("send", "reply"):
                out[t["name"]] = [*out.get(t["name"], []), MINE + str(t["text"])]
            elif t["type"] == "resend":
                out[t["name"]][t["index"]] = MINE + out[t["name"]][t["index"]][1:]  # type: ignore[index]
            elif t["type"] == "delete":
                out.pop(t["name"], None)
        self._memo = (scenario, out)
        return out

    def _ask(self, scenario: Scenario) -> MessageTask | None:
        return next((t for t in self._tasks(scenario) if t["type"] == "ask"), None)

    def question(self, scenario: Scenario) -> bool:
        return self._ask(scenario) is not None

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each task of a known type about a conversation of the scenario (a delete of a missing
        one loaded as done; a send may start one with a name of the contact picker), a resend of a
        failed message of yours, a question about a message of theirs that holds the fact."""
        spec = scenario["apps"][APP]
        book = {t["name"]: t["msgs"] for t in spec["threads"]}
        out: list[str] = []
        for i, t in enumerate(self._tasks(scenario)):
            w, k = f"$.task.tasks[{i}]", t["type"]
            out += missing(f"{w}.type", k, ("send", "reply", "resend", "delete", "ask"), "Messages task type")
            if k == "send":
                out += missing(f"{w}.name", t["name"], [*book, *spec["contacts"]], "conversation or contact of the scenario's Messages")
            elif k in ("reply", "resend", "delete", "ask"):
                out += missing(f"{w}.name", t["name"], book, "conversation of the scenario's Messages")
            if k in ("resend", "ask") and t["name"] in book:
                msgs, j, head = book[t["name"]], t["index"], FAILED if k == "resend" else THEIRS
                if not (isinstance(j, int) and 0 <= j < len(msgs) and msgs[j][:1] == head):
                    which = "not delivered" if k == "resend" else "from them"
                    out.append(f"{w}.index: {j!r:.40} is no message of the conversation {which}")
                elif k == "ask" and str(t["fact"]) not in msgs[j]:
                    out.append(f"{w}.fact: {t['fact']!r:.40} is not in the message it is about")
        return out

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        if self._book(state["apps"][APP]["data"]["threads"]) != self._expected(scenario):
            return False
        ask = self._ask(scenario)
        if ask is None:
            return True
        from guigym.answers import answers_match

        return "answer" in state and answers_match(state["answer"], str(ask["fact"]))

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        have = self._book(state["apps"][APP]["data"]["threads"])
        want, start = self._expected(scenario), self._start(scenario)
        if any(n not in want and n not in start for n in have):
            return NEW_CONVERSATION
        for n, w in want.items():
            h = have.get(n)
            if h != w and not _reachable(h or [], w):  # a deleted conversation is no message sent
                return WRONG_MESSAGES if h is not None else CONVERSATION_DELETED
        if "answer" not in state or self.success(scenario, state):
            return False
        ask = self._ask(scenario)
        return answer_failure(state, str(ask["fact"]) if ask is not None else None)

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        goal = self._goal(scenario, state)
        return permission_goal(scenario, state, APP, goal, self._needs_contacts(scenario))

    def _needs_contacts(self, scenario: Scenario) -> bool:
        """Whether the task sends to someone without a conversation (through the contact picker)."""
        have = {t["name"] for t in scenario["apps"][APP]["threads"]}
        return any(t["type"] == "send" and t["name"] not in have for t in self._tasks(scenario))

    def _goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        app_state = state["apps"][APP]
        threads: list[Thread] = app_state["data"]["threads"]
        have, want = self._book(threads), self._expected(scenario)
        # the instructed changes in order, then any other difference (list order)
        order = [t["name"] for t in self._tasks(scenario) if t["type"] != "ask"] + list(have)
        for name in order:
            h, w = have.get(name), want.get(name)
            if h == w:
                continue
            if w is None:  # to delete
                tid = _by_name(threads, name)["id"]  # type: ignore[index]
                return Goal(APP, dialog_screen(tid), sub_id(dialog_screen(tid), "confirm"), "press")
            h = h or []
            bad = next((k for k in range(len(h)) if h[k] != w[k]), None)
            if bad is not None:  # a failed message to resend
                tid = _by_name(threads, name)["id"]  # type: ignore[index]
                return Goal(APP, thread_screen(tid), retry_id(tid, bad), "press")
            return self._send(app_state, scenario["apps"][APP]["contacts"], name, w[len(h)][1:])
        ask = self._ask(scenario)
        if ask is not None and "answer" not in state:
            th = _by_name(threads, ask["name"])
            assert th is not None
            tid = th["id"]
            goal = Goal(APP, thread_screen(tid), bubble_id(tid, ask["index"]), "answer", ask["fact"])  # type: ignore[arg-type]
            if ask["index"] != len(th["msgs"]) - 1 or thread_screen(tid) in app_state["stack"]:
                return goal
            # the last message is the conversation's preview in the list: read off its row where
            # that row is on screen and shows the fact whole (guigym.oracle.ground), else opened
            return Goal(APP, "main", thread_screen(tid), "answer", ask["fact"], otherwise=goal, read_off=True)
        return None

    @staticmethod
    def _send(app_state: AppState, contacts: list[str], name: str, text: str) -> Goal:
        """The next step of sending ``text`` to ``name``: in their conversation, else from New message."""
        vals = app_state["values"]
        th = _by_name(app_state["data"]["threads"], name)
        if th is not None:
            sid = thread_screen(th["id"])
            if vals.get(sub_id(sid, "compose")) != text:
                return Goal(APP, sid, sub_id(sid, "compose"), "set", text)
            return Goal(APP, sid, sub_id(sid, "send"), "press")
        if vals.get(TO) != name:
            return Goal(APP, PICK, pick_id(contacts.index(name)), "press")
        if vals.get("new.text") != text:
            return Goal(APP, NEW, "new.text", "set", text)
        return Goal(APP, NEW, "new.send", "press")


def _reachable(have: list[str], want: list[str]) -> bool:
    """Whether sending and Retry can turn ``have`` into ``want``: a prefix of it, up to failed
    messages that ``want`` has delivered, the rest messages of yours."""
    if len(have) > len(want):
        return False
    if any(h != w and (h[0] != FAILED or w[0] != MINE or h[1:] != w[1:]) for h, w in zip(have, want)):
        return False
    return all(m[0] == MINE for m in want[len(have):])


def _tell(t: MessageTask) -> str:
    """A question as the second clause: "tell me what address Bob Lee sent"."""
    verb = "sent" if t["field"] == "address" else "suggested"
    return f"tell me what {t['field']} {t['name']} {verb}"
