"""Login: sign in to an app with a username and a password.

Description:
    A sign-in screen with a username (or email) field, a password field, a remember-me
    checkbox, a sign-in button and distractors (forgot-password link, sign-up button,
    single-sign-on button, headings). Labels, field order around the form, themes and
    distractors vary with the seed.
Instruction:
    "Log in as alice with password maple42", optionally with the remember-me choice
    ("and tick 'Keep me signed in'"), a verification code, and the app to open first.
Actions:
    Click, Scroll, Back, OpenApp and Type (``type`` is ``Discrete(5)``: no task asks a
    question).
Levels:
    * easy: the sign-in screen, empty fields, no remember-me requirement.
    * medium: a remember-me requirement, stale text pre-filled in the username field,
      more distractors.
    * hard: starts on the phone's home screen (OpenApp first), a verification-code screen
      after the password, and the account locks after 3 wrong attempts (the episode then
      fails).
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when signed in as the instructed user with the instructed remember-me choice.
    Failure (terminated) when signed in with the wrong remember-me choice, or locked out; with
    ``gym.make(..., strict=True)`` also once "Send reset link" was pressed (a mail went out
    that the task did not ask for: OpenApps' rule, a side effect; by default it is ignored,
    as the published Login tables were trained). At
    hard, Sign in with the wrong remember-me choice opens the code screen without signing in:
    not yet a failure (Back, set the checkbox, sign in again; the reference does so).
Registered ids:
    ``GuiGym-Login-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

from typing import cast

import numpy as np

from guigym.apps.base import HOME, App, Widget, register_app, row
from guigym.apps.catalog import BRANDS, FIRST_NAMES, ICON_COLORS, LAST_NAMES, STUB_APPS, password, stub_app
from guigym.apps.family import Family, Goal, missing, pick, sample, theme
from guigym.apps.schema import Account, AppSpec, AppState, DeviceState, HomeSpec, Scenario, ScreenSpec, StartSpec, Task

USER_LABELS = (("Username", "Enter your username"), ("User name", "Your user name"), ("Login", "Login name"), ("Email", "you@example.com"))
PASSWORD_LABELS = (("Password", "Enter your password"), ("Passcode", "Your passcode"))
REMEMBER_LABELS = ("Remember me", "Keep me signed in", "Stay signed in")
SIGNIN_LABELS = ("Sign in", "Log in", "Continue", "Sign me in")
FORGOT_LABELS = ("Forgot password?", "Reset password", "Trouble signing in?")
SIGNUP_LABELS = ("Create account", "Sign up", "Register")
SSO_LABELS = ("Sign in with Google", "Continue with Apple", "Use single sign-on")
HEADINGS = ("Welcome back!", "Good to see you", "Please sign in", "Hello again")


class LoginTask(Task):
    app: str  # the app to sign in to
    user: str
    password: str
    remember: bool | None  # the remember-me choice to make (None: any)
    code: str | None  # the verification code (hard)


@register_app
class LoginApp(App):
    """Sign-in behaviour; ``data`` gets ``attempts``, ``locked``, ``reset_sent`` (once "Send reset
    link" was pressed: a mail went out, a side effect under ``strict=True``) and, once signed in,
    ``session = {"user", "remember"}``."""

    kind = "login"

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        # data starts empty, so set_state's shape check sees none of these keys: a wrong type
        # would crash a later step (int("abc") on a wrong sign-in) or be misjudged (remember "no")
        data, bad = state["data"], []
        sent = data.get("reset_sent", True)
        if type(sent) is not bool:
            bad.append(f"data.reset_sent: {sent!r:.40} is not a bool")
        locked = data.get("locked", True)
        if type(locked) is not bool:
            bad.append(f"data.locked: {locked!r:.40} is not a bool")
        attempts = data.get("attempts", 0)
        if type(attempts) is not int or attempts < 0:
            bad.append(f"data.attempts: {attempts!r:.40} is not an int >= 0")
        sess = data.get("session")
        if "session" in data and not (isinstance(sess, dict) and set(sess) == {"user", "remember"}
                                      and type(sess["user"]) is str and type(sess["remember"]) is bool):
            bad.append(f"data.session: {sess!r:.40} is not {{'user': str, 'remember': bool}}")
        return [*super().state_problems(spec, state), *bad]

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        vals, data = state["values"], state["data"]
        acct = spec["account"]
        if w.action == "signin":
            ok = vals.get("user", "") == acct["user"] and vals.get("pass", "") == acct["password"]
            if ok:
                vals["error"] = ""
                if acct.get("code"):
                    self.push(state, "verify")
                else:
                    self._sign_in(state)
            else:
                data["attempts"] = int(data.get("attempts", 0)) + 1
                vals["error"] = "Incorrect username or password"
                limit = acct.get("max_attempts")
                if limit and data["attempts"] >= limit:
                    data["locked"] = True
                    self.push(state, "locked")
        elif w.action == "verify":
            if vals.get("code", "") == acct.get("code"):
                self._sign_in(state)
            else:
                vals["code_error"] = "That code is not right"
        elif w.action == "reset":
            vals["reset_msg"] = "If the account exists, we sent a reset link."
            data["reset_sent"] = True
        elif w.action == "register":
            vals["signup_msg"] = "Registration is closed right now."
        elif w.to is not None:
            self.push(state, w.to)

    def _sign_in(self, state: AppState) -> None:
        state["data"]["session"] = {"user": state["values"].get("user", ""), "remember": bool(state["values"].get("remember", False))}
        self.push(state, "welcome")


def _spec(rng: np.random.Generator, level: str, brand: str, acct: Account) -> tuple[AppSpec, dict[str, str]]:
    ulabel, uph = pick(rng, USER_LABELS)
    plabel, pph = pick(rng, PASSWORD_LABELS)
    labels = {"user": ulabel, "pass": plabel, "remember": pick(rng, REMEMBER_LABELS), "signin": pick(rng, SIGNIN_LABELS)}
    remember_default = bool(rng.integers(2)) if level != "easy" else False
    form = [
        row("user", "input", ulabel, placeholder=uph, value=""),
        row("pass", "input", plabel, placeholder=pph, value="", secret=True),
        row("error", "label", "", value="", style="error"),
    ]
    remember = row("remember", "checkbox", labels["remember"], value=remember_default)
    signin = row("signin", "button", labels["signin"], action="signin", style="primary")
    # remember-me sits above or below the button, as on real sites
    form += [remember, signin] if rng.integers(2) else [signin, remember]
    extras = [row("forgot", "link", pick(rng, FORGOT_LABELS), to="forgot"), row("signup", "button", pick(rng, SIGNUP_LABELS), to="signup")]
    if level != "easy":
        extras.append(row("sso", "button", pick(rng, SSO_LABELS), to="sso"))
    extras = sample(rng, extras, len(extras))
    head = [row("heading", "label", pick(rng, HEADINGS), style="heading")] if level != "easy" or rng.integers(2) else []
    if level == "hard":
        head.append(row("notice", "label", f"{brand} will never ask for your password by email.", style="muted"))
    screens: dict[str, ScreenSpec] = {
        "main": {"title": f"{brand}", "parent": None, "rows": head + form + extras},
        "forgot": {"title": "Reset password", "parent": "main", "rows": [
            row("reset_email", "input", "Email", placeholder="you@example.com", value=""),
            row("reset_send", "button", "Send reset link", action="reset", style="primary"),
            row("reset_msg", "label", "", value=""),
        ]},
        "signup": {"title": "Create account", "parent": "main", "rows": [
            row("su_name", "input", "Full name", value=""),
            row("su_email", "input", "Email", value=""),
            row("su_pass", "input", "Choose a password", value="", secret=True),
            row("su_go", "button", "Register", action="register", style="primary"),
            row("signup_msg", "label", "", value=""),
        ]},
        "sso": {"title": "Single sign-on", "parent": "main", "rows": [
            row("sso_info", "label", "Single sign-on is not set up for this device."),
            row("sso_hint", "label", "Go back to sign in with your password.", style="muted"),
        ]},
        "verify": {"title": "Verification", "parent": None, "rows": [
            row("verify_info", "label", "Enter the code we sent to your phone."),
            row("code", "input", "Verification code", placeholder="6-digit code", value=""),
            row("code_error", "label", "", value="", style="error"),
            row("verify", "button", "Verify", action="verify", style="primary"),
        ]},
        "welcome": {"title": f"{brand}", "parent": None, "rows": [
            row("welcome_msg", "label", "You are signed in."),
            row("signout", "button", "Sign out"),
        ]},
        "locked": {"title": "Account locked", "parent": None, "rows": [
            row("locked_msg", "label", "Too many failed attempts.", style="error"),
            row("locked_hint", "label", "Try again in 24 hours.", style="muted"),
        ]},
    }
    spec: AppSpec = {
        "kind": "login", "name": brand, "root": "main", "screens": screens, "account": acct, "color": list(pick(rng, ICON_COLORS)),
    }
    return spec, labels


class LoginFamily(Family):
    name = "Login"
    description = "Sign in with a username and password (remember-me, verification code, lock-out)."
    apps = BRANDS + STUB_APPS
    task_type = LoginTask
    templates = {"easy": ("sign_in",), "medium": ("remember", "no_remember"), "hard": ("remember", "no_remember")}
    lenient = True  # only the session is compared, unless strict=True (then a reset link sent fails)

    def template(self, scenario: Scenario) -> str:
        remember = scenario["task"]["remember"]  # type: ignore[typeddict-item]
        return "sign_in" if remember is None else "remember" if remember else "no_remember"

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        brand = pick(rng, BRANDS)
        first = pick(rng, FIRST_NAMES)
        style = int(rng.integers(3))
        user = first if style == 0 else f"{first}.{pick(rng, LAST_NAMES)}" if style == 1 else f"{first}{int(rng.integers(10, 100))}"
        acct: Account = {"user": user, "password": password(rng)}
        if level == "hard":
            acct["code"] = f"{int(rng.integers(0, 1_000_000)):06d}"
            acct["max_attempts"] = 3
        spec, labels = _spec(rng, level, brand, acct)
        if labels["user"] == "Email":
            acct["user"] = f"{user}@example.com"
        remember: bool | None = None if level == "easy" else bool(rng.integers(2))

        verb = pick(rng, ("Log in", "Sign in"))
        phrasing = int(rng.integers(3))
        if phrasing == 0:
            text = f"{verb} as {acct['user']} with password {acct['password']}"
        elif phrasing == 1:
            text = f"{verb} with {labels['user'].lower()} {acct['user']} and {labels['pass'].lower()} {acct['password']}"
        else:
            text = f"Use the account {acct['user']} (password: {acct['password']}) to {verb.lower()}"
        # said from where the box starts: "leave it unticked" of a ticked box, or "tick" one that is
        # ticked, asks for the opposite of the task (same draws whatever the wording)
        ticked = next(r["value"] for r in spec["screens"]["main"]["rows"] if r["id"] == "remember")
        rem = labels["remember"]
        if remember is True:
            text += pick(rng, (f" and keep '{rem}' ticked" if ticked else f" and tick '{rem}'", f", with '{rem}' checked"))
        elif remember is False:
            text += pick(rng, (f" and untick '{rem}'" if ticked else f" and leave '{rem}' unticked", f", with '{rem}' unchecked"))
        if level == "hard":
            text = f"Open {brand} and {text[0].lower()}{text[1:]}. The verification code is {acct['code']}"
        text += "."

        apps = {brand: spec}
        home: HomeSpec = {"enabled": level == "hard", "icons": [brand]}
        if level == "hard":
            others = sample(rng, STUB_APPS, int(rng.integers(5, 12)))
            for n in others:
                apps[n] = stub_app(rng, n)
            home["icons"] = sample(rng, [brand, *others], len(others) + 1)
        start: StartSpec = {"fg": HOME if level == "hard" else brand, "values": {}}
        if level != "easy":  # a stale entry someone left in the username field
            start["values"][brand] = {"user": pick(rng, FIRST_NAMES) + str(int(rng.integers(1, 10)))}
        task: LoginTask = {
            "instruction": text, "app": brand, "user": acct["user"], "password": acct["password"], "remember": remember,
            "code": acct.get("code"),
        }
        return {"family": self.name, "level": level, "apps": apps, "home": home, "theme": theme(rng), "start": start, "task": task}

    @staticmethod
    def _task(scenario: Scenario) -> LoginTask:
        return cast(LoginTask, scenario["task"])

    def _app_state(self, scenario: Scenario, state: DeviceState) -> AppState:
        return state["apps"][self._task(scenario)["app"]]

    def task_problems(self, scenario: Scenario) -> list[str]:
        """The app to sign in to is a sign-in app of the scenario, and the user, password and
        code are its account's (others could never sign in: a task no reference completes)."""
        t, apps = self._task(scenario), scenario["apps"]
        logins = [n for n, a in apps.items() if a["kind"] == "login"]
        out = missing("$.task.app", t["app"], logins, "sign-in app of the scenario")
        if not out:
            acct = apps[t["app"]]["account"]
            out += [f"$.task.{k}: {t[k]!r:.40} is not the account's {k}"  # type: ignore[literal-required]
                    for k, v in (("user", acct["user"]), ("password", acct["password"]), ("code", acct.get("code"))) if t[k] != v]  # type: ignore[literal-required]
        return out

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        data = self._app_state(scenario, state)["data"]
        sess = data.get("session")
        t = self._task(scenario)
        if not sess or (data.get("reset_sent") and self.strict(scenario)):
            return False
        return sess["user"] == t["user"] and (t["remember"] is None or sess["remember"] == t["remember"])

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        data = self._app_state(scenario, state)["data"]
        if data.get("reset_sent") and self.strict(scenario):  # no undo
            return "a password-reset mail the task does not ask for was sent"
        if data.get("locked"):
            return "the account is locked (too many wrong sign-ins)"
        if data.get("session") and not self.success(scenario, state):
            return "signed in, but not as the task asks (another account, or 'remember me' set otherwise)"
        return False

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        t = self._task(scenario)
        app = t["app"]
        app_state = self._app_state(scenario, state)
        if app_state["data"].get("session") or app_state["data"].get("locked"):
            return None
        vals = app_state["values"]
        wrong_remember = t["remember"] is not None and bool(vals.get("remember")) != t["remember"]
        if app_state["stack"][-1] == "verify" and not wrong_remember:  # else Back to the form first
            if vals.get("code", "") != t["code"]:
                return Goal(app, "verify", "code", "set", t["code"])
            return Goal(app, "verify", "verify", "press")
        if vals.get("user", "") != t["user"]:
            return Goal(app, "main", "user", "set", t["user"])
        if vals.get("pass", "") != t["password"]:
            return Goal(app, "main", "pass", "set", t["password"])
        if wrong_remember:
            return Goal(app, "main", "remember", "set", t["remember"])
        return Goal(app, "main", "signin", "press")

