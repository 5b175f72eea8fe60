"""CrossApp: read a fact in one app and use it in others (Messages, Mail, Shop, Contacts → Notes, Calendar, …).

Description:
    A paged home screen (20 icons per page, Scroll left/right between pages) with six apps that
    have behaviour among stub distractor apps, each the real app of its family: Notes+ and
    Contacts+ (as in the Phone family: notes with a "New note" editor; the address book, which
    remembers whose card was opened), Messages (conversations, a contact picker, Send), Mail
    (the Mail family's app: the inbox, a mail's screen with its body, Reply, Compose with a To
    dropdown), Calendar (the Calendar family's app: the agenda, "Add event" with a date picker,
    time steppers and Save; its today is the Wednesday the mails and messages are dated from)
    and Shop (the Shop family's catalog with its category tabs and Colour / Price filters; it
    remembers which product screens were opened). A task names where a fact is (an address
    someone texted, the meeting in someone's latest mail, the cheapest product of a colour and
    category, someone's phone number, the number of whoever sent a given mail) but never the
    fact itself: it must be read on screen in the source app, then typed or picked in the
    target apps. Which stubs are on the phone, the icon order and colours, the notes, people,
    conversations, mails, events, the catalog and the task vary with the seed.
Instruction:
    "Save the address in Alice Smith's last message in a new note titled 'Party'", "Add the
    meeting in the latest mail from Bob Lee to the calendar as 'Design meeting'", "Save the
    price of the cheapest red jacket in the Shop in a new note titled 'Jacket'", 'Email Zoe
    King's phone number to Bob Lee with the subject "The number"'; at medium and hard the same fact
    goes on to more apps ("…, then text it to Grace Hill"), or comes through a chain ('Text
    the phone number of the person who sent you the mail about "Invoice #4821" to Carol
    Young': Mail, then Contacts, then Messages).
Actions:
    Click, Scroll, Back, OpenApp and Type (``type`` is ``Discrete(5)``: no task asks a
    question).
Levels:
    * easy: 8-12 icons (one home page); the fact crosses 2 apps (read in one, used in one
      other); short lists (2-4 notes, 5-7 people, 2-4 conversations, 4-6 mails, 3-6 events,
      the Shop's easy catalog: every list fits on the screen).
    * medium: 13-20 icons; 3 apps: the fact used in two other apps, or read through a chain of
      two (the sender of a mail, then their number in Contacts) and used in a third; longer
      lists to scroll (5-9 notes, 10-16 people, 5-9 conversations, 8-12 mails, 6-10 events, the
      Shop's medium catalog); distractors: an older meeting mail from the same sender and one
      from someone else (other times; any dates, the same one at times), a similar subject from
      someone else, addresses and times in other conversations; a meeting date up to 40 days
      ahead (the date picker may page to the next month).
    * hard: 21-32 icons (two home pages); 4 apps: the fact used in three other apps, or a chain
      of two (Mail, Contacts) used in Notes, Messages and Mail again (a mail on); the longest
      lists (6-10 notes, 16-24 people, 8-12 conversations, 12-18 mails, 9-14 events, the Shop's
      hard catalog), the same distractors. Every hard reference is at least 20 steps from
      reset (21-37 on seeds 0-199; tested).
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when every app's data equals the start plus exactly the instructed changes: the
    notes (title and text, case and runs of spaces ignored; a new one there once), the address
    book, the conversations (per contact, the messages as in the Messages family), the
    mailboxes (every mail in its box; the sent mails a multiset of (recipient, subject, body)),
    the calendar's events (a new one as (title, date, time, repeat)) and the shop's cart and
    orders. Read marks, search text, filters, drafts and which screens were opened are not
    compared. Failure (terminated) on any change the task does not ask for: a note, person,
    mail or event changed, moved or deleted, a note, message, mail or event too many or with
    the wrong text (a wrong fact), a conversation deleted, an item added to or removed from
    the cart, an order placed, a call placed (Contacts' Call button).
    A changed quantity of a cart item is not success but not yet failure: the steppers can
    set it back, and the reference does.
Registered ids:
    ``GuiGym-CrossApp-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from typing import Any, TypedDict, cast

import numpy as np

import guigym.apps.calendar_app as calendar_app
import guigym.apps.mail as mail_app
from guigym.apps.base import HOME, SeenScreens, register_app, row
from guigym.apps.calendar_app import ADD as CAL_ADD
from guigym.apps.calendar_app import FORM, TIMES, CalendarFamily, hhmm, iso, key_of
from guigym.apps.calendar_app import _is_date as is_date
from guigym.apps.calendar_app import _is_time as is_time
from guigym.apps.catalog import BRANDS, ICON_COLORS, STUB_APPS, stub_app
from guigym.apps.contacts import email_address, person_screen, phone_number
from guigym.apps.dates import MONTH_NAMES, WEEKDAY_NAMES
from guigym.apps.family import (
    CALL_PLACED,
    CART_ITEM_ADDED,
    CART_ITEM_REMOVED,
    CONVERSATION_DELETED,
    MAIL_MOVED,
    MAIL_SENT,
    NEW_CONVERSATION,
    WRONG_MESSAGES,
    Family,
    Goal,
    missing,
    pick,
    sample,
    theme,
)
from guigym.apps.launcher import JOINS
from guigym.apps.mail import INBOX, NEW, SEL, SENT, MailFamily, _Gen, mail_screen
from guigym.apps.mail import when as mail_when
from guigym.apps.messages import THEIRS, MessagesFamily, _reachable, fact_message, thread_screen
from guigym.apps.permission import permission_goal
from guigym.apps.phone import PhoneFamily, _fold, conversation_deleted, notes_plus_app
from guigym.apps.schema import AppSpec, CalEvent, Card, CartItem, DeviceState, MailRecord, Scenario, ShopSpec, Task
from guigym.apps.shop import (
    ANY,
    CART,
    CAT,
    CHECKOUT,
    COLOUR,
    DONE,
    MAIN,
    PRICE,
    SEARCH,
    ShopApp,
    cart_of,
    catalog,
    item_screen,
    line_qty,
    money,
    product_of,
    product_screen,
)
from guigym.apps.tools import PEOPLE, calls_placed, note_tables, time_label
from guigym.i18n.content import tables

NOTES, CONTACTS, MESSAGES, MAIL, CALENDAR, SHOP = "Notes", "Contacts", "Messages", "Mail", "Calendar", "Shop"
TOOLS: tuple[str, ...] = (NOTES, CONTACTS, MESSAGES, MAIL, CALENDAR, SHOP)
STUBS: tuple[str, ...] = tuple(a for a in STUB_APPS if a not in TOOLS)
#: How many apps a task spans, per level.
SPAN = {"easy": 2, "medium": 3, "hard": 4}
#: (icons, notes, people, conversations, inbox mails, events) per level (the Shop uses its family's level sizes).
LEVEL_SIZES: dict[str, tuple[tuple[int, int], ...]] = {
    "easy": ((8, 12), (2, 4), (5, 7), (2, 4), (4, 6), (3, 6)),
    "medium": ((13, 20), (5, 9), (10, 16), (5, 9), (8, 12), (6, 10)),
    "hard": ((21, 32), (6, 10), (16, 24), (8, 12), (12, 18), (9, 14)),
}
#: Where a fact comes from, and the apps it can go to. "chain": the sender of a mail, then their number.
SOURCES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "address": ((MESSAGES,), (NOTES, MAIL)),
    "meeting": ((MAIL,), (CALENDAR, NOTES, MESSAGES)),
    "price": ((SHOP,), (NOTES, MESSAGES, MAIL)),
    "phone": ((CONTACTS,), (NOTES, MESSAGES, MAIL)),
    "chain": ((MAIL, CONTACTS), (NOTES, MESSAGES)),
}
#: A new mail's subject, per source.
SUBJECTS: dict[str, tuple[str, ...]] = {
    "address": ("Address", "The address", "Where to go", "Here it is"), "meeting": ("Meeting time", "The time", "Heads-up"),
    "price": ("Price check", "The price", "Worth a look", "For you"), "phone": ("The number", "Phone number", "Contact", "As promised"),
    "chain": ("The number", "Phone number", "Contact", "As promised"),
}
#: How the first clause names the fact (later clauses say "it").
FACT = {
    "address": ("the address in {a}'s last message", "the address {a} sent you in Messages"),
    "meeting": ("the time of the meeting in the latest mail from {a}", "the start time of the meeting {a} mailed you about last"),
    "price": ("the price of the cheapest {c} {k} in the Shop", "what the cheapest {c} {k} in the Shop costs"),
    "phone": ("{a}'s phone number", "the phone number of {a}"),
    "chain": ('the phone number of the person who sent you the mail about "{s}"',
              'the number (in Contacts) of whoever sent the mail "{s}"'),
}
NOTE_T = ("save {f} in a new note titled '{t}'", "put {f} in a new note called '{t}'")
MSG_T = ("text {f} to {n}", "send {f} to {n} in Messages")
MAIL_T = ('email {f} to {n} with the subject "{s}"', 'send {n} a mail with the subject "{s}" and {f} as its text')
REPLY_T = ('reply to the mail from {n} about "{s}" with {f}', 'answer {n}\'s mail "{s}" with {f}')
CAL_T = ("add the meeting in the latest mail from {a} to the calendar as '{t}'",
         "put the meeting from {a}'s latest mail in the calendar, titled '{t}'")
#: The meeting mail's body: an opening, the date, the start, a closing (the older meetings': the date and the start).
MEETING_OPENS = ("Here are the details.", "Quick note about our next meeting.", "Please join us.")
MEETING_SAYS = ("The meeting is on {d}.", "We meet on {d}.", "It is planned for {d}.")
STARTS = ("It starts at {t}.", "We start at {t} sharp.", "It begins at {t}.")
MEETING_CLOSES = ("See you there.", "Talk soon.", "Thanks a lot!")
#: A meeting's date in its mail ("Saturday, March 14, 2026"): said in the mail's language, not formatted at display.
LONG_DATE = "{weekday}, {month} {day}, {year}"
WEEKDAYS: tuple[str, ...] = WEEKDAY_NAMES
MONTHS: tuple[str, ...] = MONTH_NAMES
#: The meeting mails' subject template and topic: their index in the Mail family's ``SUBJECTS``
#: (its table in the generating language has the same entry there).
_MEETING_SUBJECT = next(i for i, (t, _) in enumerate(mail_app.SUBJECTS) if t == "{team} meeting")

Record = tuple[str, str, str]  # a sent mail: (recipient, subject, body)
Key = tuple[str, str, str, str]  # an event: (title, date, time, repeat)
# a state's notes (start ones by id, new ones counted), mails (start boxes, new ones counted), events (likewise)
Digest = tuple[dict[int, tuple[str, str]], Counter[tuple[str, str]], dict[int, str], Counter[Record], dict[int, Key],
               Counter[Key]]


class CrossJob(TypedDict):
    type: str  # "note", "msg", "mail" (compose), "reply" or "cal": the change in the target app
    app: str
    name: str | None  # msg / mail: the recipient; reply: the sender of the mail replied to
    title: str | None  # note / cal: the title; mail / reply: the subject
    text: str  # the fact as typed (cal: the time label)
    ref: int | None  # reply: the mail's id
    date: str | None  # cal: the date ("2026-03-20")
    time: str | None  # cal: the start ("15:30")


class CrossRead(TypedDict):
    app: str  # where the fact (or a step of the chain) is read
    ref: int  # the conversation, mail, product or person that shows it


class CrossTask(Task):
    source: str  # a key of SOURCES
    fact: str  # what is carried (a meeting: its time label)
    reads: list[CrossRead]  # in order; each before the first change
    jobs: list[CrossJob]  # in the instruction's order


class Expected(TypedDict):
    new_notes: Counter[tuple[str, str]]
    book: dict[str, list[str]]
    sends: Counter[Record]
    events: Counter[Key]
    # the start's data as success/failed compare it (computed once per scenario, not every step)
    notes0: dict[int, tuple[str, str]]
    boxes0: dict[int, str]
    events0: dict[int, Key]
    cart0: dict[str, int]


# --- Shop+ -----------------------------------------------------------------------------------
@register_app
class ShopSeen(SeenScreens, ShopApp):
    """The Shop family's app that remembers which product screens were opened (``data["seen"]``:
    the oracle reads a price there before it carries it; never compared)."""

    kind = "shop_seen"

    def seen_id(self, sid: str) -> int | None:
        return product_of(sid)


def _long_date(d: dt.date) -> str:
    """``d`` as the meeting mail says it, in the generating language ("Saturday, March 14, 2026")."""
    T = tables(__name__)
    return T.LONG_DATE.format(weekday=T.WEEKDAYS[d.weekday()], month=T.MONTHS[d.month - 1], day=d.day, year=d.year)


def _title_at(like: str, subject: str) -> int | None:
    """Where the Calendar family's titles have the meeting's ``subject`` (made from the Mail
    family's template ``like`` and one of its teams), found by position in the English tables
    ("Budget meeting"): the calendar's titles leave the same entry out in every language, so
    the draws are the same whether or not the translated tables name it alike."""
    tm = tables(mail_app.__name__)
    team = next((k for k, t in enumerate(tm.TEAMS) if like.format(team=t) == subject), None)
    if team is None:
        return None
    english = mail_app.SUBJECTS[_MEETING_SUBJECT][0].format(team=mail_app.TEAMS[team])
    return calendar_app.TITLES.index(english) if english in calendar_app.TITLES else None


def _job(kind: str, app: str, text: str, **kw: Any) -> CrossJob:
    job: dict[str, Any] = {"type": kind, "app": app, "name": None, "title": None, "text": text, "ref": None, "date": None,
                           "time": None}
    job.update(kw)
    return cast(CrossJob, job)


# --- the family ------------------------------------------------------------------------------
class CrossAppFamily(Family):
    name = "CrossApp"
    #: A template is the fact's source (``SOURCES``); the levels' spans allow these.
    templates = {"easy": ("address", "meeting", "price", "phone"), "medium": ("address", "meeting", "price", "phone", "chain"),
                 "hard": ("meeting", "price", "phone", "chain")}
    description = "A phone: read a fact in one app (Messages, Mail, Shop, Contacts) and use it in others (Notes, Calendar, Mail, …)."
    apps = TOOLS + STUBS + BRANDS
    task_type = CrossTask
    permission_apps = (MAIL,)
    _memo: tuple[Scenario, Expected] | None = None
    _mail = MailFamily()  # its reply steps (stateless)

    # --- generation ------------------------------------------------------------------------
    def template(self, scenario: Scenario) -> str:
        return str(self._task(scenario)["source"])

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        T = tables(__name__)
        (ilo, ihi), (nlo, nhi), (plo, phi), (tlo, thi), (mlo, mhi), (elo, ehi) = LEVEL_SIZES[level]
        span = SPAN[level]
        # the source, and as many target apps as the level's span needs
        pool = [s for s, (src, dst) in SOURCES.items() if len(src) < span and len(src) + len(dst) >= span]
        source = pick(rng, pool)
        src_apps, dst_apps = SOURCES[source]
        targets = sample(rng, list(dst_apps), span - len(src_apps))
        if source == "chain" and span == 4:  # the chain's Mail gets a change too (a mail on): a longer hard task
            targets.insert(int(rng.integers(0, 3)), MAIL)
        if source == "meeting" and CALENDAR in targets:  # the calendar takes the whole meeting: first
            targets.remove(CALENDAR)
            targets.insert(0, CALENDAR)
        names = sorted(sample(rng, PEOPLE, int(rng.integers(plo, phi + 1))))
        cards: list[Card] = [{"id": i, "name": n, "phone": phone_number(rng), "email": email_address(rng, n),
                              "fav": bool(rng.random() < 0.3)} for i, n in enumerate(names)]
        contacts: AppSpec = {"kind": "phonebook", "name": CONTACTS, "root": "main", "color": list(pick(rng, ICON_COLORS)),
                             "cards": cards,
                             "screens": {"main": {"title": pick(rng, ("Contacts", "People")), "parent": None, "rows": []}}}
        messages = PhoneFamily._messenger(rng, names, int(rng.integers(tlo, thi + 1)))
        # who the task is about: the source person (a, or the chain's sender), then the recipients
        a = pick(rng, [t["name"] for t in messages["threads"]]) if source == "address" else pick(rng, names)
        others = [n for n in names if n != a]
        recipients = sample(rng, others, 3)  # a message's, a mail's, the sender of a mail to reply to
        now = int(rng.integers(9 * 60, 21 * 60))
        today = self._today(rng, level)
        reply = recipients[2] if MAIL in targets and rng.random() < 0.5 else None
        mail_plan = {"meeting": a if source == "meeting" else None, "sender": a if source == "chain" else None, "reply": reply}
        mail, facts = self._mailbox(rng, level, names, int(rng.integers(mlo, mhi + 1)), now, today, mail_plan)
        shop, price_pid = self._shop(rng, level, source == "price")
        new_title = pick(rng, note_tables().NOTE_TITLES)
        notes = notes_plus_app(rng, int(rng.integers(nlo, nhi + 1)), [new_title])
        meeting_title = str(facts.get("subject", ""))
        calendar = self._calendar(rng, level, today, int(rng.integers(elo, ehi + 1)), facts.get("title_at"))
        # the fact and where it is read
        reads: list[CrossRead] = []
        fact_args: dict[str, str] = {"a": a}
        if source == "address":
            th = next(t for t in messages["threads"] if t["name"] == a)
            msg, fact = fact_message(rng, "address")
            th["msgs"].append(THEIRS + msg)
            th["unread"] = True
            reads.append({"app": MESSAGES, "ref": th["id"]})
            if level != "easy":  # addresses and times in other conversations: the sender matters
                for t in messages["threads"]:
                    if t is not th and rng.random() < 0.3:
                        t["msgs"].append(THEIRS + fact_message(rng, pick(rng, ("address", "time")))[0])
        elif source == "meeting":
            fact = time_label(int(facts["minutes"]))
            reads.append({"app": MAIL, "ref": int(facts["meeting"])})
        elif source == "price":
            p = shop["shop"]["products"][price_pid]
            fact = money(p["price"])
            fact_args.update(c=p["colour"].lower(), k=tables("guigym.apps.shop").CATEGORIES[p["cat"]][2])
            reads.append({"app": SHOP, "ref": price_pid})
        elif source == "phone":
            fact = next(c["phone"] for c in cards if c["name"] == a)
            reads.append({"app": CONTACTS, "ref": names.index(a)})
        else:
            fact = next(c["phone"] for c in cards if c["name"] == a)
            fact_args["s"] = str(facts["about"])
            reads += [{"app": MAIL, "ref": int(facts["sender"])}, {"app": CONTACTS, "ref": names.index(a)}]
        jobs: list[CrossJob] = []
        for app in targets:
            if app == NOTES:
                jobs.append(_job("note", NOTES, fact, title=new_title))
            elif app == MESSAGES:
                jobs.append(_job("msg", MESSAGES, fact, name=recipients[0]))
            elif app == CALENDAR:
                jobs.append(_job("cal", CALENDAR, fact, title=meeting_title, date=str(facts["date"]),
                                 time=hhmm(int(facts["minutes"]))))
            elif "reply" in facts:
                m = next(m for m in mail["mails"] if m["id"] == facts["reply"])
                jobs.append(_job("reply", MAIL, fact, name=m["peer"], title=m["subject"], ref=m["id"]))
            else:
                jobs.append(_job("mail", MAIL, fact, name=recipients[1], title=pick(rng, T.SUBJECTS[source])))
        text = self._instruction(rng, source, fact_args, jobs)
        apps: dict[str, AppSpec] = {NOTES: notes, CONTACTS: contacts, MESSAGES: messages, MAIL: mail, CALENDAR: calendar,
                                    SHOP: shop}
        for name in sample(rng, list(STUBS + BRANDS), int(rng.integers(ilo, ihi + 1)) - len(TOOLS)):
            apps[name] = stub_app(rng, name)
        icons = sample(rng, list(apps), len(apps))
        task: CrossTask = {"instruction": text, "source": source, "fact": fact, "reads": reads, "jobs": jobs}
        return {
            "family": self.name, "level": level, "apps": apps, "home": {"enabled": True, "icons": icons}, "theme": theme(rng),
            "start": {"fg": HOME, "values": {}}, "task": task,
        }

    @staticmethod
    def _today(rng: np.random.Generator, level: str) -> dt.date:
        """A Wednesday of 2026-2027 (the day Mail and Messages date their lists from); at easy
        one with a week of its month left (the meeting is in the month the calendar opens on)."""
        first = dt.date(2026, 1, 7)  # a Wednesday
        while True:
            today = first + dt.timedelta(days=7 * int(rng.integers(0, 104)))
            if level != "easy" or (today + dt.timedelta(days=7)).month == today.month:
                return today

    @staticmethod
    def _mailbox(rng: np.random.Generator, level: str, contacts: list[str], n_mails: int, now: int, today: dt.date,
                 plan: dict[str, Any]) -> tuple[AppSpec, dict[str, Any]]:
        """The Mail app with the mails ``plan`` asks for (the meeting from ``plan["meeting"]``, the
        chain's mail from ``plan["sender"]``, a mail from ``plan["reply"]`` to reply to), and the
        facts in it: ``meeting`` (its mail id), ``date``, ``minutes``,
        ``subject`` and ``title_at`` (where the calendar's titles have it, if they do);
        ``sender`` and ``about`` (the chain's mail); ``reply`` (a mail's id)."""
        T, tm = tables(__name__), tables(mail_app.__name__)
        g = _Gen(rng)
        like, topic = tm.SUBJECTS[_MEETING_SUBJECT]  # "{team} meeting" in the generating language
        avoid = {topic}  # fillers never talk of a meeting: the task's is the one to find
        special = {n for n in (plan["meeting"], plan["sender"], plan["reply"]) if n}
        fillers = [n for n in contacts if n not in special] or list(contacts)
        mails: list[dict[str, Any]] = []
        facts: dict[str, Any] = {}
        tags: dict[int, str] = {}  # generation index -> "meeting" / "sender" / "reply" / "old"
        far = 6 if level == "easy" else 40
        if plan["meeting"]:
            k = int(rng.integers(1, far + 1))
            d = today + dt.timedelta(days=k)
            minutes = int(pick(rng, TIMES))
            subject = g.subject(like=like)[0]
            body = " ".join((pick(rng, T.MEETING_OPENS), pick(rng, T.MEETING_SAYS).format(d=_long_date(d)),
                             pick(rng, T.STARTS).format(t=time_label(minutes)), pick(rng, T.MEETING_CLOSES)))
            tags[len(mails)] = "meeting"
            mails.append({"peer": plan["meeting"], "subject": subject, "body": body})
            facts.update(date=iso(d), minutes=minutes, subject=subject, title_at=_title_at(like, subject))
            if level != "easy":  # an older meeting from the same sender; one from someone else
                for peer, tag in ((plan["meeting"], "old"), (pick(rng, fillers), "")):
                    d2 = today + dt.timedelta(days=int(rng.integers(1, far + 1)))
                    m2 = int(pick(rng, [t for t in TIMES if t != minutes]))
                    s2 = g.subject(like=like)[0]
                    b2 = " ".join((pick(rng, T.MEETING_SAYS).format(d=_long_date(d2)), pick(rng, T.STARTS).format(t=time_label(m2))))
                    if tag:
                        tags[len(mails)] = tag
                    mails.append({"peer": peer, "subject": s2, "body": b2})
        if plan["sender"]:
            tags[len(mails)] = "sender"
            m = g.mail(plan["sender"], avoid=avoid)
            mails.append(m)
            facts["about"] = m["subject"]
            if level != "easy":  # a similar subject from someone else
                mails.append(g.mail(pick(rng, fillers), like=m["tpl"]))
        if plan["reply"]:
            tags[len(mails)] = "reply"
            mails.append(g.mail(plan["reply"], avoid=avoid))
        while len(mails) < n_mails:
            mails.append(g.mail(pick(rng, fillers), avoid=avoid))
        order = [int(i) for i in rng.permutation(len(mails))]
        if "old" in tags.values():  # the task's meeting is its sender's most recent mail
            i_new = next(i for i, t in tags.items() if t == "meeting")
            i_old = next(i for i, t in tags.items() if t == "old")
            p_new, p_old = order.index(i_new), order.index(i_old)
            if p_old < p_new:
                order[p_new], order[p_old] = i_old, i_new
        ages = sorted(sample(rng, range(1, 6 * 1440), len(mails)))
        records: list[MailRecord] = []
        for pos, i in enumerate(order):
            m = mails[i]
            tag = tags.get(i, "")
            if tag in ("meeting", "sender", "reply"):
                facts[tag] = pos
            records.append({"id": pos, "box": INBOX, "peer": m["peer"], "subject": m["subject"], "body": m["body"],
                            "time": mail_when(now, ages[pos]), "unread": tag in ("meeting", "sender") or bool(rng.random() < 0.4)})
        for _ in range(int(rng.integers(1, 3))):  # a few sent mails
            m = g.mail(pick(rng, contacts), avoid=avoid)
            records.append({"id": len(records), "box": SENT, "peer": m["peer"], "subject": m["subject"], "body": m["body"],
                            "time": mail_when(now, int(rng.integers(6 * 1440, 9 * 1440))), "unread": False})
        spec: AppSpec = {
            "kind": "mail", "name": MAIL, "root": "main", "color": list(pick(rng, ICON_COLORS)), "mails": records,
            "contacts": list(contacts), "now": time_label(now),
            "screens": {
                "main": {"title": pick(rng, ("Inbox", "Mail", "All inboxes")), "parent": None, "rows": [
                    row("compose", "button", pick(rng, ("Compose", "New mail", "Write")), to=NEW, style="primary"),
                ]},
                NEW: {"title": "New mail", "parent": "main", "rows": []},
                SEL: {"title": "Select mails", "parent": "main", "rows": []},
            },
        }
        return spec, facts

    @staticmethod
    def _shop(rng: np.random.Generator, level: str, asked: bool) -> tuple[AppSpec, int]:
        """The Shop app (the Shop family's catalog and a cart) and, when ``asked``, the cheapest
        product of a (category, colour) with several products where there is one."""
        products, cats, colours = catalog(rng, level)
        groups: dict[tuple[str, str], list[Any]] = {}
        for p in products:
            groups.setdefault((p["cat"], p["colour"]), []).append(p)
        pool = [g for _, g in sorted(groups.items()) if len(g) >= 2] or [g for _, g in sorted(groups.items())]
        best = min(pick(rng, pool), key=lambda p: p["price"]) if asked else products[0]
        in_cart = sample(rng, products, int(rng.integers(0, 3)))
        cart: list[CartItem] = [{"pid": p["id"], "size": pick(rng, p["sizes"]), "qty": int(rng.integers(1, 3))} for p in in_cart]
        shop: ShopSpec = {"products": products, "cats": cats, "colours": colours, "cart": cart, "card_field": False,
                          "saved_card": f"{int(rng.integers(0, 10000)):04d}", "order_base": int(rng.integers(1000, 9000))}
        spec: AppSpec = {
            "kind": "shop_seen", "name": SHOP, "root": MAIN, "color": list(pick(rng, ICON_COLORS)), "shop": shop,
            "screens": {
                MAIN: {"title": pick(rng, ("Shop", "Store", "Catalog")), "parent": None, "rows": []},
                CART: {"title": "Cart", "parent": MAIN, "rows": []},
                CHECKOUT: {"title": "Checkout", "parent": CART, "rows": []},
                DONE: {"title": "Order placed", "parent": None, "rows": []},
            },
        }
        return spec, int(best["id"])

    @staticmethod
    def _calendar(rng: np.random.Generator, level: str, today: dt.date, n: int, avoid: int | None) -> AppSpec:
        """The Calendar app: ``n`` events in today's month (and the next at medium and hard), none
        titled as the meeting (``avoid``: where the titles have its subject, if they do)."""
        days = [today + dt.timedelta(days=k) for k in range(-today.day + 1, 62)]
        days = [d for d in days if d.month == today.month or (level != "easy" and d > today)]
        titles = sample(rng, [t for i, t in enumerate(tables(calendar_app.__name__).TITLES) if i != avoid], n)
        events: list[CalEvent] = []
        for k, title in enumerate(titles):
            events.append({"id": k, "title": title, "date": iso(pick(rng, days)), "time": hhmm(int(pick(rng, TIMES))),
                           "repeat": "never" if rng.random() < 0.8 else "weekly"})
        return {
            "kind": "calendar", "name": CALENDAR, "root": "main", "color": list(pick(rng, ICON_COLORS)), "events": events,
            "today": iso(today),
            "screens": {
                "main": {"title": pick(rng, ("Calendar", "Agenda", "My calendar")), "parent": None, "rows": [
                    row(CAL_ADD, "button", pick(rng, ("Add event", "New event", "Create event")), action="add", to=FORM,
                        style="primary"),
                ]},
                FORM: {"title": "New event", "parent": None, "rows": []},
            },
        }

    @staticmethod
    def _instruction(rng: np.random.Generator, source: str, args: dict[str, str], jobs: list[CrossJob]) -> str:
        """The clauses in the jobs' order: the first names where the fact is, the others say "it"
        ("its time" after a first clause that puts the whole meeting in the calendar)."""
        fact = pick(rng, FACT[source]).format(**args)
        clauses: list[str] = []
        for i, j in enumerate(jobs):
            # after the calendar's clause (the whole meeting), every later one says which part it
            # carries: "it" could be read as the meeting, where only its time is accepted
            f = fact if i == 0 else "its time" if jobs[0]["type"] == "cal" else "it"
            if j["type"] == "cal":
                c = pick(rng, CAL_T).format(a=args["a"], t=j["title"])
            elif j["type"] == "note":
                c = pick(rng, NOTE_T).format(f=f, t=j["title"])
            elif j["type"] == "msg":
                c = pick(rng, MSG_T).format(f=f, n=j["name"])
            elif j["type"] == "mail":
                c = pick(rng, MAIL_T).format(f=f, n=j["name"], s=j["title"])
            else:
                c = pick(rng, REPLY_T).format(f=f, n=j["name"], s=j["title"])
            clauses.append(c)
        text = clauses[0][0].upper() + clauses[0][1:]
        for c in clauses[1:]:
            text += pick(rng, JOINS) + c
        return text + "."

    # --- progress --------------------------------------------------------------------------
    @staticmethod
    def _task(scenario: Scenario) -> CrossTask:
        return cast(CrossTask, scenario["task"])

    def _expected(self, scenario: Scenario) -> Expected:
        """The changes the task asks for (memoised for the last scenario, by identity: checked
        on every step; never mutate it)."""
        memo = self._memo
        if memo is not None and memo[0] is scenario:
            return memo[1]
        apps = scenario["apps"]
        out: Expected = {"new_notes": Counter(), "book": {t["name"]: list(t["msgs"]) for t in apps[MESSAGES]["threads"]},
                         "sends": Counter(), "events": Counter(),
                         "notes0": {i: (_fold(n["title"]), _fold(n["body"])) for i, n in enumerate(apps[NOTES]["notes"])},
                         "boxes0": {m["id"]: m["box"] for m in apps[MAIL]["mails"]},
                         "events0": {e["id"]: key_of(e) for e in apps[CALENDAR]["events"]},
                         "cart0": self._start_cart(scenario)}
        for j in self._task(scenario)["jobs"]:
            k = j["type"]
            if k == "note":
                out["new_notes"][(_fold(j["title"]), _fold(j["text"]))] += 1
            elif k == "msg":
                name = str(j["name"])
                out["book"][name] = [*out["book"].get(name, []), ">" + j["text"]]
            elif k == "mail":
                out["sends"][(str(j["name"]), str(j["title"]), j["text"])] += 1
            elif k == "reply":
                out["sends"][(str(j["name"]), f"Re: {j['title']}", j["text"])] += 1
            else:
                out["events"][(str(j["title"]), str(j["date"]), str(j["time"]), "never")] += 1
        self._memo = (scenario, out)
        return out

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each read about a conversation, person, mail or product of the scenario; each job of a
        known type in its app, a reply to a mail of the scenario, a message to a conversation or a
        contact of the picker, an event on a date at a time the form can hold."""
        apps, task = scenario["apps"], self._task(scenario)
        have = {MESSAGES: {t["id"] for t in apps[MESSAGES]["threads"]}, CONTACTS: {c["id"] for c in apps[CONTACTS]["cards"]},
                MAIL: {m["id"] for m in apps[MAIL]["mails"]}, SHOP: range(len(apps[SHOP]["shop"]["products"]))}
        what = {MESSAGES: "conversation", CONTACTS: "person", MAIL: "mail", SHOP: "product"}
        out: list[str] = []
        for i, r in enumerate(task["reads"]):
            out += missing(f"$.task.reads[{i}].app", r["app"], have, "app a fact is read in")
            if r["app"] in have:
                out += missing(f"$.task.reads[{i}].ref", r["ref"], have[r["app"]], f"{what[r['app']]} of the scenario's {r['app']}")
        names = [*(t["name"] for t in apps[MESSAGES]["threads"]), *apps[MESSAGES]["contacts"]]
        for i, j in enumerate(task["jobs"]):
            w, k = f"$.task.jobs[{i}]", j["type"]
            app = {"note": NOTES, "msg": MESSAGES, "mail": MAIL, "reply": MAIL, "cal": CALENDAR}.get(k)
            if app is None:
                out.append(f"{w}.type: {k!r:.40} is no CrossApp job type")
                continue
            out += missing(f"{w}.app", j["app"], (app,), f"app of a {k} job")
            if k == "reply":
                out += missing(f"{w}.ref", j["ref"], have[MAIL], "mail of the scenario's Mail")
            elif k == "msg":
                out += missing(f"{w}.name", j["name"], names, "conversation or contact of the scenario's Messages")
            elif k == "cal" and not (is_date(j["date"]) and is_time(j["time"])):
                out.append(f"{w}: date {j['date']!r:.20} or time {j['time']!r:.20} is not a YYYY-MM-DD date and an HH:MM time")
        return out

    @staticmethod
    def _notes(scenario: Scenario, state: DeviceState) -> tuple[dict[int, tuple[str, str]], Counter[tuple[str, str]]]:
        n0 = len(scenario["apps"][NOTES]["notes"])
        notes = state["apps"][NOTES]["data"]["notes"]
        return ({n["id"]: (_fold(n["title"]), _fold(n["body"])) for n in notes if n["id"] < n0},
                Counter((_fold(n["title"]), _fold(n["body"])) for n in notes if n["id"] >= n0))

    @staticmethod
    def _mails(scenario: Scenario, state: DeviceState) -> tuple[dict[int, str], Counter[Record]]:
        n0 = len(scenario["apps"][MAIL]["mails"])
        mails = state["apps"][MAIL]["data"]["mails"]
        return ({m["id"]: m["box"] for m in mails if m["id"] < n0},
                Counter((m["peer"], m["subject"], m["body"]) for m in mails if m["id"] >= n0))

    @staticmethod
    def _events(scenario: Scenario, state: DeviceState) -> tuple[dict[int, Key], Counter[Key]]:
        n0 = len(scenario["apps"][CALENDAR]["events"])
        events = state["apps"][CALENDAR]["data"]["events"]
        return ({e["id"]: key_of(e) for e in events if e["id"] < n0}, Counter(key_of(e) for e in events if e["id"] >= n0))

    @staticmethod
    def _start_cart(scenario: Scenario) -> dict[str, int]:
        return {f"{c['pid']}|{c['size']}": c["qty"] for c in scenario["apps"][SHOP]["shop"]["cart"]}

    def _digest(self, scenario: Scenario, state: DeviceState) -> Digest:
        """What success, failure and progress compare: the notes, mails and events of ``state``
        against those the scenario started with (read once by :meth:`assess` for all three)."""
        return (*self._notes(scenario, state), *self._mails(scenario, state), *self._events(scenario, state))

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        return self._success(scenario, state, self._digest(scenario, state))

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        return self._failed(scenario, state, self._digest(scenario, state))

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        return self._next_goal(scenario, state, self._digest(scenario, state))

    def assess(self, scenario: Scenario, state: DeviceState) -> tuple[Any, bool, Goal | None]:
        d = self._digest(scenario, state)
        if self._success(scenario, state, d):
            return True, False, None
        if self._failed(scenario, state, d):
            return False, True, None
        return False, False, self._next_goal(scenario, state, d)

    def _success(self, scenario: Scenario, state: DeviceState, d: Digest) -> bool:
        want, apps, sapps = self._expected(scenario), scenario["apps"], state["apps"]
        notes, new_notes, boxes, sent, old_events, new_events = d
        return (notes == want["notes0"]
                and new_notes == want["new_notes"]
                and sapps[CONTACTS]["data"]["people"] == apps[CONTACTS]["cards"]
                and {t["name"]: t["msgs"] for t in sapps[MESSAGES]["data"]["threads"]} == want["book"]
                and boxes == want["boxes0"] and sent == want["sends"]
                and old_events == want["events0"] and new_events == want["events"]
                and not sapps[SHOP]["data"]["orders"] and cart_of(sapps[SHOP]) == want["cart0"]
                and not calls_placed(sapps[CONTACTS]))

    def _failed(self, scenario: Scenario, state: DeviceState, d: Digest) -> bool | str:
        want, apps, sapps = self._expected(scenario), scenario["apps"], state["apps"]
        notes, new_notes, boxes, sent, old_events, new_events = d
        if notes != want["notes0"]:
            return "a note was edited or deleted (no task asks for it)"
        if new_notes - want["new_notes"]:
            return "a note the task does not ask for was saved (or one with the wrong title or text)"
        if calls_placed(sapps[CONTACTS]):
            return CALL_PLACED
        if sapps[CONTACTS]["data"]["people"] != apps[CONTACTS]["cards"]:
            return "a contact was changed or deleted (no task asks for it)"
        if conversation_deleted(apps[MESSAGES], sapps[MESSAGES]):
            return CONVERSATION_DELETED
        book = {t["name"]: t["msgs"] for t in sapps[MESSAGES]["data"]["threads"]}
        if any(n not in want["book"] for n in book):
            return NEW_CONVERSATION
        if not all(_reachable(book.get(n, []), w) for n, w in want["book"].items() if book.get(n) != w):
            return WRONG_MESSAGES
        if boxes != want["boxes0"]:
            return MAIL_MOVED
        if sent - want["sends"]:
            return MAIL_SENT
        if old_events != want["events0"]:
            return "an event was changed or deleted (no task asks for it)"
        if new_events - want["events"]:
            return "an event the task does not ask for was added (or a wrong one)"
        if sapps[SHOP]["data"]["orders"]:
            return "an order was placed (no task asks for one)"
        # a quantity changed is not yet a failure (the steppers can set it back); an item added or removed is
        have, cart0 = set(cart_of(sapps[SHOP])), set(want["cart0"])
        if have - cart0:
            return CART_ITEM_ADDED
        return CART_ITEM_REMOVED if cart0 - have else False

    def _done(self, scenario: Scenario, state: DeviceState, j: CrossJob, d: Digest) -> bool:
        k = j["type"]
        if k == "note":
            return d[1][(_fold(j["title"]), _fold(j["text"]))] > 0
        if k == "msg":
            th = next((t for t in state["apps"][MESSAGES]["data"]["threads"] if t["name"] == j["name"]), None)
            return th is not None and th["msgs"] == self._expected(scenario)["book"][str(j["name"])]
        if k in ("mail", "reply"):
            subject = str(j["title"]) if k == "mail" else f"Re: {j['title']}"
            return d[3][(str(j["name"]), subject, j["text"])] > 0
        return d[5][(str(j["title"]), str(j["date"]), str(j["time"]), "never")] > 0

    def _next_goal(self, scenario: Scenario, state: DeviceState, d: Digest) -> Goal | None:
        needs = any(j["type"] == "mail" for j in self._task(scenario)["jobs"])  # a new mail: through the To dropdown
        return permission_goal(scenario, state, MAIL, self._next(scenario, state, d), needs)

    def _next(self, scenario: Scenario, state: DeviceState, d: Digest) -> Goal | None:
        task = self._task(scenario)
        shop, cart0 = state["apps"][SHOP], self._expected(scenario)["cart0"]
        have = cart_of(shop)
        for x in shop["data"]["cart"]:  # a quantity changed (Add to cart again, a stepper): set it back first
            k = f"{x['pid']}|{x['size']}"
            if k in cart0 and have[k] != cart0[k]:
                return Goal(SHOP, item_screen(x["lid"]), line_qty(x["lid"]), "set", cart0[k])
        jobs = [j for j in task["jobs"] if not self._done(scenario, state, j, d)]
        if not jobs:
            return None
        for r in task["reads"]:  # the fact is read on screen before it is used
            g = self._read(scenario, state, r)
            if g is not None:
                return g
        return self._goal(scenario, state, jobs[0])

    def _read(self, scenario: Scenario, state: DeviceState, r: CrossRead) -> Goal | None:
        """Open where the fact is shown, once (the app remembers it: a read mark, a seen list)."""
        app_state = state["apps"][r["app"]]
        data = app_state["data"]
        if r["app"] == MESSAGES:
            th = next((t for t in data["threads"] if t["id"] == r["ref"]), None)
            return Goal(MESSAGES, "main", thread_screen(r["ref"]), "press") if th is not None and th["unread"] else None
        if r["app"] == CONTACTS:
            return None if r["ref"] in data["seen"] else Goal(CONTACTS, "main", person_screen(r["ref"]), "press")
        if r["app"] == MAIL:
            m = next((m for m in data["mails"] if m["id"] == r["ref"]), None)
            if m is None or not m["unread"] or m["box"] != INBOX:
                return None
            stub: Any = {"search": None}
            return MailFamily._reach(app_state, stub, m, on_list=True) or Goal(MAIL, "main", mail_screen(m["id"]), "press")
        if r["ref"] in data["seen"]:
            return None
        # every candidate listed: no search text, the category and colour chosen, any price
        p = scenario["apps"][SHOP]["shop"]["products"][r["ref"]]
        vals = app_state["values"]
        for key, want in ((SEARCH, ""), (CAT, p["cat"]), (COLOUR, p["colour"]), (PRICE, ANY)):
            if vals.get(key) != want:
                return Goal(SHOP, MAIN, key, "set", want)
        return Goal(SHOP, MAIN, product_screen(p["id"]), "press")

    def _goal(self, scenario: Scenario, state: DeviceState, j: CrossJob) -> Goal:
        app_state = state["apps"][j["app"]]
        vals = app_state["values"]
        k = j["type"]
        if k == "note":
            for f, v in (("title", j["title"]), ("body", j["text"])):
                if vals.get(f"new.{f}") != v:
                    return Goal(NOTES, "new", f"new.{f}", "set", v)
            return Goal(NOTES, "new", "new.save", "press")
        if k == "msg":
            return MessagesFamily._send(app_state, scenario["apps"][MESSAGES]["contacts"], str(j["name"]), j["text"])
        if k == "mail":
            t: Any = {"name": j["name"], "subject": j["title"], "body": j["text"]}
            return MailFamily._compose(app_state, t)
        if k == "reply":
            m = next(m for m in app_state["data"]["mails"] if m["id"] == j["ref"])
            t = {"type": "reply", "body": j["text"], "search": None}
            return self._mail._reply(app_state, t, m)
        if FORM not in app_state["stack"] or vals.get("form.edit", -1) != -1:
            return CalendarFamily._via_main(app_state, None, Goal(CALENDAR, "main", CAL_ADD, "press"))
        return CalendarFamily._fill(vals, j["title"], j["date"], str(j["time"]), "never")
