"""Login behaviour: wrong credentials, lock-out, remember-me failure, verification."""

from __future__ import annotations

from guigym.actions import Back, Click, OpenApp, Type
from tests.conftest import make


def click(env, wid):
    for e in env.unwrapped.elements():
        if e["id"] == wid:
            x0, y0, x1, y1 = e["box"]
            return env.step(Click((x0 + x1) // 2, (y0 + y1) // 2))
    raise AssertionError(f"{wid} not visible")


def fill(env, wid, text):
    click(env, wid)
    return env.step(Type(text))


def test_wrong_password_shows_error_and_is_recoverable():
    env = make("GuiGym-Login-v0", level="easy")
    _, info = env.reset(seed=0)
    task = env.unwrapped.scenario["task"]
    fill(env, "user", task["user"])
    fill(env, "pass", "wrong")
    _, r, term, _, info = click(env, "signin")
    assert not term and r == 0
    assert env.unwrapped.get_state()["state"]["apps"][task["app"]]["values"]["error"]
    assert info["reference"][0].target == "pass"  # the oracle fixes the password
    fill(env, "pass", task["password"])
    _, r, term, _, info = click(env, "signin")
    assert term and r == 1.0 and info["success"]


def test_lockout_fails_the_episode():
    env = make("GuiGym-Login-v0", level="hard")
    _, info = env.reset(seed=1)
    task = env.unwrapped.scenario["task"]
    env.step(OpenApp(task["app"].lower()))  # app names are case-insensitive
    fill(env, "user", task["user"])
    fill(env, "pass", "nope")
    for i in range(3):
        _, r, term, _, info = click(env, "signin")
        assert info["failure"] is None or i == 2
    assert term and not info["success"] and info["reference"] == []
    assert info["failure"] == "the account is locked (too many wrong sign-ins)"


def test_wrong_remember_choice_fails():
    env = make("GuiGym-Login-v0", level="medium")
    for seed in range(50):
        env.reset(seed=seed)
        if env.unwrapped.scenario["task"]["remember"] is not None:
            break
    task = env.unwrapped.scenario["task"]
    state = env.unwrapped.get_state()["state"]["apps"][task["app"]]["values"]
    if state["remember"] == task["remember"]:
        click(env, "remember")  # make it wrong
    fill(env, "user", task["user"])
    fill(env, "pass", task["password"])
    _, r, term, _, info = click(env, "signin")
    assert term and r == 0 and not info["success"]
    assert info["failure"].startswith("signed in, but not as the task asks")


def test_back_from_app_goes_home_on_hard():
    env = make("GuiGym-Login-v0", level="hard")
    _, info = env.reset(seed=2)
    assert env.unwrapped.current_view.app == "home"
    env.step(info["reference"][0].action)  # OpenApp
    assert env.unwrapped.current_view.app != "home"
    env.step(Back())
    assert env.unwrapped.current_view.app == "home"
    _, _, _, _, info = env.step(Back())  # Back at home: no-op, no error
    assert info["action_error"] is None and info["event"].kind == "back"


def test_wrong_remember_choice_at_the_code_screen_is_recoverable():
    """Hard: the sign-in press with the wrong remember-me choice opens the code screen, but nothing
    is signed in yet: the episode goes on and the reference goes Back to fix the box first."""
    env = make("GuiGym-Login-v0", level="hard")
    for seed in range(3):
        _, info = env.reset(seed=seed)
        task = env.unwrapped.scenario["task"]
        env.step(OpenApp(task["app"]))
        fill(env, "user", task["user"])
        fill(env, "pass", task["password"])
        values = env.unwrapped.get_state()["state"]["apps"][task["app"]]["values"]
        if values["remember"] == task["remember"]:
            click(env, "remember")  # make it wrong
        _, r, term, _, info = click(env, "signin")
        assert env.unwrapped.current_view.screen == "verify"
        assert not term and r == 0 and not info["success"]
        assert isinstance(info["reference"][0].action, Back)
        for _ in range(12):
            _, r, term, _, info = env.step(info["reference"][0].action)
            if term:
                break
        assert term and r == 1.0 and info["success"]
        assert env.unwrapped.get_state()["state"]["apps"][task["app"]]["data"]["session"]["remember"] == task["remember"]


def test_the_remember_me_wording_matches_where_the_box_starts():
    """The instruction said "leave 'Remember me' unticked" of a box that starts ticked (38 of
    73 such medium seeds in 0-299), and "tick" of one already ticked: taken literally, the
    opposite of the task. Now a box's word follows its start, in English and in German, and
    the choice the task needs is what the reference sets."""
    import gymnasium as gym

    seen = set()
    for lang in (None, "de"):
        for level in ("medium", "hard"):
            env = gym.make("GuiGym-Login-v0", variation=None if lang is None else {"language": "de"},
                           split="train" if lang is None else "test")
            for seed in range(60):
                _, info = env.reset(seed=seed, options={"level": level})
                sc = env.unwrapped.scenario
                want = sc["task"]["remember"]
                start = next(r["value"] for r in sc["apps"][sc["task"]["app"]]["screens"]["main"]["rows"] if r["id"] == "remember")
                text = env.unwrapped.instruction
                said = {  # each phrasing of the box, by (choice, start); None: either start
                    (True, True): (" keep '", " lass das Häkchen bei '"), (True, False): (" tick '", " setze ein Häkchen bei '"),
                    (False, True): (" untick '", " entferne das Häkchen bei '"), (False, False): (" leave '", "' leer"),
                }
                for (choice, ticked), words in said.items():
                    if any(w in text for w in words):
                        assert (choice, ticked) == (want, start), (lang, level, seed, text)
                        seen.add((lang, choice, ticked))
                clicks_box = any(s.target == "remember" for s in info["reference"])
                assert clicks_box == (want != start), (lang, level, seed)
            env.close()
    assert len(seen) == 8, seen  # every wording was met, in both languages


def test_the_german_instruction_names_the_fields_as_the_screen_labels_them():
    """The German instruction said "mit dem Benutzernamen … und dem Passwort …" whatever the
    screen's labels ("E-Mail", "Anmeldung", "Zugangscode"); now, as in English, a field it names
    is named by the label the German screen shows (with its article), also under the labels axis
    (held-out synonyms): on every level, a field name in the instruction is one on the screen, and
    an instruction naming the fields names both."""
    import gymnasium as gym

    from guigym.apps.login import PASSWORD_LABELS, USER_LABELS
    from guigym.i18n.de import translate
    from guigym.variation import LABELS, NEUTRAL

    groups = [g for g in LABELS["login"] if g.kind == "input"]
    nouns = {translate(x, "input") for x in (*(u for u, _ in USER_LABELS), *(p for p, _ in PASSWORD_LABELS),
                                              *(s for g in groups for s in (*g.train, *g.test)))}
    named = 0
    for variation in ({**NEUTRAL, "language": "de"}, {**NEUTRAL, "language": "de", "labels": "test"}):
        env = gym.make("GuiGym-Login-v0", variation=variation, split="test")
        for level in ("easy", "medium", "hard"):
            for seed in range(80):
                env.reset(seed=seed, options={"level": level})
                sc = env.unwrapped.scenario
                text = sc["task"]["instruction"]
                if level == "hard":  # the sign-in form, after opening the app from home
                    env.step(OpenApp(sc["task"]["app"]))
                view = env.unwrapped.current_view
                shown = {i: view.find(i).label for i in ("user", "pass")}
                used = {n for n in nouns if n in text} - {"Passwort"}  # "mit dem Passwort …": the word, as "with password"
                assert used <= {shown["user"], shown["pass"]}, (variation, level, seed, text, shown)
                if " und dem Passwort " in text or "Logge dich mit " in text:
                    assert shown["user"] in text and shown["pass"] in text, (variation, level, seed, text, shown)
                    named += 1
        env.close()
    assert named > 30, named
