"""Mail: compose, reply, forward, search, archive and delete e-mails, and answer from them.

Description:
    An e-mail app: tabs for the mailboxes (Inbox, Sent, Archive, Trash; all but the inbox are
    read-only lists), a Compose button, a Search field (a search row) that filters the list
    (the query against sender and subject, case-insensitive), on the inbox a Select button,
    then the mails, most recent first (each row: the sender, "• " before it while unread, and
    "time · subject" under it). A mail's screen shows "From: sender · time", the body, and
    Reply, Forward, Archive and Delete; Reply opens a reply (To and "Re: subject" fixed, a
    multi-line Message field, Send), Forward a forward (a To dropdown, "Fwd: subject", Send:
    the body goes as it is), Delete asks first in a confirmation dialog ("Delete this mail?"
    with Cancel / Delete over the dimmed mail), Archive moves the mail at once. Select opens
    the select mode: a checkbox per inbox mail (whatever the query), Archive and Delete (the
    dialog, "Delete 3 mails?") acting on the ticked ones. Compose has a To dropdown (a select
    over the contacts, alphabetical; a long list scrolls), a Subject field, a multi-line
    Message field and Send; it keeps its draft until sent. Nothing leaves the archive or the
    trash. Names come from the catalog's 24 x 19 = 456 first/last pairs; subjects from 24
    templates with slots (8 teams, 10 places, 12 months, 7 days, 6 events, 9,000 numbers),
    bodies from sentences per topic, meeting times from 96 clock times, the in-app time and
    the mails' times from the seed. Distinct instances: at easy alone, C(456, 5) > 1.5e11
    sets of contacts before any mail, subject, time or task is drawn.
    With ``guigym.variation``'s ``permission`` axis the To dropdowns need the contacts
    permission: "Allow Mail to access your contacts?" when Mail opens, or in place of the first
    To dropdown clicked; after Don't allow they list nobody until the Contacts switch in Mail's
    settings (a "Settings" link on the inbox) is on (``guigym.apps.permission``).
Instruction:
    'Email Bob Lee with the subject "Quick question" and the text "Are you free on Friday?"',
    'Reply "Sounds good to me" to the mail from Bob Lee about "Lunch on Friday"', 'Forward the
    mail from Bob Lee about "Invoice #4821" to Zoe King', 'Archive the mail from Bob Lee about
    "Photos from Rome"', 'Search the inbox for "invoice" and delete the mail from Bob Lee',
    "Delete every mail from Bob Lee", 'Archive every mail with "order" in the subject', "What
    time does the meeting in Bob Lee's last mail start?", 'Who sent the mail about "Order 4821
    shipped"?'; at hard two of them joined ("…, then delete every mail from Bob Lee."), a
    question always second.
Actions:
    Click, Scroll, Back, OpenApp, Type and Answer (``type`` is ``Discrete(6)``, as in
    Messages). Answer ends an information task; in a task that asks nothing it is a no-op with
    an ``action_error``.
Levels:
    * easy: 4-6 inbox mails, 5-7 contacts, every screen fits (the To dropdown too), one task.
    * medium: 12-18 inbox mails (Scroll), 10-15 contacts; distractor mails with the same
      subject from someone else (a forwarded mail's with another body: a forward is compared by
      its recipient, subject and text) and a similar subject from the same sender, meeting mails
      with other times; sometimes a stale query in the Search field or a stale Compose draft;
      one task.
    * hard: 18-26 inbox mails, 24-32 contacts, two tasks chained, the second a rule over
      several mails (archive or delete every mail from someone / with a word in the subject),
      a single delete, or a question. The template "compose to a contact low in the picker,
      then delete every mail from someone whose three mails are low in the inbox" has a
      reference of at least 15 steps from reset (16-26 on each of the 50 such seeds among
      0-299); the others 5-27.
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when the mailboxes (inbox, sent, archive, trash as (sender or recipient, subject,
    body) records) equal the ones at the start plus exactly the instructed change (read marks,
    drafts, the search query and ticks are not compared; typed text is compared stripped of
    surrounding spaces), for "open" when the mail is on screen, and for a question when the
    answer matches the fact after :func:`guigym.answers.answers_match`'s normalisation ("10:30
    AM" = "10:30"). Failure (terminated) when that can no longer happen: a mail sent that the
    task does not ask for (an extra one, a wrong recipient, subject or text), a mail archived or
    deleted that should stay (or archived instead of deleted), or an answer that does not make
    the task a success.
Registered ids:
    ``GuiGym-Mail-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import Widget, id_problems, register_app, row
from guigym.apps.catalog import ICON_COLORS
from guigym.apps.dates import MONTH_NAMES, WEEKDAY_NAMES
from guigym.apps.family import MAIL_MOVED, MAIL_SENT, Family, Goal, answer_failure, missing, pick, sample, theme
from guigym.apps.permission import APP_SETTINGS, PERM, ContactsGate, permission_goal
from guigym.apps.schema import AppSpec, AppState, DeviceState, MailRecord, Scenario, Task, record_id, sub_id
from guigym.apps.tools import PEOPLE, time_label
from guigym.apps.widgets import search_row, select_row, tabs_row, textarea_row
from guigym.descriptions import wrap
from guigym.events import Event
from guigym.i18n.content import tables

APP = "Mail"
INBOX, SENT, ARCHIVE, TRASH = "inbox", "sent", "archive", "trash"
BOXES = (SENT, ARCHIVE, TRASH)  # the folders besides the inbox
NEW, SEL = "new", "sel"
Q, TAB = "q", "box"  # the search field; the mailbox tab shown on the list
SEL_DIALOG = "d:sel"
WRAP = 34  # characters per body line on a mail's screen
#: (inbox mails, contacts) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "easy": ((4, 6), (5, 7)), "medium": ((12, 18), (10, 15)), "hard": ((18, 26), (24, 32)),
}
# Content tables (guigym.i18n.content): generation reads them through ``tables(__name__)``, in German
# those of guigym.i18n.de_content.mail, entry for entry.
TEAMS = ("Budget", "Design", "Sales", "Marketing", "Planning", "Product", "Safety", "Research")
PLACES = ("Rome", "Oslo", "Lisbon", "Kyoto", "Denver", "Cairo", "Lima", "Dublin", "Paris", "Vienna")
EVENTS = ("concert", "game", "play", "festival", "match", "show")
MONTHS: tuple[str, ...] = MONTH_NAMES  # the subjects' months and days (in the subject's language)
DAYS: tuple[str, ...] = WEEKDAY_NAMES
#: Subject templates and their topic: an id (the same in every language: ``OPENINGS``' keys,
#: ``RULE_WORDS``) and, for ``RULE_WORDS``, the word ``SUBJECT_WORDS`` quotes.
SUBJECTS: tuple[tuple[str, str], ...] = (
    ("Invoice #{num}", "invoice"), ("Overdue invoice {num}", "invoice"), ("Invoice for {month}", "invoice"),
    ("{team} meeting", "meeting"), ("Meeting on {day}", "meeting"), ("Meeting moved to {day}", "meeting"),
    ("Lunch on {day}", "lunch"), ("Lunch with the {team} team", "lunch"),
    ("Tickets for the {event}", "tickets"), ("Your {event} tickets", "tickets"),
    ("Photos from {place}", "photos"), ("Trip photos: {place}", "photos"),
    ("Order {num} shipped", "order"), ("Your order {num}", "order"),
    ("{team} report for {month}", "report"), ("Monthly report: {month}", "report"),
    ("Party on {day}", "party"), ("{month} party", "party"),
    ("Newsletter: {month}", "newsletter"), ("{team} newsletter", "newsletter"),
    ("Flight to {place}", "flight"), ("Flight change: {place}", "flight"),
    ("Your receipt from {place}", "receipt"), ("Receipt {num}", "receipt"),
)
TOPICS = tuple(dict.fromkeys(k for _, k in SUBJECTS))
#: Rules "every mail with <word> in the subject" and searches use these topics ...
RULE_WORDS = ("invoice", "order", "report", "newsletter", "receipt", "tickets", "photos", "flight")
#: ... and quote (and type) their word: one every subject of the topic contains and no other
#: template, slot or name does (case-insensitively; the search matches sender and subject).
SUBJECT_WORDS: dict[str, str] = {"invoice": "invoice", "order": "order", "report": "report", "newsletter": "newsletter",
                                 "receipt": "receipt", "tickets": "tickets", "photos": "photos", "flight": "flight"}
OPENINGS: dict[str, tuple[str, ...]] = {
    "invoice": ("Please find the invoice attached.", "Here is the invoice for last month.", "Your invoice is now due."),
    "meeting": ("Here are the details for the meeting.", "Quick note about our meeting.", "The meeting room has changed."),
    "lunch": ("Want to grab lunch together?", "I booked a table for us.", "The new place opened this week."),
    "tickets": ("I got the tickets for us.", "Your tickets are attached.", "The seats are in row five."),
    "photos": ("Here are the photos from the trip.", "I uploaded the best pictures.", "The photos came out great."),
    "order": ("Your order is on its way.", "We packed your order today.", "Your order left our warehouse."),
    "report": ("The report is ready for review.", "Please read the attached report.", "I added the latest numbers."),
    "party": ("You are invited to the party.", "Bring a friend if you like.", "There will be music and food."),
    "newsletter": ("Here is the news of the month.", "Read about our latest updates.", "Thanks for reading our news."),
    "flight": ("Your flight is confirmed.", "The gate has changed.", "Check in opens a day before."),
    "receipt": ("Thank you for your purchase.", "Here is your receipt.", "Keep this receipt for returns."),
}
CLOSINGS = ("Let me know what you think.", "Talk soon.", "Thanks a lot!", "See you there.", "Have a nice day.",
            "Best wishes.", "Reply if you have questions.", "Cheers.")
MEETING_FACT = ("It starts at {t}.", "We start at {t} sharp.", "It begins at {t}.")
REPLIES = ("Thanks, see you then", "Sounds good to me", "I will be there", "Can we move it to Monday?", "Got it, thank you",
           "Please send me the details", "I will call you later", "Looks great, thanks!", "Count me in",
           "Sorry, I cannot make it", "Let me check and get back to you", "Perfect, thanks for the update")
NEW_SUBJECTS = ("Quick question", "Plans for Saturday", "Project kickoff", "Book recommendation", "Moving day",
                "Dinner next week", "Car pool", "Weekend hike", "Coffee tomorrow?", "Thank you!", "Team lunch", "Garden tools")
NEW_BODIES = ("Are you free on Friday?", "Here are the photos I promised.", "Can you call me when you have a minute?",
              "Let me know what works for you.", "I found a great place for dinner.", "Do you still need the ladder?",
              "Thanks again for your help.", "Could you send me the slides?", "The tickets are booked.",
              "See you at the station.")
COMPOSE = ('Email {n} with the subject "{s}" and the text "{b}"', 'Write to {n}: subject "{s}", message "{b}"',
           'Send {n} a mail with subject "{s}" saying "{b}"')
REPLY = ('Reply "{b}" to the mail from {n} about "{s}"', 'Answer the email "{s}" from {n} with "{b}"')
FORWARD = ('Forward the mail from {n} about "{s}" to {m}', 'Send the email "{s}" from {n} on to {m}')
ONE = {"open": ('Open the mail from {n} about "{s}"', 'Show me the email "{s}" from {n}'),
       "archive": ('Archive the mail from {n} about "{s}"', 'Move the email "{s}" from {n} to the archive'),
       "delete": ('Delete the mail from {n} about "{s}"', 'Remove the email "{s}" from {n}')}
SEARCH = ('Search the inbox for "{q}" and {op} the mail from {n}', 'Look up "{q}" in your mail, then {op} the one from {n}')
ALL = {("archive", "from"): ("Archive every mail from {k}", "Archive all the emails from {k}"),
       ("delete", "from"): ("Delete every mail from {k}", "Remove all the emails from {k}"),
       ("archive", "about"): ('Archive every mail with "{k}" in the subject', 'Archive all mails whose subject mentions "{k}"'),
       ("delete", "about"): ('Delete every mail with "{k}" in the subject', 'Remove all mails whose subject mentions "{k}"')}
ASK = {"time": ("What time does the meeting in {n}'s last mail start?", "When does the meeting in the latest mail from {n} begin?"),
       "sender": ('Who sent the mail about "{s}"?', 'Who wrote the email with the subject "{s}"?')}
TELL = {"time": "tell me what time the meeting in {n}'s last mail starts", "sender": 'tell me who sent the mail about "{s}"'}
JOINS = (", then ", ". Then ", "; after that, ")
DAY_NAMES = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
LOW_CONTACT = 15  # the long template's recipient: at least this far down the picker
LOW_MAIL = 8  # ... and the mails it deletes: at least this far down the inbox


class MailTask(TypedDict):
    type: str  # compose, reply, forward, open, archive, delete, archive_all, delete_all, ask
    name: str | None  # the sender the task is about (compose: the recipient)
    to: str | None  # forward: the recipient
    subject: str | None  # the mail's subject (compose: the new one)
    body: str | None  # compose / reply: the text to send
    ids: list[int]  # the mails acted on or asked about
    search: str | None  # the query a search task types first
    rule: str | None  # *_all: "from" or "about"
    key: str | None  # *_all: the sender or the subject word
    field: str | None  # ask: "time" or "sender"
    fact: str | None  # ask: the answer


class MailsTask(Task):
    tasks: list[MailTask]  # in the instruction's order


Record = tuple[str, str, str]  # (peer, subject, body)


# --- screens and ids -------------------------------------------------------------------------
def mail_screen(mid: int) -> str:
    """A mail's screen (and its row on the inbox), by ``MailRecord["id"]``.

    >>> mail_screen(3), reply_screen(3), forward_screen(3), dialog_screen(3), mail_of("f:3"), mail_of("menu:f:3.to")
    ('m:3', 'r:3', 'f:3', 'd:3', 3, None)
    """
    return f"m:{mid}"


def reply_screen(mid: int) -> str:
    return f"r:{mid}"


def forward_screen(mid: int) -> str:
    return f"f:{mid}"


def dialog_screen(mid: int) -> str:
    """The "Delete this mail?" dialog over a mail."""
    return f"d:{mid}"


def mail_of(sid: str) -> int | None:
    return record_id(sid, "m", "r", "f", "d")


def check_id(mid: int) -> str:
    """The select mode's checkbox of a mail."""
    return f"c:{mid}"


def body_lines(body: str) -> list[str]:
    """A body as the mail's screen shows it: each sentence on a new line, wrapped at ``WRAP``.

    >>> body_lines("It starts at 9:30 AM. Talk soon.")
    ['It starts at 9:30 AM.', 'Talk soon.']
    """
    return [line for sentence in _sentences(body) for line in wrap(sentence, WRAP)]


def _sentences(body: str) -> list[str]:
    out, cur = [], []
    for word in body.split():
        cur.append(word)
        if word.endswith((".", "!", "?")):
            out.append(" ".join(cur))
            cur = []
    if cur:
        out.append(" ".join(cur))
    return out


def matches(m: MailRecord, query: str) -> bool:
    """Whether the search ``query`` shows mail ``m`` (in its sender or subject, case-insensitive)."""
    q = query.strip().casefold()
    return not q or q in f"{m['peer']} {m['subject']}".casefold()


def _by_id(mails: list[MailRecord], mid: int) -> MailRecord | None:
    return next((m for m in mails if m["id"] == mid), None)


def _inbox(mails: list[MailRecord]) -> list[MailRecord]:
    return [m for m in mails if m["box"] == INBOX]


# --- the app ---------------------------------------------------------------------------------
@register_app
class MailApp(ContactsGate):
    """``data["mails"]``: every mail, each in a box, most recent first; ``data["next"]``: the
    next new mail's id. Mail, reply, forward, picker and dialog screens are made on the fly.
    Gated by the contacts permission (``guigym.apps.permission``), the prompt shows when the
    app opens or when a To dropdown (Compose's, a forward's) is first clicked, in its place;
    until allowed the dropdowns list nobody."""

    kind = "mail"
    dialog_prefix = "d:"  # the delete confirmations (a mail's, the select mode's)
    contacts_use = "Choose who to mail from your contacts"

    def initial_state(self, spec: AppSpec) -> AppState:
        state = super().initial_state(spec)
        state["data"]["mails"] = [dict(m) for m in spec["mails"]]
        state["data"]["next"] = 1 + max((m["id"] for m in spec["mails"]), default=-1)
        state["values"].update({Q: "", TAB: INBOX, "new.to": "", "new.subject": "", "new.body": "", "new.error": ""})
        self.gate_state(spec, state)
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """Mails (the scenario's and the state's) with unique ids >= 0 (below ``next``), each
        in a mailbox, a body empty or with a word (a forward quotes its first line), and the
        list's mailbox tab one of the mailboxes."""
        out = super().state_problems(spec, state)
        for where, mails, nxt in (("spec.mails", spec["mails"], None), ("data.mails", state["data"]["mails"], state["data"]["next"])):
            out += id_problems(mails, where, next_id=nxt)
            out += [f"{where}[{i}].box: {m['box']!r:.20} is not one of {(INBOX, *BOXES)}" for i, m in enumerate(mails)
                    if m["box"] not in (INBOX, *BOXES)]
            out += [f"{where}[{i}].body: {m['body']!r:.20} is blank but not empty" for i, m in enumerate(mails)
                    if m["body"] and not m["body"].split()]
        if state["values"].get(TAB, INBOX) not in (INBOX, *BOXES):
            out.append(f"values[{TAB!r}]: {state['values'][TAB]!r:.20} is not one of {(INBOX, *BOXES)}")
        return out

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        mid = mail_of(sid)
        if mid is None:
            return SEL if sid == SEL_DIALOG else super().parent(spec, sid)
        head = sid.partition(":")[0]
        return "main" if head == "m" else mail_screen(mid)

    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        mails = state["data"]["mails"]
        if sid == SEL:
            k = len(self.ticked(state))
            return f"{k} selected" if k else "Select mails"
        if sid == SEL_DIALOG:
            return "Delete mails?"
        mid = mail_of(sid)
        if sid == "main" and state["values"].get(TAB, INBOX) != INBOX:  # another mailbox's list
            return str(state["values"][TAB]).title()
        if mid is None:
            return super().title(spec, state, sid)
        m = _by_id(mails, mid)
        head = sid.partition(":")[0]
        if head == "d":
            return "Delete this mail?"
        if m is None:
            return "Mail"
        return {"r": "Reply", "f": "Forward"}.get(head, m["subject"])

    @staticmethod
    def ticked(state: AppState) -> list[MailRecord]:
        vals = state["values"]
        return [m for m in _inbox(state["data"]["mails"]) if vals.get(check_id(m["id"]))]

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        vals = state["values"]
        mails: list[MailRecord] = state["data"]["mails"]
        if sid == "main":
            query, box = str(vals.get(Q, "")), str(vals.get(TAB, INBOX))
            shown = [m for m in mails if m["box"] == box and matches(m, query)]
            out = [
                tabs_row(TAB, [INBOX, *BOXES], box, {b: b.title() for b in (INBOX, *BOXES)}),
                Widget.of(spec["screens"]["main"]["rows"][0]),  # Compose
                search_row(Q, query, f"Search {box}"),
                *(Widget.of(r) for r in spec["screens"]["main"]["rows"][1:]),  # gated: the app's settings
            ]
            if box == INBOX:
                out.append(Widget("select", "button", "Select", to=SEL, action="select"))
                # a sender with several mails on the list: the row says the subject too (every row is named apart)
                peers = [m["peer"] for m in shown]
                out += [Widget(mail_screen(m["id"]), "link", ("\u2022 " if m["unread"] else "") + m["peer"]
                               + ("" if peers.count(m["peer"]) == 1 else f" \u00b7 {m['subject']}"),
                               detail=f"{m['time']} \u00b7 {m['subject']}", to=mail_screen(m["id"])) for m in shown]
            else:  # the other mailboxes: read-only
                out += [Widget(f"{box}:{m['id']}", "label", f"{'To ' if box == SENT else ''}{m['peer']} \u00b7 {m['subject']}",
                               style="muted" if box == TRASH else "") for m in shown]
            if not shown:
                out.append(Widget("empty", "label", "No mails match" if query.strip() else "No mails here", style="muted"))
            return out
        if sid == NEW:
            err = vals.get("new.error", "")
            return [
                *self._to_rows(spec, state, "new.to"),
                Widget("new.subject", "input", "Subject", value=vals.get("new.subject", ""), placeholder="Subject"),
                textarea_row("new.body", "Message", vals.get("new.body", ""), "Write your mail"),
                *([Widget("new.error", "label", err, style="error")] if err else []),
                Widget("new.send", "button", "Send", action="send_new", style="primary"),
            ]
        if sid in (PERM, APP_SETTINGS):  # gated: the prompt, the app's settings
            return super().rows(spec, state, sid)
        if sid == SEL:
            msg = vals.get(sub_id(SEL, "msg"), "")
            return [
                Widget(sub_id(SEL, "archive"), "button", "Archive", action="archive_sel"),
                Widget(sub_id(SEL, "delete"), "button", "Delete", to=SEL_DIALOG, action="delete_sel"),
                *([Widget(sub_id(SEL, "msg"), "label", msg, style="error")] if msg else []),
                *(Widget(check_id(m["id"]), "checkbox", f"{m['peer']} \u00b7 {m['subject']}", value=bool(vals.get(check_id(m["id"]))))
                  for m in _inbox(mails)),
            ]
        if sid == SEL_DIALOG:
            k = len(self.ticked(state))
            return self._dialog(sid, f"Delete {k} mail{'s' * (k != 1)}?")
        mid = mail_of(sid)
        m = _by_id(mails, mid) if mid is not None else None
        if mid is None or m is None or m["box"] != INBOX:
            return []
        head = sid.partition(":")[0]
        if head == "d":
            return self._dialog(sid, "Delete this mail?")
        err = vals.get(sub_id(sid, "error"), "")
        error = [Widget(sub_id(sid, "error"), "label", err, style="error")] if err else []
        if head == "r":
            return [
                Widget(sub_id(sid, "to"), "label", f"To: {m['peer']}", style="muted"),
                Widget(sub_id(sid, "subject"), "label", f"Re: {m['subject']}"),
                textarea_row(sub_id(sid, "body"), "Message", vals.get(sub_id(sid, "body"), ""), "Write your reply"),
                *error,
                Widget(sub_id(sid, "send"), "button", "Send", action="send_reply", style="primary"),
            ]
        if head == "f":
            first = body_lines(m["body"])[0] if m["body"] else ""
            return [
                *self._to_rows(spec, state, sub_id(sid, "to")),
                Widget(sub_id(sid, "subject"), "label", f"Fwd: {m['subject']}"),
                Widget(sub_id(sid, "quote"), "label", f"{first} \u2026", style="muted"),
                *error,
                Widget(sub_id(sid, "send"), "button", "Send", action="send_fwd", style="primary"),
            ]
        return [
            Widget(sub_id(sid, "from"), "label", f"From: {m['peer']} \u00b7 {m['time']}", style="muted"),
            # span 0: a line too wide for the screen (a narrow one, a larger font) wraps rather than losing its end (a date)
            *(Widget(sub_id(sid, f"b{k}"), "label", line, span=0) for k, line in enumerate(body_lines(m["body"]))),
            Widget(sub_id(sid, "reply"), "button", "Reply", to=reply_screen(mid), action="reply"),
            Widget(sub_id(sid, "forward"), "button", "Forward", to=forward_screen(mid), action="forward"),
            Widget(sub_id(sid, "archive"), "button", "Archive", action="archive"),
            Widget(sub_id(sid, "delete"), "button", "Delete", to=dialog_screen(mid), action="delete"),
        ]

    def _to_rows(self, spec: AppSpec, state: AppState, wid: str) -> list[Widget]:
        """A To dropdown over the contacts; gated and not allowed: over nobody (after a denial,
        with why under it)."""
        value = state["values"].get(wid) or None
        if self.contacts_allowed(spec, state):
            return [select_row(wid, "To", spec["contacts"], value, placeholder="Choose a contact")]
        empty = Widget(wid, "select", "To", value=value, placeholder="Choose a contact", options=[])
        return [empty, *(self.blocked_rows(spec, wid) if state["data"].get("perm") == "deny" else [])]

    def picks_contact(self, spec: AppSpec, goal: Goal) -> bool:
        return goal.op == "set" and (goal.widget == "new.to" or (goal.screen.startswith("f:") and goal.widget == sub_id(goal.screen, "to")))

    @staticmethod
    def _dialog(sid: str, question: str) -> list[Widget]:
        return [  # the panel, then its buttons (left to right)
            Widget(sub_id(sid, "dialog"), "dialog", question, detail="Deleted mails go to the trash."),
            Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
            Widget(sub_id(sid, "confirm"), "button", "Delete", action="confirm", style="danger"),
        ]

    def on_event(self, spec: AppSpec, state: AppState, ev: Event, w: Widget | None) -> None:
        if ev.kind == "click" and w is not None and w.kind == "select" and self.ask_first(spec, state):
            return  # a To dropdown needs the contacts: the prompt shows instead (gated, undecided)
        super().on_event(spec, state, ev, w)
        sid = state["stack"][-1]
        if sid.startswith("m:"):  # an opened mail is read
            m = _by_id(state["data"]["mails"], mail_of(sid))  # type: ignore[arg-type]
            if m is not None and m["unread"]:
                m["unread"] = False
        if ev.kind == "toggle" and sid == SEL:
            state["values"][sub_id(SEL, "msg")] = ""

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        sid = state["stack"][-1]
        vals = state["values"]
        data = state["data"]
        mails: list[MailRecord] = data["mails"]
        if self.answer_prompt(state, w):  # the permission prompt: decided, it does not come back
            return
        if w.action is None:  # Compose: a button that opens its screen
            super().on_button(spec, state, w)
            return
        if w.action == "select":  # the select mode starts with nothing ticked
            for k in [k for k in vals if k.startswith("c:")]:
                del vals[k]
            vals[sub_id(SEL, "msg")] = ""
            self.push(state, SEL)
            return
        if w.action in ("archive_sel", "delete_sel"):
            sel = self.ticked(state)
            if not sel:
                vals[sub_id(SEL, "msg")] = "Tick the mails first"
            elif w.action == "delete_sel":
                self.push(state, SEL_DIALOG)
            else:
                self._move(state, sel, ARCHIVE)
            return
        if w.action == "send_new":
            to, subject, body = str(vals.get("new.to", "")), str(vals.get("new.subject", "")).strip(), str(vals.get("new.body", "")).strip()
            if not to or not subject:
                vals["new.error"] = "Choose a contact" if not to else "Add a subject"
                return
            self._send(spec, state, to, subject, body)
            vals.update({"new.to": "", "new.subject": "", "new.body": "", "new.error": ""})
            return
        if w.action == "cancel":
            self.pop(state)
            return
        if sid == SEL_DIALOG and w.action == "confirm":
            self._move(state, self.ticked(state), TRASH)
            return
        mid = mail_of(sid)
        m = _by_id(mails, mid) if mid is not None else None
        if m is None or m["box"] != INBOX:
            return
        if w.action in ("reply", "forward", "delete") and w.to is not None:
            self.push(state, w.to)
        elif w.action == "archive":
            self._move(state, [m], ARCHIVE)
        elif w.action == "confirm":
            self._move(state, [m], TRASH)
        elif w.action == "send_reply":
            key = sub_id(sid, "body")
            body = str(vals.get(key, "")).strip()
            if not body:
                vals[sub_id(sid, "error")] = "Write a message"
                return
            self._send(spec, state, m["peer"], f"Re: {m['subject']}", body)
            vals.update({key: "", sub_id(sid, "error"): ""})
        elif w.action == "send_fwd":
            key = sub_id(sid, "to")
            to = str(vals.get(key, ""))
            if not to:
                vals[sub_id(sid, "error")] = "Choose a contact"
                return
            self._send(spec, state, to, f"Fwd: {m['subject']}", m["body"])
            vals.update({key: "", sub_id(sid, "error"): ""})

    @staticmethod
    def _send(spec: AppSpec, state: AppState, to: str, subject: str, body: str) -> None:
        """A new mail in Sent (at the top); back to the inbox."""
        data = state["data"]
        data["mails"].insert(0, {"id": data["next"], "box": SENT, "peer": to, "subject": subject, "body": body,
                                 "time": spec["now"], "unread": False})
        data["next"] += 1
        del state["stack"][1:]
        state["focus"] = None

    @staticmethod
    def _move(state: AppState, mails: list[MailRecord], box: str) -> None:
        """``mails`` to ``box``; back to the inbox, nothing ticked."""
        for m in mails:
            m["box"] = box
        del state["stack"][1:]
        state["focus"] = None
        for k in [k for k in state["values"] if k.startswith("c:")]:
            del state["values"][k]


# --- generation ------------------------------------------------------------------------------
def clock_time(rng: np.random.Generator) -> str:
    """A meeting time: '10:30 AM' (hours 1-12, quarter hours, AM/PM)."""
    return f"{int(rng.integers(1, 13))}:{pick(rng, ('00', '15', '30', '45'))} {pick(rng, ('AM', 'PM'))}"


def when(now: int, age: int) -> str:
    """How the inbox shows a mail ``age`` minutes before ``now`` (minutes after midnight on a Wednesday)."""
    t = now - age
    if t >= 0:
        return time_label(t)
    return "Yesterday" if t >= -1440 else DAY_NAMES[(2 + t // 1440) % 7]


class _Gen:
    """The mails being generated: subjects unique across the mailboxes."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.subjects: set[str] = set()
        self.template = ""

    def subject(self, topic: str | None = None, avoid: frozenset[str] | set[str] = frozenset(), like: str | None = None) -> tuple[str, str]:
        """(subject, topic): of ``topic`` (else any not in ``avoid``), from template ``like`` if given."""
        rng, T = self.rng, tables(__name__)
        for _ in range(200):
            if like is not None:
                tpl, top = next((t, k) for t, k in T.SUBJECTS if t == like)
            else:
                tpl, top = pick(rng, [s for s in T.SUBJECTS if (s[1] == topic if topic else s[1] not in avoid)])
            self.template = tpl
            s = tpl.format(num=int(rng.integers(1000, 10000)), month=pick(rng, T.MONTHS), day=pick(rng, T.DAYS),
                           team=pick(rng, T.TEAMS), place=pick(rng, T.PLACES), event=pick(rng, T.EVENTS))
            if s not in self.subjects:
                self.subjects.add(s)
                return s, top
        raise RuntimeError("no fresh subject")

    def body(self, topic: str, time: str | None = None) -> str:
        rng, T = self.rng, tables(__name__)
        parts = [pick(rng, T.OPENINGS[topic])]
        if topic == "meeting":
            parts.append(pick(rng, T.MEETING_FACT).format(t=time or clock_time(rng)))
        parts.append(pick(rng, T.CLOSINGS))
        return " ".join(parts)

    def mail(self, peer: str, topic: str | None = None, avoid: frozenset[str] | set[str] = frozenset(), like: str | None = None,
             time: str | None = None) -> dict[str, Any]:
        s, top = self.subject(topic, avoid, like)
        return {"peer": peer, "subject": s, "body": self.body(top, time), "topic": top, "tpl": self.template}


def _task(kind: str, **kw: Any) -> MailTask:
    t: MailTask = {"type": kind, "name": None, "to": None, "subject": None, "body": None, "ids": [], "search": None, "rule": None,
                   "key": None, "field": None, "fact": None}
    t.update(kw)  # type: ignore[typeddict-item]
    return t


class MailFamily(Family):
    name = "Mail"
    description = "An e-mail app: compose, reply, forward, search, archive and delete (dialog), select mode, questions."
    apps = (APP,)
    task_type = MailsTask
    asks_questions = True
    permission_apps = (APP,)
    #: The tasks' types in the instruction's order ("search": type a query, then open, archive or
    #: delete the mail it finds).
    templates = {"easy": ("compose", "reply", "forward", "open", "archive", "delete", "search", "archive_all", "delete_all", "ask"),
                 "medium": ("compose", "reply", "forward", "open", "archive", "delete", "search", "archive_all", "delete_all", "ask"),
                 "hard": tuple(f"{a}+{b}" for a in ("compose", "reply", "forward", "archive", "delete", "search")
                               for b in ("archive_all", "delete_all", "delete", "ask"))}

    def template(self, scenario: Scenario) -> str:
        return "+".join("search" if t["search"] is not None else t["type"] for t in self._tasks(scenario))
    _memo: tuple[Scenario, dict[int, str], Counter[Record]] | None = None

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        T = tables(__name__)
        (mlo, mhi), (clo, chi) = LEVEL_SIZES[level]
        n_mails = int(rng.integers(mlo, mhi + 1))
        contacts = sorted(sample(rng, PEOPLE, int(rng.integers(clo, chi + 1))))
        if level == "hard":
            first = pick(rng, ("compose", "compose", "reply", "forward", "archive", "delete", "search"))
            second = ("delete_all" if first == "compose" and rng.random() < 0.5
                      else pick(rng, ("archive_all", "delete_all", "delete", "ask")))
            kinds = [first, second]
        else:
            kinds = [pick(rng, ("compose", "reply", "forward", "open", "archive", "delete", "search", "archive_all", "delete_all",
                                "ask", "ask"))]
        long_rule = kinds == ["compose", "delete_all"]
        g = _Gen(rng)
        distract = level != "easy"
        people = list(contacts)
        # the rule words' topics in use: no other mail's subject is of them
        words = [pick(rng, RULE_WORDS)] if any(k in ("search",) for k in kinds) else []
        rule_about = {k: rng.random() < 0.5 and not long_rule for k in kinds if k.endswith("_all")}
        for k in kinds:
            if k.endswith("_all") and rule_about[k]:
                words.append(pick(rng, [w for w in RULE_WORDS if w not in words]))
        avoid = set(words)
        # the people the tasks are about (distinct; the long template's recipient low in the picker)
        names: list[str] = []
        for k in kinds:
            if k.endswith("_all") and rule_about[k]:
                names.append("")
            else:
                pool = contacts[LOW_CONTACT:] if long_rule and k == "compose" else people
                names.append(pick(rng, [p for p in pool if p not in names]))
        others = [p for p in people if p not in names]

        def other() -> str:
            return pick(rng, others)

        mails: list[dict[str, Any]] = []  # the inbox, in no order yet
        tasks: list[MailTask] = []
        pins: dict[int, str] = {}  # mail index -> "low" (the long template) / "first" (its sender's most recent)
        word_iter = iter(words)
        for k, n in zip(kinds, names):
            if k == "compose":
                tasks.append(_task("compose", name=n, subject=pick(rng, T.NEW_SUBJECTS), body=pick(rng, T.NEW_BODIES)))
            elif k.endswith("_all") and rule_about[k]:
                w = next(word_iter)
                idx = []
                for _ in range(int(rng.integers(2, 4))):
                    idx.append(len(mails))
                    mails.append(g.mail(other(), topic=w))
                tasks.append(_task(k, rule="about", key=T.SUBJECT_WORDS[w], ids=idx))
            elif k.endswith("_all"):
                idx = []
                for _ in range(3 if long_rule else int(rng.integers(2, 4))):
                    idx.append(len(mails))
                    if long_rule:
                        pins[len(mails)] = "low"
                    mails.append(g.mail(n, avoid=avoid))
                tasks.append(_task(k, rule="from", key=n, name=n, ids=idx))
            elif k == "ask" and pick(rng, ("time", "sender")) == "time":
                fact = clock_time(rng)
                i = len(mails)
                pins[i] = "first"
                mails.append(g.mail(n, topic="meeting", time=fact))
                if distract:  # an older meeting from them, one from someone else
                    mails.append(g.mail(n, topic="meeting", time=_other_time(rng, fact)))
                    mails.append(g.mail(other(), topic="meeting", time=_other_time(rng, fact)))
                tasks.append(_task("ask", field="time", name=n, ids=[i], fact=fact))
            elif k == "ask":
                i = len(mails)
                mails.append(g.mail(n, avoid=avoid))
                if distract:  # a similar subject from someone else
                    mails.append(g.mail(other(), like=mails[i]["tpl"]))
                tasks.append(_task("ask", field="sender", name=n, ids=[i], subject=mails[i]["subject"], fact=n))
            else:  # one mail: reply, forward, open, archive, delete, search (then open / archive / delete)
                i = len(mails)
                if k == "search":
                    w = next(word_iter)
                    mails.append(g.mail(n, topic=w))
                    for _ in range(int(rng.integers(1, 3))):  # the query shows others too
                        mails.append(g.mail(other(), topic=w))
                    op = pick(rng, ("open", "archive", "delete") if level != "hard" else ("archive", "delete"))
                    tasks.append(_task(op, name=n, ids=[i], subject=mails[i]["subject"], search=T.SUBJECT_WORDS[w]))
                else:
                    mails.append(g.mail(n, avoid=avoid))
                    t = _task(k, name=n, ids=[i], subject=mails[i]["subject"])
                    if k == "reply":
                        t["body"] = pick(rng, T.REPLIES)
                    elif k == "forward":
                        t["to"] = pick(rng, [p for p in contacts if p != n])
                    tasks.append(t)
                if distract:  # the same subject from someone else; another mail from the same sender
                    top = mails[i]["topic"]
                    body = g.body(top)
                    while k == "forward" and body == mails[i]["body"]:  # a forward is compared by its text: not the same
                        body = g.body(top)
                    mails.append({"peer": other(), "subject": mails[i]["subject"], "body": body, "topic": top, "tpl": ""})
                    # (for a search: one the query does not show, else a similar subject)
                    mails.append(g.mail(n, avoid=avoid) if k == "search" else g.mail(n, like=mails[i]["tpl"]))
        # fillers from people the tasks are not about, on topics no rule or search uses
        while len(mails) < n_mails:
            mails.append(g.mail(other(), avoid=avoid))
        order = self._order(rng, len(mails), pins, mails)
        now = int(rng.integers(9 * 60, 21 * 60))
        ages = sorted(sample(rng, range(1, 6 * 1440), len(mails)))
        records: list[MailRecord] = []
        where: dict[int, int] = {}  # generation index -> mail id
        for pos, i in enumerate(order):
            m = mails[i]
            where[i] = pos
            records.append({"id": pos, "box": INBOX, "peer": m["peer"], "subject": m["subject"], "body": m["body"],
                            "time": when(now, ages[pos]), "unread": bool(rng.random() < 0.4)})
        for t in tasks:
            t["ids"] = [where[i] for i in t["ids"]]
        # the other folders: a few mails, never the inbox's
        nid = len(records)
        for box, (lo, hi) in ((SENT, (1, 3)), (ARCHIVE, (0, 3)), (TRASH, (0, 2))):
            for _ in range(int(rng.integers(lo, hi + 1))):
                m = g.mail(pick(rng, contacts), avoid=avoid)
                records.append({"id": nid, "box": box, "peer": m["peer"], "subject": m["subject"], "body": m["body"],
                                "time": when(now, int(rng.integers(6 * 1440, 9 * 1440))), "unread": False})
                nid += 1
        text = "".join((pick(rng, JOINS) if i else "") + self._clause(rng, t, first=i == 0) for i, t in enumerate(tasks))
        if not text.endswith(("?", ".", '?"', '."', '!"')):  # a quoted text keeps its own stop
            text += "."
        spec: AppSpec = {
            "kind": "mail", "name": APP, "root": "main", "color": list(pick(rng, ICON_COLORS)), "mails": records,
            "contacts": contacts, "now": time_label(now),
            "screens": {
                "main": {"title": pick(rng, ("Inbox", "Mail", "All inboxes")), "parent": None, "rows": [
                    row("compose", "button", pick(rng, ("Compose", "New mail", "Write")), to=NEW, style="primary"),
                ]},
                NEW: {"title": "New mail", "parent": "main", "rows": []},
                SEL: {"title": "Select mails", "parent": "main", "rows": []},
            },
        }
        values: dict[str, Any] = {}
        if level != "easy":  # a stale query; a stale draft
            if rng.random() < 0.25:
                values[Q] = pick(rng, [m["peer"] for m in records if m["box"] == INBOX]).split()[0]
            if rng.random() < 0.3:
                values.update({"new.subject": pick(rng, T.NEW_SUBJECTS), "new.body": pick(rng, T.NEW_BODIES)})
        task: MailsTask = {"instruction": text, "tasks": tasks}
        return {
            "family": self.name, "level": level, "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]},
            "theme": theme(rng), "start": {"fg": APP, "values": {APP: values} if values else {}}, "task": task,
        }

    @staticmethod
    def _order(rng: np.random.Generator, n: int, pins: dict[int, str], mails: list[dict[str, Any]]) -> list[int]:
        """The inbox order (generation indices, most recent first): shuffled, the long
        template's mails at ``LOW_MAIL`` or below, an asked-about mail its sender's most recent."""
        low = [i for i, p in pins.items() if p == "low"]
        rest = [i for i in range(n) if i not in low]
        order = [rest[int(k)] for k in rng.permutation(len(rest))]
        if low:
            slots = sorted(sample(rng, range(LOW_MAIL, n), len(low)))
            for s, i in zip(slots, low):
                order.insert(s, i)
        for i, p in pins.items():
            if p == "first":
                first = next(k for k, j in enumerate(order) if mails[j]["peer"] == mails[i]["peer"])
                at = order.index(i)
                order[first], order[at] = order[at], order[first]
        return order

    @staticmethod
    def _clause(rng: np.random.Generator, t: MailTask, first: bool) -> str:
        k = t["type"]
        if k == "ask":
            text = (pick(rng, ASK[t["field"]]) if first else TELL[t["field"]]).format(n=t["name"], s=t["subject"])  # type: ignore[index]
            return text
        if k == "compose":
            text = pick(rng, COMPOSE).format(n=t["name"], s=t["subject"], b=t["body"])
        elif k == "reply":
            text = pick(rng, REPLY).format(n=t["name"], s=t["subject"], b=t["body"])
        elif k == "forward":
            text = pick(rng, FORWARD).format(n=t["name"], s=t["subject"], m=t["to"])
        elif k.endswith("_all"):
            text = pick(rng, ALL[(k[:-4], t["rule"])]).format(k=t["key"])  # type: ignore[index]
        elif t["search"]:
            text = pick(rng, SEARCH).format(q=t["search"], op=k, n=t["name"])
        else:
            text = pick(rng, ONE[k]).format(n=t["name"], s=t["subject"])
        return text if first else text[0].lower() + text[1:]

    # --- progress --------------------------------------------------------------------------
    @staticmethod
    def _tasks(scenario: Scenario) -> list[MailTask]:
        return cast(MailsTask, scenario["task"])["tasks"]

    def _want(self, scenario: Scenario) -> tuple[dict[int, str], Counter[Record]]:
        """The box every mail of the start should end in, and the mails to send (memoised
        for the last scenario, by identity: checked on every step; never mutate them)."""
        memo = self._memo
        if memo is not None and memo[0] is scenario:
            return memo[1], memo[2]
        boxes = {m["id"]: m["box"] for m in scenario["apps"][APP]["mails"]}
        sends: Counter[Record] = Counter()
        mails = {m["id"]: m for m in scenario["apps"][APP]["mails"]}
        for t in self._tasks(scenario):
            k = t["type"]
            if k in ("archive", "delete", "archive_all", "delete_all"):
                for i in t["ids"]:
                    boxes[i] = ARCHIVE if k.startswith("archive") else TRASH
            elif k == "compose":
                sends[(str(t["name"]), str(t["subject"]), str(t["body"]))] += 1
            elif k == "reply":
                m = mails[t["ids"][0]]
                sends[(m["peer"], f"Re: {m['subject']}", str(t["body"]))] += 1
            elif k == "forward":
                m = mails[t["ids"][0]]
                sends[(str(t["to"]), f"Fwd: {m['subject']}", m["body"])] += 1
        self._memo = (scenario, boxes, sends)
        return boxes, sends

    @staticmethod
    def _sent(scenario: Scenario, mails: list[MailRecord]) -> Counter[Record]:
        """The mails sent in the episode (ids past the start's)."""
        start = len(scenario["apps"][APP]["mails"])
        return Counter((m["peer"], m["subject"], m["body"]) for m in mails if m["id"] >= start)

    def _ask(self, scenario: Scenario) -> MailTask | None:
        return next((t for t in self._tasks(scenario) if t["type"] == "ask"), None)

    def _open(self, scenario: Scenario) -> MailTask | None:
        return next((t for t in self._tasks(scenario) if t["type"] == "open"), None)

    def question(self, scenario: Scenario) -> bool:
        return self._ask(scenario) is not None

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each task of a known type about mails of the scenario (an archive or delete of a
        missing one loaded as done), a question whose fact the mail shows."""
        mails = {m["id"]: m for m in scenario["apps"][APP]["mails"]}
        kinds = ("compose", "reply", "forward", "open", "archive", "delete", "archive_all", "delete_all", "ask")
        out: list[str] = []
        for i, t in enumerate(self._tasks(scenario)):
            w, k = f"$.task.tasks[{i}]", t["type"]
            out += missing(f"{w}.type", k, kinds, "Mail task type")
            out += [p for j, x in enumerate(t["ids"]) for p in missing(f"{w}.ids[{j}]", x, mails, "mail of the scenario's Mail")]
            if k not in ("compose", "archive_all", "delete_all") and not t["ids"]:
                out.append(f"{w}.ids: empty (a {k} is about a mail)")
            if k == "ask" and t["ids"] and t["ids"][0] in mails:
                m = mails[t["ids"][0]]
                if t["field"] == "sender" and t["fact"] != m["peer"] or t["field"] != "sender" and str(t["fact"]) not in m["body"]:
                    out.append(f"{w}.fact: {t['fact']!r:.40} is not the {t['field']!r:.20} the mail shows")
        return out

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        app_state = state["apps"][APP]
        mails: list[MailRecord] = app_state["data"]["mails"]
        boxes, sends = self._want(scenario)
        if any(m["box"] != boxes[m["id"]] for m in mails if m["id"] in boxes):
            return False
        if self._sent(scenario, mails) != sends:
            return False
        t = self._open(scenario)
        if t is not None and app_state["stack"][-1] != mail_screen(t["ids"][0]):
            return False
        ask = self._ask(scenario)
        if ask is None:
            return True
        from guigym.answers import answers_match

        return "answer" in state and answers_match(state["answer"], str(ask["fact"]))

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        mails: list[MailRecord] = state["apps"][APP]["data"]["mails"]
        boxes, sends = self._want(scenario)
        if any(m["id"] in boxes and m["box"] != boxes[m["id"]] and m["box"] != INBOX for m in mails):
            return MAIL_MOVED
        if self._sent(scenario, mails) - sends:
            return MAIL_SENT
        if "answer" not in state or self.success(scenario, state):
            return False
        ask = self._ask(scenario)
        return answer_failure(state, str(ask["fact"]) if ask is not None else None)

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        return permission_goal(scenario, state, APP, self._goal(scenario, state), self._needs_contacts(scenario))

    def _needs_contacts(self, scenario: Scenario) -> bool:
        """Whether the task sends through a To dropdown (compose, forward; a reply's recipient is fixed)."""
        return any(t["type"] in ("compose", "forward") for t in self._tasks(scenario))

    def _goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        app_state = state["apps"][APP]
        mails: list[MailRecord] = app_state["data"]["mails"]
        missing = self._want(scenario)[1] - self._sent(scenario, mails)
        for t in self._tasks(scenario):
            k = t["type"]
            if k == "compose":
                if missing[(str(t["name"]), str(t["subject"]), str(t["body"]))]:
                    return self._compose(app_state, t)
            elif k in ("reply", "forward"):
                m = _by_id(mails, t["ids"][0])
                assert m is not None
                rec = ((m["peer"], f"Re: {m['subject']}", str(t["body"])) if k == "reply"
                       else (str(t["to"]), f"Fwd: {m['subject']}", m["body"]))
                if missing[rec]:
                    return self._reply(app_state, t, m)
            elif k in ("archive", "delete"):
                m = _by_id(mails, t["ids"][0])
                if m is not None and m["box"] == INBOX:
                    sid = mail_screen(m["id"])
                    goal = (Goal(APP, sid, sub_id(sid, "archive"), "press") if k == "archive"
                            else Goal(APP, dialog_screen(m["id"]), sub_id(dialog_screen(m["id"]), "confirm"), "press"))
                    return self._reach(app_state, t, m) or goal
            elif k.endswith("_all"):
                left = [i for i in t["ids"] if (m := _by_id(mails, i)) is not None and m["box"] == INBOX]
                if left:
                    return self._many(app_state, left, k[:-4])
        ask = self._ask(scenario)
        if ask is not None and "answer" not in state:
            m = _by_id(mails, ask["ids"][0])
            assert m is not None
            if ask["field"] == "sender":
                return self._reach(app_state, ask, m, on_list=True) or Goal(APP, "main", mail_screen(m["id"]), "answer", ask["fact"])
            sid = mail_screen(m["id"])
            line = next(i for i, s in enumerate(body_lines(m["body"])) if str(ask["fact"]) in s)
            return self._reach(app_state, ask, m) or Goal(APP, sid, sub_id(sid, f"b{line}"), "answer", ask["fact"])
        opened = self._open(scenario)
        if opened is not None:
            m = _by_id(mails, opened["ids"][0])
            if m is not None and m["box"] == INBOX and app_state["stack"][-1] != mail_screen(m["id"]):
                sid = mail_screen(m["id"])
                return self._reach(app_state, opened, m) or Goal(APP, sid, sub_id(sid, "from"), "press")
        return None

    @staticmethod
    def _reach(app_state: AppState, t: MailTask, m: MailRecord, on_list: bool = False) -> Goal | None:
        """The inbox tab if another is shown, then a search when the task says so, or when the
        query hides the mail's row (then for its subject); None once the mail is open."""
        if not on_list and mail_screen(m["id"]) in app_state["stack"]:
            return None
        if app_state["values"].get(TAB, INBOX) != INBOX:  # another mailbox on the list: the inbox first
            return Goal(APP, "main", TAB, "set", INBOX)
        query = str(app_state["values"].get(Q, ""))
        if t["search"] and query != t["search"]:
            return Goal(APP, "main", Q, "set", t["search"])
        if not matches(m, query):
            return Goal(APP, "main", Q, "set", m["subject"])
        return None

    def _reply(self, app_state: AppState, t: MailTask, m: MailRecord) -> Goal:
        vals = app_state["values"]
        if t["type"] == "reply":
            sid = reply_screen(m["id"])
            if vals.get(sub_id(sid, "body")) != t["body"]:
                return self._reach(app_state, t, m) or Goal(APP, sid, sub_id(sid, "body"), "set", t["body"])
            return self._reach(app_state, t, m) or Goal(APP, sid, sub_id(sid, "send"), "press")
        sid = forward_screen(m["id"])
        if vals.get(sub_id(sid, "to")) != t["to"]:
            return self._reach(app_state, t, m) or Goal(APP, sid, sub_id(sid, "to"), "set", t["to"])
        return self._reach(app_state, t, m) or Goal(APP, sid, sub_id(sid, "send"), "press")

    @staticmethod
    def _compose(app_state: AppState, t: MailTask) -> Goal:
        vals = app_state["values"]
        if vals.get("new.to") != t["name"]:
            return Goal(APP, NEW, "new.to", "set", t["name"])
        if str(vals.get("new.subject", "")).strip() != t["subject"]:
            return Goal(APP, NEW, "new.subject", "set", t["subject"])
        if str(vals.get("new.body", "")).strip() != t["body"]:
            return Goal(APP, NEW, "new.body", "set", t["body"])
        return Goal(APP, NEW, "new.send", "press")

    @staticmethod
    def _many(app_state: AppState, group: list[int], op: str) -> Goal:
        """Tick exactly ``group`` in the select mode, then Archive, or Delete and confirm."""
        vals = app_state["values"]
        live = SEL in app_state["stack"]  # outside the select mode, Select starts with nothing ticked
        if not live and vals.get(TAB, INBOX) != INBOX:  # Select is on the inbox tab
            return Goal(APP, "main", TAB, "set", INBOX)
        for m in _inbox(app_state["data"]["mails"]):
            on = m["id"] in group
            if (live and bool(vals.get(check_id(m["id"])))) != on:
                return Goal(APP, SEL, check_id(m["id"]), "set", on)
        if op == "archive":
            return Goal(APP, SEL, sub_id(SEL, "archive"), "press")
        return Goal(APP, SEL_DIALOG, sub_id(SEL_DIALOG, "confirm"), "press")


def _other_time(rng: np.random.Generator, fact: str) -> str:
    while True:
        t = clock_time(rng)
        if t != fact:
            return t
