"""The Files family by hand: the select mode (checkboxes), rename, move, create, delete through
the dialog (Cancel, Back, Delete), the success check with side effects (a stray deletion fails,
a stray rename is undone by the oracle), opening a file, and generation. (The registry-driven
tests cover the id x level contract.)"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from guigym.actions import Back, Click, Type
from guigym.apps.files import (
    ELLIPSIS,
    NEW,
    ROOT,
    FilesFamily,
    check_id,
    dialog_screen,
    file_screen,
    folder_screen,
    move_screen,
    new_screen,
    rename_screen,
    select_screen,
    where,
)
from guigym.apps.base import View
from guigym.apps.schema import sub_id
from guigym.backends.mock import _Text
from guigym.display import display_list, parts, theme_of
from guigym.events import Event
from guigym.grounding import match_element, normalize_label
from guigym.layout import VIEWPORTS, layout
from guigym.oracle import center
from tests.conftest import make

ENV_ID = "GuiGym-Files-v0"
TOP = "0"  # the screen path of Home
HOME_SCREEN = folder_screen(TOP)


def env_with(changes: list[dict[str, Any]], level: str = "easy", seed: int = 0):
    """An env on ``seed``'s tree whose task is replaced by ``changes`` (filled in)."""
    env = make(ENV_ID, level=level)
    env.reset(seed=seed)
    snap = env.unwrapped.get_state()
    full = [{"nodes": [], "name": None, "dest": None, **c} for c in changes]
    snap["scenario"]["task"] = {"instruction": "a hand-made task", "changes": full}
    env.unwrapped.set_state(snap)
    return env


def nodes(env) -> dict[int, dict[str, Any]]:
    return {n["id"]: n for n in env.unwrapped.get_state()["state"]["apps"]["Files"]["data"]["nodes"]}


def top_files(env) -> list[int]:
    """The files directly in Home, in list order."""
    return [n["id"] for n in sorted(nodes(env).values(), key=lambda n: n["name"].casefold()) if n["parent"] == ROOT and not n["folder"]]


def top_folders(env) -> list[int]:
    return [n["id"] for n in sorted(nodes(env).values(), key=lambda n: n["name"].casefold()) if n["parent"] == ROOT and n["folder"]]


def tap(env, wid: str):
    """Click the centre of visible widget ``wid`` (scrolling down to it first); returns step()'s tuple."""
    for _ in range(10):
        box = env.unwrapped._lay.box(wid)
        if box is not None:
            return env.step(Click(*center(box)))
        env.step("scroll(direction='down')")
    raise AssertionError((wid, [w.id for w, _ in env.unwrapped._lay.visible]))


def select(env, ids: list[int]) -> None:
    """Open the select mode of Home and tick ``ids``."""
    tap(env, sub_id(HOME_SCREEN, "select"))
    assert env.unwrapped.current_view.screen == select_screen(TOP)
    for i in ids:
        tap(env, check_id(i))


def screen(env) -> str:
    return env.unwrapped.current_view.screen


# --- the select mode and the dialog ----------------------------------------------------------
def test_select_mode_lists_checkboxes_and_starts_with_nothing_ticked() -> None:
    env = env_with([{"type": "open", "nodes": [1]}])
    select(env, top_files(env)[:2])
    v = env.unwrapped.current_view
    boxes = [w for w in v.rows if w.kind == "checkbox"]
    assert [w.label for w in v.rows[:3]] == ["Delete", "Move", "Rename"] and v.title == "2 selected"
    assert len(boxes) == len(top_files(env)) + len(top_folders(env)) and sum(bool(w.value) for w in boxes) == 2
    env.step(Back())  # leaving and coming back: Select starts afresh
    tap(env, sub_id(HOME_SCREEN, "select"))
    assert not any(w.value for w in env.unwrapped.current_view.rows if w.kind == "checkbox")
    tap(env, sub_id(select_screen(TOP), "rename"))  # nothing ticked: a message, no screen
    assert screen(env) == select_screen(TOP) and env.unwrapped.current_view.find(sub_id(select_screen(TOP), "msg")).label


def test_multi_select_delete_through_the_dialog_cancel_back_and_confirm() -> None:
    env = make(ENV_ID, level="easy")
    env.reset(seed=0)
    three = top_files(env)[:3]
    env = env_with([{"type": "delete", "nodes": three}])
    start = nodes(env)
    select(env, three)
    before = env.unwrapped.get_state()["state"]
    tap(env, sub_id(select_screen(TOP), "delete"))
    v = env.unwrapped.current_view
    assert v.screen == dialog_screen(TOP) and v.backdrop is not None and v.backdrop.screen == select_screen(TOP)
    assert [w.kind for w in v.rows] == ["dialog", "button", "button"] and v.rows[0].label == "Delete 3 files?"
    assert [e["id"] for e in env.unwrapped.elements()] == [sub_id(dialog_screen(TOP), "cancel"), sub_id(dialog_screen(TOP), "confirm")]
    _, r, term, _, info = tap(env, sub_id(dialog_screen(TOP), "cancel"))  # Cancel: as before, still ticked
    assert env.unwrapped.get_state()["state"] == before and (r, term, info["success"]) == (0.0, False, False)
    tap(env, sub_id(select_screen(TOP), "delete"))
    env.step(Back())  # Back dismisses it too
    assert env.unwrapped.get_state()["state"] == before
    tap(env, sub_id(select_screen(TOP), "delete"))
    _, r, term, _, info = tap(env, sub_id(dialog_screen(TOP), "confirm"))
    assert set(start) - set(nodes(env)) == set(three) and screen(env) == HOME_SCREEN
    assert (r, term, info["success"]) == (1.0, True, True)


def test_one_item_dialog_names_it_and_the_display_list_dims_the_list() -> None:
    env = env_with([{"type": "delete", "nodes": [1]}])
    f = top_files(env)[0]
    select(env, [f])
    tap(env, sub_id(select_screen(TOP), "delete"))
    v = env.unwrapped.current_view
    assert v.rows[0].label == f"Delete {nodes(env)[f]['name']}?"
    widgets = [r for r in display_list(v, layout(v, 360, 640)) if r["type"] == "widget"]
    under, mine = widgets[:-3], widgets[-3:]
    assert any(r["kind"] == "checkbox" for r in under) and all(r.get("inert") and not r["interactive"] for r in under)
    assert [r["kind"] for r in mine] == ["dialog", "button", "button"]


# --- success is a state check with side effects ---------------------------------------------
def test_a_stray_deletion_fails_and_ends_the_episode() -> None:
    base = make(ENV_ID, level="easy")
    base.reset(seed=0)
    keep, drop = top_files(base)[:2]
    env = env_with([{"type": "delete", "nodes": [drop]}])
    select(env, [keep, drop])  # one too many
    tap(env, sub_id(select_screen(TOP), "delete"))
    _, r, term, _, info = tap(env, sub_id(dialog_screen(TOP), "confirm"))
    assert (r, term, info["success"], info["reference"]) == (0.0, True, False, [])
    assert info["failure"] == "a file or folder that should stay was deleted (Files has no trash)"


def test_rename_prefills_rejects_a_clash_and_succeeds() -> None:
    base = make(ENV_ID, level="easy")
    base.reset(seed=0)
    a, b = top_files(base)[:2]
    env = env_with([{"type": "rename", "nodes": [a], "name": "renamed.txt"}])
    names = {i: n["name"] for i, n in nodes(env).items()}
    select(env, [a])
    tap(env, sub_id(select_screen(TOP), "rename"))
    ed = rename_screen(TOP)
    assert screen(env) == ed and env.unwrapped.current_view.find(sub_id(ed, "name")).value == names[a]
    tap(env, sub_id(ed, "name"))
    env.step(Type(names[b].upper()))  # the other file's name: names are unique per folder, ignoring case
    tap(env, sub_id(ed, "save"))
    assert env.unwrapped.current_view.find(sub_id(ed, "error")).label == f"{names[b].upper()} already exists here"
    env.step(Type("renamed.txt"))
    _, r, term, _, info = tap(env, sub_id(ed, "save"))
    assert nodes(env)[a]["name"] == "renamed.txt" and screen(env) == HOME_SCREEN and (r, term, info["success"]) == (1.0, True, True)


def test_move_needs_a_choice_then_moves_into_the_folder() -> None:
    base = make(ENV_ID, level="easy")
    base.reset(seed=0)
    f, d = top_files(base)[0], top_folders(base)[0]
    env = env_with([{"type": "move", "nodes": [f], "dest": d}])
    select(env, [f])
    tap(env, sub_id(select_screen(TOP), "move"))
    pk = move_screen(TOP)
    v = env.unwrapped.current_view
    assert screen(env) == pk and v.rows[0].label == "Move here"
    assert {w.label for w in v.rows if w.kind == "radio"} == {f"Home/{nodes(env)[i]['name']}" for i in top_folders(env)}  # not Home itself
    tap(env, sub_id(pk, "go"))
    assert env.unwrapped.current_view.find(sub_id(pk, "msg")).label == "Choose a folder" and nodes(env)[f]["parent"] == ROOT
    tap(env, f"{pk}.to:{d}")
    _, r, term, _, info = tap(env, sub_id(pk, "go"))
    assert nodes(env)[f]["parent"] == d and (r, term, info["success"]) == (1.0, True, True)


def test_create_a_folder_and_a_stray_one_is_deleted_by_the_oracle() -> None:
    env = env_with([{"type": "create", "name": "Projects 2", "dest": ROOT}])
    start = nodes(env)
    tap(env, sub_id(HOME_SCREEN, "new"))
    ed = new_screen(TOP)
    tap(env, sub_id(ed, "save"))
    assert env.unwrapped.current_view.find(sub_id(ed, "error")).label == "Enter a name"
    tap(env, sub_id(ed, "name"))
    env.step(Type("Projects 3"))  # a typo: a folder the task does not want
    _, r, term, _, info = tap(env, sub_id(ed, "save"))
    made = [n for i, n in nodes(env).items() if i not in start]
    assert [(n["name"], n["parent"], n["folder"]) for n in made] == [("Projects 3", ROOT, True)] and not term
    kinds = [s.event.kind for s in info["reference"]]  # the right one first (New folder, the field, its name, Create),
    assert kinds == ["click", "click", "input", "click", "click", "toggle", "click", "click"]  # then Select, tick, Delete, confirm
    for s in info["reference"]:
        _, r, term, _, info = env.step(s.action)
    assert (r, term, info["success"]) == (1.0, True, True)
    assert sorted(n["name"] for i, n in nodes(env).items() if i not in start) == ["Projects 2"]


def test_a_stray_rename_blocks_success_until_the_oracle_undoes_it() -> None:
    base = make(ENV_ID, level="easy")
    base.reset(seed=0)
    a, b = top_files(base)[:2]
    env = env_with([{"type": "delete", "nodes": [b]}])
    old = nodes(env)[a]["name"]
    select(env, [a])
    tap(env, sub_id(select_screen(TOP), "rename"))
    tap(env, sub_id(rename_screen(TOP), "name"))
    env.step(Type("oops.txt"))
    tap(env, sub_id(rename_screen(TOP), "save"))
    select(env, [b])
    tap(env, sub_id(select_screen(TOP), "delete"))
    _, r, term, _, info = tap(env, sub_id(dialog_screen(TOP), "confirm"))
    assert b not in nodes(env) and (r, term, info["success"]) == (0.0, False, False)  # the stray rename is still there
    assert info["reference"][-2].event == Event("input", sub_id(rename_screen(TOP), "name"), old)
    for s in info["reference"]:
        _, r, term, _, info = env.step(s.action)
    assert (r, term, info["success"]) == (1.0, True, True) and nodes(env)[a]["name"] == old


def test_open_succeeds_when_the_details_are_on_screen() -> None:
    base = make(ENV_ID, level="easy")
    base.reset(seed=0)
    f, g = top_files(base)[:2]
    env = env_with([{"type": "open", "nodes": [f]}])
    _, r, term, _, info = tap(env, file_screen(TOP, g))  # another file: nothing yet
    assert (r, term) == (0.0, False) and [s.event.kind for s in info["reference"]] == ["back", "click"]
    env.step(Back())
    _, r, term, _, info = tap(env, file_screen(TOP, f))
    labels = [w.label for w in env.unwrapped.current_view.rows]
    assert labels[0].startswith("Size: ") and labels[1] == f"Modified: {nodes(env)[f]['date']}" and labels[2] == "In: Home"
    assert (r, term, info["success"]) == (1.0, True, True)


# --- the Move picker's labels -------------------------------------------------------------------
def radio_overflow(v: View, viewport: str, scale: float) -> list[tuple[str, int]]:
    """``(label, px drawn past its row)`` of every destination row of the Move picker ``v`` (not
    only the visible ones) on ``viewport`` at font ``scale``, measured with the mock's fonts."""
    v = dataclasses.replace(v, theme={**v.theme, "font_scale": scale})
    width, height = VIEWPORTS[viewport]
    box = next(b for w, b in layout(v, width, height).visible if w.kind == "radio")
    bw, bh, th, fonts = box[2] - box[0] + 1, box[3] - box[1] + 1, theme_of(v), _Text()
    out = []
    for w in v.rows:
        if w.kind == "radio":
            t = next(p for p in parts(w, bw, bh, th, False, scale) if p["type"] == "text")
            out.append((w.label, t["x"] + fonts._font(t["size"], t["bold"], t.get("font")).size(t["text"])[0] - bw))
    return out


def names_its_row(label: str, path: str) -> bool:
    """Whether ``label`` is ``path`` or a tail of it after the ellipsis ("…/Downloads/Reports")."""
    if not label.startswith(ELLIPSIS + "/"):
        return label == path
    return path.casefold().endswith(label[len(ELLIPSIS):].casefold())


@pytest.mark.parametrize("seed", [2, 3])  # hard create-then-move: a folder four levels deep once created
def test_move_picker_rows_fit_their_row_and_name_their_folder_by_its_tail(seed: int) -> None:
    """On the Move picker every destination's label is drawn inside its row (a full path four
    folders deep ran 17-49 px past it at the default look and its end, which tells the paths
    apart, was cut off), tells its row apart, ends like the folder's path, and the oracle's
    step still grounds to its row; the instruction keeps the full paths."""
    env = make(ENV_ID, level="hard")
    _, info = env.reset(seed=seed)
    instruction = env.unwrapped.instruction
    for _ in range(40):  # the oracle's steps up to its click on the destination's row
        v = env.unwrapped.current_view
        if v.screen.startswith("m:") and ".to:" in str(info["reference"][0].target):
            break
        _, _, _, _, info = env.step(info["reference"][0].action)
    assert v.screen.startswith("m:") and env.unwrapped.instruction == instruction
    looks = [("portrait", 1.0), ("small", 1.0), ("portrait", 1.3), ("small", 1.3)]
    assert {(look, label, over) for look in looks for label, over in radio_overflow(v, *look) if over > 0} == set()
    by_id = {n["id"]: n for n in nodes(env).values()}
    radios = [w for w in v.rows if w.kind == "radio"]
    assert len({normalize_label(w.label) for w in radios}) == len(radios)
    assert all(names_its_row(w.label, where(by_id, int(w.option))) for w in radios)
    assert any(w.label.startswith(ELLIPSIS) for w in radios)
    step = info["reference"][0]
    assert step.target in {w.id for w in radios} and match_element(step.instruction, info["elements"])["id"] == step.target


def test_move_picker_tells_folders_with_the_same_tail_apart() -> None:
    """Folders whose paths end alike keep labels that name one row each: a path is the row it
    labels in full, else the one row whose shortened tail it ends with; each grounds to its row."""
    env = env_with([{"type": "open", "nodes": [1]}])
    snap = env.unwrapped.get_state()
    app = snap["state"]["apps"]["Files"]
    made: dict[tuple[str, ...], int] = {}
    for path in [("Backups", "Clients", "Downloads", "Reports"), ("Drafts", "Clients", "Downloads", "reports"),
                 ("Backups", "Clients", "Reports"), ("Screenshots", "Screenshots"), ("Archive", "Documents", "Clients", "Screenshots")]:
        for k in range(1, len(path) + 1):
            if path[:k] not in made:
                made[path[:k]] = nid = app["data"]["next_id"]
                app["data"]["next_id"] += 1
                app["data"]["nodes"].append({"id": nid, "name": path[k - 1], "parent": made.get(path[:k - 1], ROOT),
                                             "folder": True, "size": 0, "date": "Jun 14, 2025"})
    env.unwrapped.set_state(snap)
    select(env, [top_files(env)[0]])
    tap(env, sub_id(select_screen(TOP), "move"))
    by_id = {n["id"]: n for n in nodes(env).values()}
    radios = [w for w in env.unwrapped.current_view.rows if w.kind == "radio"]
    assert {int(w.option) for w in radios} == {i for i, n in by_id.items() if n["folder"]}  # every folder but Home
    for w in radios:
        path = where(by_id, int(w.option))
        named = [r for r in radios if r.label == path] or [r for r in radios if r.label[:1] == ELLIPSIS and names_its_row(r.label, path)]
        assert named == [w], (path, [r.label for r in named])
        tap(env, w.id)
        assert match_element(f"Click '{w.label}'", env.unwrapped.elements())["id"] == w.id
    assert len({normalize_label(w.label) for w in radios}) == len(radios)


# --- generation --------------------------------------------------------------------------------
def test_generation_varies_and_create_then_move_is_at_least_15_steps() -> None:
    fam = FilesFamily()
    env = make(ENV_ID, level="hard")
    lengths: dict[str, list[int]] = {}
    instructions = set()
    for seed in range(90):
        _, info = env.reset(seed=seed)
        sc = env.unwrapped.scenario
        changes = sc["task"]["changes"]
        key = "+".join(c["type"] for c in changes)
        lengths.setdefault(key, []).append(len(info["reference"]))
        instructions.add(sc["task"]["instruction"])
        tree = sc["apps"]["Files"]["nodes"]
        per_folder = [(n["parent"], n["name"].casefold()) for n in tree]
        assert len(per_folder) == len(set(per_folder))  # names are unique in each folder
        if key == "delete":  # "every .ext file": all of them and only them
            ext = "." + tree[changes[0]["nodes"][0] - 1]["name"].rpartition(".")[2]
            folder = tree[changes[0]["nodes"][0] - 1]["parent"]
            hits = {n["id"] for n in tree if n["parent"] == folder and not n["folder"] and n["name"].endswith(ext)}
            assert hits == set(changes[0]["nodes"]) and len(hits) >= 3
        if key == "create+move":
            assert changes[1]["dest"] == NEW and len(changes[1]["nodes"]) == 3
        assert not fam.question(sc)
    assert set(lengths) == {"delete", "move", "create+move"} and len(instructions) == 90
    assert min(lengths["create+move"]) >= 15


@pytest.mark.browser
def test_select_mode_and_dialog_draw_and_hit_test_alike_on_both_renderers() -> None:
    from guigym.backends.browser import BrowserBackend
    from guigym.backends.mock import MockBackend
    from tests.test_render_parity import MIN_AGREEMENT, agreement

    env = env_with([{"type": "delete", "nodes": [1]}])
    files = top_files(env)
    select(env, files[:2])
    m, b = MockBackend(360, 640), BrowserBackend(360, 640)
    try:
        for k in range(2):  # the select mode (checkboxes, two ticked), then the dialog over it
            if k:
                tap(env, sub_id(select_screen(TOP), "delete"))
            v, lay = env.unwrapped.current_view, env.unwrapped._lay
            m.show(v, lay)
            b.show(v, lay)
            assert agreement(m.screenshot(), b.screenshot()) >= MIN_AGREEMENT
            assert b.boxes() == m.boxes() == {w.id: box for w, box in lay.visible}
        tick = Click(*center(lay.backdrop.box(check_id(files[2]))))  # under the dialog: inert on both
        confirm = Click(*center(lay.box(sub_id(dialog_screen(TOP), "confirm"))))
        for action in (tick, confirm):
            assert b.perform(action) == m.perform(action)
        assert b.perform(confirm) == (Event("click", sub_id(dialog_screen(TOP), "confirm")), None)
    finally:
        b.close()
        m.close()


@pytest.mark.parametrize("seed", [2, 3])
def test_a_full_path_grounds_to_its_shortened_row(seed: int) -> None:
    """An instruction naming a destination by its full path (as the task does) grounds to the row
    that shows the path shortened from the front, not to a shorter full path it contains ("Home")."""
    env = make(ENV_ID, level="hard")
    _, info = env.reset(seed=seed)
    for _ in range(40):
        v = env.unwrapped.current_view
        if v.screen.startswith("m:") and ".to:" in str(info["reference"][0].target):
            break
        _, _, _, _, info = env.step(info["reference"][0].action)
    by_id = {n["id"]: n for n in nodes(env).values()}
    shown = {e["id"] for e in env.unwrapped.elements()}  # grounding sees the rows on screen
    short = [w for w in v.rows if w.kind == "radio" and w.label.startswith(ELLIPSIS) and w.id in shown]
    assert short
    for w in short:
        path = where(by_id, int(w.option))
        assert match_element(f"Click '{path}'", env.unwrapped.elements())["id"] == w.id, (path, w.label)
