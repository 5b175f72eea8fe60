"""The contacts permission (``guigym.variation``'s ``permission`` axis), shared by the app kinds
that pick recipients from the contacts (Messages' contact picker, Mail's To dropdowns).

A gated app (:func:`gate`) asks "Allow <app> to access your contacts?" in a dialog
(:data:`PERM`: Don't allow / Allow) when it opens (``"on_open"``: over its first screen) or when
its contact picker is first opened (``"on_feature"``). ``data["perm"]`` holds the decision:
``"ask"`` (not decided yet), ``"allow"`` or ``"deny"``. The prompt does not come back: after
Don't allow the picker offers nobody until the Contacts switch (:data:`PERM_KEY`) in the app's
own settings screen (:data:`APP_SETTINGS`, a "Settings" link on the app's first screen) is on.

An app kind mixes in :class:`ContactsGate` (its ``with_permission``, the switch, the prompt's
buttons and helpers for its screens and events); a family whose ``permission_apps`` lists a
gated app wraps its oracle's goal in :func:`permission_goal` (answer the prompt, recover from a
denial through the settings).
"""

from __future__ import annotations

from guigym.apps.base import App, Widget, app_of, row
from guigym.apps.family import Goal
from guigym.apps.schema import AppSpec, AppState, DeviceState, Scenario, sub_id

PERM = "perm"  # the prompt "Allow <app> to access your contacts?" (a dialog)
PERM_ALLOW, PERM_DENY = sub_id(PERM, "allow"), sub_id(PERM, "deny")
APP_SETTINGS = "app_settings"  # the app's settings: its permissions
PERM_KEY = "perm.contacts"  # the Contacts permission's switch there
SETTINGS_LINK = "go:app_settings"
#: ``data["perm"]``: the permission, "ask" (not decided yet), "allow" or "deny" (the prompt does
#: not come back: only the switch in the app's settings turns it on).
PERM_STATES = ("ask", "allow", "deny")


def gate(spec: AppSpec, when: str, use: str) -> AppSpec:
    """``spec`` gated by the contacts permission, asked ``when`` (``"on_open"`` or
    ``"on_feature"``): the prompt's dialog, the app's settings screen (its Contacts switch, whose
    detail says what the contacts are for: ``use``) and a "Settings" link after the rows of the
    app's first screen (``spec["screens"]["main"]``)."""
    name = spec["name"]
    main = spec["screens"]["main"]
    screens = {
        **spec["screens"],
        "main": {**main, "rows": [*main["rows"], row(SETTINGS_LINK, "link", "Settings", detail="Permissions", to=APP_SETTINGS)]},
        PERM: {"title": f"Allow {name} to access your contacts?", "parent": None, "modal": True, "rows": [
            row(sub_id(PERM, "dialog"), "dialog", "Allow access to contacts?", detail=f"{name} wants to see your contacts"),
            row(PERM_DENY, "button", "Don't allow", action="perm_deny"),
            row(PERM_ALLOW, "button", "Allow", action="perm_allow", style="primary"),
        ]},
        APP_SETTINGS: {"title": f"{name} settings", "parent": "main", "rows": [
            row(sub_id(APP_SETTINGS, "head"), "label", "Permissions", style="heading"),
            row(PERM_KEY, "toggle", "Contacts", detail=use, value=False),
        ]},
    }
    return {**spec, "screens": screens, "permission": when}  # type: ignore[typeddict-item]


class ContactsGate(App):
    """Mixin of an app kind that the contacts permission can gate (``class Messenger(ContactsGate)``).

    The app calls :meth:`gate_state` from ``initial_state``, :meth:`ask_first` where its picker
    opens, :meth:`answer_prompt` first in ``on_button``, and shows its picker's contacts only
    while :meth:`contacts_allowed` (:meth:`blocked_rows` say why not after a denial). The
    switch in the settings is handled here (``on_toggle``)."""

    #: The Contacts switch's detail in the app's settings: what the contacts are for.
    contacts_use = "Choose recipients from your contacts"

    def with_permission(self, spec: AppSpec, when: str) -> AppSpec:
        return gate(spec, when, self.contacts_use)

    def picks_contact(self, spec: AppSpec, goal: Goal) -> bool:
        """Whether ``goal`` (an oracle goal in this app) is reached through the contact picker."""
        raise NotImplementedError

    @staticmethod
    def gate_state(spec: AppSpec, state: AppState) -> None:
        """The initial state's permission: undecided, and asked at once when it is asked on open."""
        if spec.get("permission"):
            state["data"]["perm"] = "ask"
            if spec["permission"] == "on_open":
                state["stack"].append(PERM)

    @staticmethod
    def contacts_allowed(spec: AppSpec, state: AppState) -> bool:
        """Whether the picker lists the contacts: ungated, or allowed."""
        return not spec.get("permission") or state["data"].get("perm") == "allow"

    @staticmethod
    def asks(spec: AppSpec, state: AppState) -> bool:
        """Whether opening the picker asks first (gated, not decided yet)."""
        return bool(spec.get("permission")) and state["data"].get("perm") == "ask"

    def ask_first(self, spec: AppSpec, state: AppState) -> bool:
        """Show the prompt when the picker opens and the permission is undecided; whether it showed."""
        if not self.asks(spec, state):
            return False
        self.push(state, PERM)
        return True

    @staticmethod
    def blocked_rows(spec: AppSpec, at: str) -> list[Widget]:
        """Where the contacts would be (``at``: the picker's screen or field id): why there are none."""
        name = spec["name"]
        return [Widget(sub_id(at, "blocked"), "label", f"{name} can't access your contacts", style="error"),
                Widget(sub_id(at, "how"), "label", f"Allow it in {name} settings > Contacts", style="muted")]

    def answer_prompt(self, state: AppState, w: Widget) -> bool:
        """The prompt's buttons: decided (the switch follows), it closes and does not come back.
        Whether ``w`` was one of them."""
        if w.action not in ("perm_allow", "perm_deny"):
            return False
        state["data"]["perm"] = "allow" if w.action == "perm_allow" else "deny"
        state["values"][PERM_KEY] = state["data"]["perm"] == "allow"
        self.pop(state)
        return True

    def on_toggle(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        if w.id == PERM_KEY:  # the app's settings: the permission follows its switch
            state["data"]["perm"] = "allow" if state["values"][PERM_KEY] else "deny"


def permission_goal(scenario: Scenario, state: DeviceState, app: str, goal: Goal | None, needs: bool) -> Goal | None:
    """``goal`` on a device whose ``app`` may be gated (:func:`gate`): answer its prompt when it
    shows in front (Allow when the task ``needs`` the contacts, else Don't allow), and after a
    denial turn the permission on in the app's settings before the picker is needed
    (:meth:`ContactsGate.picks_contact`). Ungated: ``goal`` as it is."""
    if not scenario["apps"][app].get("permission"):
        return goal
    app_state = state["apps"][app]
    if app_state["stack"][-1] == PERM and state["fg"] == app:
        return Goal(app, PERM, PERM_ALLOW if needs else PERM_DENY, "press")
    if goal is not None and goal.app == app and app_state["data"].get("perm") == "deny":
        kind, spec = app_of(scenario, app)
        if isinstance(kind, ContactsGate) and kind.picks_contact(spec, goal):
            return Goal(app, APP_SETTINGS, PERM_KEY, "set", True)
    return goal
