"""The scenario and state schema: typed names for the JSON every app module passes around.

A :class:`Scenario` (static) describes a device: its apps (:class:`AppSpec`, each with
screens of rows), the home screen, the theme, the start and the task. A :class:`DeviceState`
(dynamic) holds what changes: the foreground app and one :class:`AppState` per app.
They are ``TypedDict`` s, so at run time they stay plain dicts: a scenario survives a JSON
round trip, ``get_state``/``set_state`` and the oracle's ``marshal`` cache keys unchanged.
Renderers never read these; they draw :class:`~guigym.apps.base.View` s.

Ids that carry data (the app of a home-screen icon, the index of a note, ...) are built
(and, where the model reads them back, parsed) only here, so the string formats live in one
place.
"""

from __future__ import annotations

from typing import Any, TypedDict

# --- scenario (static) -------------------------------------------------------------------
# Required keys sit in a base class and optional ones in a ``total=False`` subclass, the
# Python 3.10 spelling of ``Required``/``NotRequired``.


class _RowKeys(TypedDict):
    id: str
    kind: str  # one of ``base.KINDS``
    label: str


class RowSpec(_RowKeys, total=False):
    """One row of a screen: the JSON form of :class:`~guigym.apps.base.Widget` (only the
    fields that are set; see :func:`~guigym.apps.base.row`)."""

    value: Any  # a row with a value keeps it in AppState["values"][id]
    placeholder: str
    secret: bool
    style: str  # "", "primary", "muted", "error", "heading"
    detail: str
    to: str  # links and buttons: the screen they push
    action: str  # buttons: the app's handler name
    group: str  # radio options and choice links: the value they select / show
    option: str  # radio options: the value they select into ``group``


class _ScreenKeys(TypedDict):
    title: str
    parent: str | None  # the screen a link to this one sits on (None: reached by a button, or the root)
    rows: list[RowSpec]


class ScreenSpec(_ScreenKeys, total=False):
    pop_on_select: bool  # choosing a radio option closes the screen (an Android choice dialog)
    modal: bool  # a dialog drawn over the screen below it on the stack, which it dims and blocks


class _AccountKeys(TypedDict):
    user: str
    password: str


class Account(_AccountKeys, total=False):
    """A Login app's account."""

    code: str  # a verification code is asked after the password
    max_attempts: int  # the account locks after this many wrong passwords


class Note(TypedDict):
    title: str
    body: str


class Card(TypedDict):
    """A person in the Contacts family's address book (``id``: stable across edits and deletions)."""

    id: int
    name: str
    phone: str
    email: str
    fav: bool


class Thread(TypedDict):
    """A conversation in the Messages family (``id``: stable across sends and deletions)."""

    id: int
    name: str
    time: str  # when its last message came, as the list shows it
    unread: bool
    msgs: list[str]  # oldest first: "<" theirs, ">" yours, "!" yours not delivered, then the text


class FileNode(TypedDict):
    """A file or folder in the Files family (``id``: stable across renames and moves; ``parent``:
    a folder's id, 0 for the top folder)."""

    id: int
    name: str
    parent: int
    folder: bool
    size: int  # KB (0 for a folder)
    date: str  # as shown, "Mar 4, 2025"


class CalEvent(TypedDict):
    """An event in the Calendar family (``id``: stable across edits and deletions)."""

    id: int
    title: str
    date: str  # "2026-03-14"
    time: str  # the start, "15:30" (24 h)
    repeat: str  # "never", "daily", "weekly" or "monthly"


class MailRecord(TypedDict):
    """A mail in the Mail family (``id``: stable across moves between mailboxes)."""

    id: int
    box: str  # "inbox", "sent", "archive" or "trash"
    peer: str  # the sender (the recipient for a sent mail)
    subject: str
    body: str
    time: str  # when it came or went, as the list shows it
    unread: bool


class Product(TypedDict):
    """A product of the Shop family's catalog (``id``: its index in the catalog)."""

    id: int
    name: str
    cat: str  # its category (a tab of the catalog)
    colour: str
    sizes: list[str]  # the sizes it comes in (one entry: no size choice)
    price: int  # in cents


class CartItem(TypedDict):
    pid: int  # a Product's id
    size: str
    qty: int


class ShopSpec(TypedDict):
    """The Shop family's app: the catalog, the cart at the start and the checkout's card."""

    products: list[Product]  # in catalog order
    cats: list[str]  # the category tabs, after "All"
    colours: list[str]  # the colour filter's options, after "Any"
    cart: list[CartItem]  # the cart at the start
    card_field: bool  # the checkout form asks for a card number (else a saved card is used)
    saved_card: str  # the saved card's last 4 digits
    order_base: int  # the first order's number


class _AppSpecKeys(TypedDict):
    kind: str  # the behaviour: a key of ``base.APP_KINDS``
    name: str
    root: str
    screens: dict[str, ScreenSpec]


class AppSpec(_AppSpecKeys, total=False):
    """One app of a device. Family-specific keys are read by that app's behaviour only."""

    color: list[int]  # the icon colour (RGB)
    defaults: dict[str, str]  # the starting option of each choice group
    option_labels: dict[str, str]  # how a choice link shows an option (default: the option)
    account: Account  # kind "login"
    notes: list[Note]  # kind "notes": saved notes at the start
    people: list[str]  # kind "contacts": names, in list order
    cards: list[Card]  # kind "addressbook": the people at the start, in list order
    threads: list[Thread]  # kind "messenger": the conversations at the start, most recent first
    contacts: list[str]  # kind "messenger": the names the new-message picker offers, in order
    now: str  # kind "messenger": the in-app time a sent message gets
    nodes: list[FileNode]  # kind "filemanager": the files and folders at the start
    events: list[CalEvent]  # kind "calendar": the events at the start
    today: str  # kind "calendar": the in-app date, "2026-03-11"
    mails: list[MailRecord]  # kind "mail": every mailbox's mails at the start, most recent first
    shop: ShopSpec  # kind "shop": the catalog, the cart at the start, the checkout's card
    permission: str  # kind "messenger": gated by the contacts permission, asked "on_open" or "on_feature" (guigym.variation)


class _HomeKeys(TypedDict):
    enabled: bool  # Back from an app's root screen goes home
    icons: list[str]  # app names, in grid order


class HomeSpec(_HomeKeys, total=False):
    # the ``icons`` variation (guigym.variation): app -> [app whose colour, app whose glyph]
    # its icon shows (its label stays its own)
    looks: dict[str, list[str]]


class StartSpec(TypedDict):
    fg: str  # the foreground app (or ``HOME``)
    values: dict[str, dict[str, Any]]  # per app: values that differ from the rows' defaults


class _TaskKeys(TypedDict):
    instruction: str


class Task(_TaskKeys, total=False):
    """What every task has; each family adds its own keys (see its ``*Task`` type)."""

    strict: bool  # Settings, Launcher: compare the whole state (``gym.make(..., strict=True)``)


class Popup(TypedDict):
    """An interruption (``guigym.variation``): a dialog over the whole device."""

    kind: str  # cookie, permission, rate, update
    title: str
    detail: str
    buttons: list[list[str]]  # [id, label, style] each; every button closes it
    dismiss: str  # the button the oracle presses
    after: int  # steps after reset before it shows (0: at reset)


class _BannerKeys(TypedDict):
    text: str
    kind: str  # button or link (does nothing) or label


class Banner(_BannerKeys, total=False):
    """Adversarial content (``guigym.variation``): a row at the top of every app screen, or
    (with ``after``) one inside its content that looks like the app's own rows."""

    after: int  # a content hint: after this many of the screen's rows
    detail: str  # a content hint's second line
    app: str  # a content hint: the app it points to


class _ScenarioKeys(TypedDict):
    family: str
    level: str
    apps: dict[str, AppSpec]
    home: HomeSpec
    theme: dict[str, Any]  # colour name -> RGB list, see ``family.THEMES`` (and ``font_scale``, a variation's)
    start: StartSpec
    task: Task  # at run time the family's subtype (LoginTask, SettingsTask, LauncherTask)


class Scenario(_ScenarioKeys, total=False):
    variation: dict[str, Any]  # the variation applied (``guigym.variation``), read back in ``info``
    popup: Popup
    banner: Banner
    relabel: dict[str, dict[str, dict[str, str]]]  # per app, per widget kind: label -> held-out synonym (``labels`` axis)
    descriptions: dict[str, Any]  # long content texts (``guigym.descriptions``): ``length`` and ``seed``


# --- state (dynamic) ---------------------------------------------------------------------
class AppState(TypedDict):
    stack: list[str]  # open screens, root first
    scroll: dict[str, int]  # first visible row, per screen
    focus: str | None  # the focused input
    values: dict[str, Any]  # row values by id, and choice groups' options
    data: dict[str, Any]  # the app's own records (notes, a session, attempts)


class _DeviceKeys(TypedDict):
    fg: str  # the foreground app, or ``HOME``
    page: int  # the home screen's page
    apps: dict[str, AppState]


class DeviceState(_DeviceKeys, total=False):
    answer: str  # what an ``Answer`` told the user (only families whose tasks ask questions)
    popup: int  # the scenario's popup: steps until it shows (> 0), showing (0), closed (-1)


# --- ids ---------------------------------------------------------------------------------
def icon_id(app: str) -> str:
    """The id of ``app``'s home-screen icon.

    >>> icon_id("Notes"), icon_app("icon:Notes"), icon_app("signin")
    ('icon:Notes', 'Notes', None)
    """
    return f"icon:{app}"


def icon_app(widget_id: str) -> str | None:
    """The app a home-screen icon id names (None if ``widget_id`` is not an icon's)."""
    return widget_id[len("icon:"):] if widget_id.startswith("icon:") else None


def record_id(sid: str, *heads: str) -> int | None:
    """The record number of a screen id ``"<head>:<n>"`` whose head is one of ``heads`` (the
    families' "t:3", "d:3", … screens), else None.

    >>> record_id("t:3", "t", "d"), record_id("d:3", "t"), record_id("t:x", "t")
    (3, None, None)
    """
    head, _, rest = sid.partition(":")
    return int(rest) if head in heads and rest.isdigit() else None


def sub_id(screen: str, name: str) -> str:
    """A row id private to ``screen`` (``"c:3.call"``), unique across the app."""
    return f"{screen}.{name}"


def link_id(screen: str) -> str:
    """The id of a link that opens ``screen`` in Settings (``"go:display"``)."""
    return f"go:{screen}"


def note_screen(index: int) -> str:
    """The screen (and link id) of the ``index``-th saved note.

    >>> note_screen(2), note_index("note:2"), note_index("main")
    ('note:2', 2, None)
    """
    return f"note:{index}"


def note_index(screen: str) -> int | None:
    """The note a note screen shows (None if ``screen`` is not a note's)."""
    return int(screen[len("note:"):]) if screen.startswith("note:") else None


def choice_screen(setting: str) -> str:
    """The options screen of a Settings choice.

    >>> choice_screen("font_size"), option_id("font_size", 2)
    ('choice:font_size', 'font_size=2')
    """
    return f"choice:{setting}"


def option_id(setting: str, index: int) -> str:
    """The radio row of option ``index`` on a choice's options screen."""
    return f"{setting}={index}"


def info_screen(parent: str, position: int) -> str:
    """A Settings screen without settings, reached from row ``position`` of ``parent``."""
    return f"{parent}/{position}"


def pad_id(screen: str, k: int) -> str:
    """The ``k``-th distractor switch padding a long Settings list."""
    return f"pad:{screen}:{k}"


def alarm_id(minutes: int) -> str:
    """A Clock alarm's switch, by its time in minutes after midnight.

    >>> alarm_id(6 * 60 + 30)
    'alarm:0630'
    """
    return f"alarm:{minutes // 60:02d}{minutes % 60:02d}"


def clock_tab(k: int) -> str:
    """The screen (and link id) of the Clock's ``k``-th tab."""
    return f"tab:{k}"


def contact_screen(index: int) -> str:
    """The screen of the ``index``-th person in Contacts (list order)."""
    return f"c:{index}"


def contact_link(index: int) -> str:
    """The link to :func:`contact_screen` on the Contacts list."""
    return f"open:{index}"


def favourite_id(index: int) -> str:
    """The "Favourite" switch on a person's screen."""
    return f"fav:{index}"
