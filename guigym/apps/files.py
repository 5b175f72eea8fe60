"""Files: open, create, rename, move and delete files and folders in a file manager.

Description:
    A file manager: a folder tree that opens screen by screen from "Home" (Back goes up; a
    breadcrumb row says where you are), each folder listing its sub-folders, then its files
    with size and date, plus "New folder" and "Select" buttons. "Select" opens the select mode:
    a checkbox per item and Delete / Move / Rename buttons acting on the ticked items. Delete
    asks first in a confirmation dialog ("Delete 3 files?" with Cancel / Delete over the
    dimmed list); Move opens the folders to choose from (then "Move here"; a long path shown
    shortened from the front, "…/Clients/Downloads"); Rename and New folder open a name
    field with Save / Create. Opening a file shows its details (size, date, location).
    Folder names (30), file names (30 stems x 14 variants x 14 extensions = 5,880), sizes
    (1 KB - 50 MB), dates (the 700 days before the in-app "today", Jun 14, 2025), the tree's
    shape, the theme and the task vary with the seed. Distinct instances: at easy alone, the
    4-7 files of the top folder are C(5880, 4) > 4.9e13 name sets before sizes, dates,
    sub-folders and tasks. With ``language="de"`` the folder names and file names are German
    ("Steuern", "rechnung Kopie.pdf"), the same draws as the English ones.
Instruction:
    Item names are quoted, folders are paths from Home: "Open 'summary_draft.txt' in Home",
    "In Home, rename 'plan copy.jpg' to 'resume (1).jpg'", "Remove the file 'backup (1).pptx' in
    Home", "Create a folder named 'Misc' in Home", "Move 'letter_2024.mp3' from
    Home/Drafts/Taxes to Home/Budget", "Rename the folder Home/Archive to 'Scans'", "Move all
    the .mp4 files in Home/Taxes/Misc/Receipts into Home/Notes", "Create a folder named
    'Reports' in Home/Backups/Clients/Downloads and move 'backup-v2.log',
    'itinerary-final.zip' and 'photo_2023.mp3' from Home/Music/Family into it".
Actions:
    Click, Scroll, Back, OpenApp and Type (no Answer: these tasks ask nothing).
Levels:
    * easy: one folder (Home, 4-7 files, 1-2 small sub-folders as destinations); open,
      rename, delete (the dialog), create a folder, or move a file into a sub-folder.
    * medium: two levels of folders, 9-19 files in the task's folder (Scroll); open,
      rename a file or a folder, move a file to another folder, delete, create a folder.
    * hard: three levels, 14-28 files in the folders the task is about, rules over several
      items in the select mode: delete every .ext file (the dialog), move every .ext file to another
      folder, or create a folder three levels down and move three files from another folder
      into it (its reference from reset is 16-32 steps: on each of the 108 such seeds among
      0-299; the others 10-24).
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when the file tree (every path with its kind, size and date) equals the one at the
    start plus exactly the instructed change (a stray rename, move, new folder or deletion
    is not success; a stray rename or move can be undone), and for "open" when the file's
    details are on screen. Failure (terminated) when a file or folder the task does not delete
    is deleted: there is no trash.
Registered ids:
    ``GuiGym-Files-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

import datetime
from collections import Counter
from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import App, Widget, clean_text, id_problems, register_app
from guigym.apps.catalog import ICON_COLORS
from guigym.apps.dates import month_abbr
from guigym.apps.family import Family, Goal, missing, pick, sample, theme
from guigym.apps.schema import AppSpec, AppState, DeviceState, FileNode, Scenario, Task, sub_id
from guigym.events import Event
from guigym.i18n.content import tables

APP = "Files"
ROOT = 0  # the top folder ("Home"): not a node, the parent of the top-level items
NEW = -1  # a task's folder to create: its id is only known once it exists
HOME = "Home"
TODAY = datetime.date(2025, 6, 14)
# Content: generation reads these through ``tables(__name__)`` (language="de": the tables of
# guigym.i18n.de_content.files, entry for entry). "Home" is the app's own name for its top folder (UI).
FOLDER_NAMES = (
    "Documents", "Downloads", "Pictures", "Music", "Videos", "Work", "Projects", "Taxes", "Invoices", "Travel", "Recipes",
    "School", "Receipts", "Backups", "Screenshots", "Drafts", "Shared", "Archive", "Family", "Clients", "Designs", "Reports",
    "Notes", "Scans", "Old", "Misc", "Contracts", "Letters", "Budget", "2023",
)
STEMS = (
    "report", "invoice", "budget", "notes", "resume", "photo", "scan", "contract", "slides", "draft", "letter", "receipt",
    "summary", "plan", "backup", "agenda", "itinerary", "menu", "poster", "recipe", "schedule", "statement", "thesis",
    "minutes", "manual", "playlist", "logo", "map", "ticket", "form",
)
VARIANTS = ("", "_2023", "_2024", "_2025", "-final", "-v2", "-v3", " (1)", " copy", "_q1", "_q3", "-old", "_draft", "-signed")
EXTS = ("pdf", "docx", "txt", "xlsx", "jpg", "png", "mp3", "zip", "csv", "pptx", "tmp", "log", "md", "mp4")
OPEN = ("Open {f} in {p}", "Find the file {f} in {p} and open it", "Open the file {f} from {p}")
RENAME = ("Rename {f} in {p} to {n}", "In {p}, rename {f} to {n}", "Change the name of {f} in {p} to {n}")
RENAME_DIR = ("Rename the folder {p} to {n}", "Give the folder {p} the new name {n}")
MOVE = ("Move {f} from {p} to {q}", "Put {f} from {p} into the folder {q}")
DELETE = ("Delete {f} from {p}", "Remove the file {f} in {p}", "Delete the file {f} in {p}")
CREATE = ("Create a folder named {n} in {p}", "Make a new folder {n} inside {p}", "Add a folder called {n} to {p}")
DELETE_EXT = ("Delete every .{e} file in {p}", "Remove all the .{e} files from {p}", "In {p}, delete all files ending in .{e}")
MOVE_EXT = ("Move every .{e} file from {p} to {q}", "Move all the .{e} files in {p} into {q}")
CREATE_MOVE = ("Create a folder named {n} in {p} and move {fs} from {q} into it",
               "Make a new folder {n} inside {p}, then move {fs} from {q} into it")


class FileChange(TypedDict):
    type: str  # "open", "rename", "move", "delete" or "create"
    nodes: list[int]  # the items it is about (create: none)
    name: str | None  # rename: the new name; create: the folder's name
    dest: int | None  # move: the destination folder (NEW: the folder the task creates); create: where


class FilesTask(Task):
    changes: list[FileChange]  # in the instruction's order


# --- screens and ids -------------------------------------------------------------------------
# A folder screen's id holds the folder ids from the top down ("f:0/4/9"), so its parent screen
# is a pure function of the id (the oracle navigates by it) however the tree changes.
def folder_screen(path: str) -> str:
    """The screen of the folder at ``path`` (ids from the top, "0/4/9"); the other screens of a folder.

    >>> folder_screen("0/4"), select_screen("0/4"), file_screen("0/4", 7), path_of("i:0/4:7"), path_of("d:0/4")
    ('f:0/4', 's:0/4', 'i:0/4:7', '0/4', '0/4')
    """
    return f"f:{path}"


def select_screen(path: str) -> str:
    return f"s:{path}"


def dialog_screen(path: str) -> str:
    """The "Delete …?" dialog over the select mode."""
    return f"d:{path}"


def rename_screen(path: str) -> str:
    return f"r:{path}"


def move_screen(path: str) -> str:
    """The destination picker of Move."""
    return f"m:{path}"


def new_screen(path: str) -> str:
    """The "New folder" name screen."""
    return f"n:{path}"


def file_screen(path: str, fid: int) -> str:
    """A file's details, opened from its folder."""
    return f"i:{path}:{fid}"


def path_of(sid: str) -> str:
    rest = sid[2:]
    return rest.rpartition(":")[0] if sid.startswith("i:") else rest


def check_id(nid: int) -> str:
    """The select mode's checkbox of item ``nid``."""
    return f"c:{nid}"


def dest_id(path: str, fid: int) -> str:
    """The option (a radio row) of folder ``fid`` in the Move picker of ``path``."""
    return sub_id(move_screen(path), f"to:{fid}")


def size_label(kb: int) -> str:
    """
    >>> size_label(340), size_label(3400), size_label(0)
    ('340 KB', '3.3 MB', '—')
    """
    if kb <= 0:
        return "—"
    return f"{kb} KB" if kb < 1024 else f"{kb / 1024:.1f} MB"


def date_label(days_ago: int) -> str:
    """A date ``days_ago`` days before the in-app today, "Mar 4, 2025"."""
    d = TODAY - datetime.timedelta(days=days_ago)
    return f"{month_abbr(d.month)} {d.day}, {d.year}"


def _by_id(state: AppState) -> dict[int, FileNode]:
    return {n["id"]: n for n in state["data"]["nodes"]}


def _children(nodes: list[FileNode], fid: int) -> list[FileNode]:
    """The items of folder ``fid`` in list order: folders first, then files, by name."""
    return sorted((n for n in nodes if n["parent"] == fid), key=lambda n: (not n["folder"], n["name"].casefold(), n["id"]))


def _folder(by_id: dict[int, FileNode], path: str) -> int | None:
    """The folder a screen path names, if that chain of folders still exists."""
    ids = path.split("/")
    if ids[0] != str(ROOT) or not all(i.isdigit() for i in ids):
        return None
    parent = ROOT
    for i in map(int, ids[1:]):
        n = by_id.get(i)
        if n is None or not n["folder"] or n["parent"] != parent:
            return None
        parent = i
    return parent


def tree_path(by_id: dict[int, FileNode], fid: int) -> str:
    """The screen path of folder ``fid`` ("0/4/9")."""
    ids = []
    while fid != ROOT:
        ids.append(str(fid))
        fid = by_id[fid]["parent"]
    return "/".join([str(ROOT), *reversed(ids)])


def where(by_id: dict[int, FileNode], fid: int) -> str:
    """Folder ``fid`` as the user reads it ("Home/Work/Drafts")."""
    names = []
    while fid != ROOT:
        names.append(by_id[fid]["name"])
        fid = by_id[fid]["parent"]
    return "/".join([HOME, *reversed(names)])


#: The most characters of a destination's label in the Move picker: a longer path is shortened
#: from the front, to its last names ("…/Downloads/Reports"). A radio row's label has no clip: a
#: full path ran past the row and the end was cut off, the part that tells two paths apart (a
#: path four folders deep ran ~17 px past it at the default 360x640, more on ``small`` and at
#: font scale 1.3). 19: the most the narrowest row of the shipped looks (``small``, density
#: ``roomy``, font scale 1.3, any bundled font) fits of the generated folder names; the app
#: model knows no viewport, so one budget for all (the instruction keeps the full paths).
DEST_CHARS = 19
ELLIPSIS = "…"


def dest_labels(by_id: dict[int, FileNode], dests: list[int]) -> list[str]:
    """The labels of the Move picker's rows for folders ``dests``: each its path from Home
    (:func:`where`), shortened from the front to as many of its last names as fit in
    :data:`DEST_CHARS` (at least its own name; the ellipsis stands for what is left out, Home
    too). A shortened label's tail is never one that another shortened row's path ends with
    too (names compared ignoring case, as grounding reads them): both then take more names, up
    to the whole path. So a path names one row: the row it labels in full, else the one row
    whose tail it ends with ("Home/Work" is that row, "Home/Drafts/Work" the row "…/Work"
    beside it).

    >>> tree = [(1, "Backups", 0), (2, "Clients", 1), (3, "Downloads", 2), (4, "Reports", 3), (5, "Reports", 2),
    ...         (6, "Drafts", 0), (7, "Downloads", 6), (8, "reports", 7)]
    >>> by_id = {i: {"name": name, "parent": up} for i, name, up in tree}
    >>> dest_labels(by_id, [0, 1, 3, 4, 5])  # type: ignore[arg-type]
    ['Home', 'Home/Backups', '…/Clients/Downloads', '…/Downloads/Reports', '…/Clients/Reports']
    >>> dest_labels(by_id, [4, 8])  # type: ignore[arg-type]
    ['…/Clients/Downloads/Reports', '…/Drafts/Downloads/reports']
    >>> tree = [(11, "Music", 0), (12, "Taxes", 11), (13, "Scans", 12), (14, "Music", 6), (15, "Taxes", 14), (16, "Scans", 15)]
    >>> by_id.update({i: {"name": name, "parent": up} for i, name, up in tree})
    >>> dest_labels(by_id, [13, 16, 12])  # type: ignore[arg-type]
    ['Home/Music/Taxes/Scans', '…/Drafts/Music/Taxes/Scans', 'Home/Music/Taxes']
    >>> dest_labels(by_id, [13, 2])  # type: ignore[arg-type]
    ['…/Music/Taxes/Scans', '…/Backups/Clients']
    >>> by_id.update({9: {"name": "Screenshots", "parent": 0}, 10: {"name": "Screenshots", "parent": 9}})
    >>> dest_labels(by_id, [9, 10])  # type: ignore[arg-type]
    ['Home/Screenshots', '…/Screenshots']
    """
    paths = [where(by_id, d).split("/") for d in dests]
    tails = Counter(tuple(n.casefold() for n in p[-k:]) for p in paths if len("/".join(p)) > DEST_CHARS
                    for k in range(1, len(p)))
    out = []
    for p in paths:
        full = "/".join(p)
        if len(full) <= DEST_CHARS:
            out.append(full)
            continue
        k = 1  # names shown after the ellipsis: as many as fit, then more while another row shares them
        while k + 1 < len(p) and len(ELLIPSIS) + len("/".join(["", *p[-k - 1:]])) <= DEST_CHARS:
            k += 1
        while k < len(p) - 1 and tails[tuple(n.casefold() for n in p[-k:])] > 1:
            k += 1
        # every name but Home still shared (another row's path goes on in front of them): in full
        out.append(full if tails[tuple(n.casefold() for n in p[-k:])] > 1 else "/".join([ELLIPSIS, *p[-k:]]))
    return out


def name_error(nodes: list[FileNode], parent: int, name: str, me: int | None = None) -> str:
    """Why ``name`` cannot be an item of ``parent`` ("" when it can); names are unique per folder, ignoring case."""
    if not name:
        return "Enter a name"
    if "/" in name:
        return "A name cannot contain /"
    key = name.casefold()
    if any(n["parent"] == parent and n["id"] != me and n["name"].casefold() == key for n in nodes):
        return f"{name} already exists here"
    return ""


# --- the app ---------------------------------------------------------------------------------
@register_app
class FileManager(App):
    """``data["nodes"]``: every file and folder (``FileNode``, ``parent`` ``ROOT`` at the top);
    ``data["next_id"]``: the id a new folder gets (never reused, so a deleted item stays gone).
    Screens are made on the fly from them; the ticked items are ``values[check_id(id)]``."""

    kind = "filemanager"
    dialog_prefix = "d:"  # the delete confirmation

    def initial_state(self, spec: AppSpec) -> AppState:
        state = super().initial_state(spec)
        state["data"]["nodes"] = [dict(n) for n in spec["nodes"]]
        state["data"]["next_id"] = max((n["id"] for n in spec["nodes"]), default=ROOT) + 1
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """Both trees (the scenario's and the state's) are trees: unique ids >= 1, each parent
        the top folder or a folder, no cycle (a path up from a folder in a cycle never ends);
        ``next_id`` above every id (a new folder must not take an existing or original id)."""
        out: list[str] = []
        top = 0
        for where, nodes in (("spec.nodes", spec["nodes"]), ("data.nodes", state["data"]["nodes"])):
            found = id_problems(nodes, where)
            found += [f"{where}[{i}].id: {ROOT} is the top folder's" for i, n in enumerate(nodes) if n["id"] == ROOT]
            out += found
            if found:
                continue
            by_id = {n["id"]: n for n in nodes}
            top = max(top, *by_id, ROOT)
            ok = {ROOT}  # every folder whose path up ends at the top
            for i, n in enumerate(nodes):
                p = n["parent"]
                if p != ROOT and not (p in by_id and by_id[p]["folder"]):
                    out.append(f"{where}[{i}].parent: {p!r:.40} is neither the top folder ({ROOT}) nor a folder's id")
            if any(p.startswith(where) for p in out):
                continue
            for n in nodes:
                chain: list[int]
                chain, up = [], n["id"]
                while up not in ok and len(chain) <= len(nodes):
                    chain.append(up)
                    up = by_id[up]["parent"]
                if up not in ok:
                    out.append(f"{where}: the folders {sorted(set(chain))[:8]} are in a cycle (no path up to the top folder)")
                    break
                ok.update(chain)
        nxt = state["data"]["next_id"]
        if not out and nxt <= top:
            out.append(f"data.next_id: {nxt!r:.40} is not above every node's id ({top})")
        return out

    def tile(self, sid: str, w: Widget) -> bool:
        """A folder's sub-folders and files (the ``layout`` variation shows them as tiles; the
        select mode and the destination picker stay lists)."""
        return sid[:2] == "f:" and w.kind == "link" and w.to == w.id

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        path = path_of(sid)
        head = sid[0]
        if head == "f":
            up = path.rpartition("/")[0]
            return folder_screen(up) if up else None
        return select_screen(path) if head in "drm" else folder_screen(path)

    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        by_id = _by_id(state)
        path, head = path_of(sid), sid[0]
        fid = _folder(by_id, path)
        if head == "f":
            return HOME if fid == ROOT else by_id[fid]["name"] if fid is not None else "Files"
        if head == "i":
            n = by_id.get(int(sid.rpartition(":")[2]))
            return n["name"] if n else "File"
        if head in "sd":
            k = len(self.selected(state, fid)) if fid is not None else 0
            return f"{k} selected" if k else "Select items"
        return {"r": "Rename", "m": "Move to…", "n": "New folder"}[head]

    @staticmethod
    def selected(state: AppState, fid: int) -> list[FileNode]:
        vals = state["values"]
        return [n for n in _children(state["data"]["nodes"], fid) if vals.get(check_id(n["id"]))]

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        nodes = state["data"]["nodes"]
        by_id = _by_id(state)
        path, head = path_of(sid), sid[0]
        fid = _folder(by_id, path)
        if fid is None:  # a folder that is gone: nothing to show
            return []
        vals = state["values"]
        msg = vals.get(sub_id(sid, "msg"), "")
        note = [Widget(sub_id(sid, "msg"), "label", msg, style="error")] if msg else []
        if head == "f":
            out = [
                Widget(sub_id(sid, "crumb"), "label", where(by_id, fid).replace("/", " › "), style="muted"),
                Widget(sub_id(sid, "new"), "button", "New folder", to=new_screen(path), action="new"),
                Widget(sub_id(sid, "select"), "button", "Select", to=select_screen(path), action="select"),
            ]
            kids = _children(nodes, fid)
            counts = Counter(m["parent"] for m in nodes) if any(n["folder"] for n in kids) else Counter()
            for n in kids:
                if n["folder"]:
                    k = counts[n["id"]]
                    to = folder_screen(f"{path}/{n['id']}")
                    out.append(Widget(to, "link", n["name"], detail=f"Folder · {k} item{'s' * (k != 1)}", to=to))
                else:
                    to = file_screen(path, n["id"])
                    out.append(Widget(to, "link", n["name"], detail=f"{size_label(n['size'])} · {n['date']}", to=to))
            if len(out) == 3:
                out.append(Widget(sub_id(sid, "empty"), "label", "This folder is empty", style="muted"))
            return out
        if head == "s":
            return [
                Widget(sub_id(sid, "delete"), "button", "Delete", to=dialog_screen(path), action="delete"),
                Widget(sub_id(sid, "move"), "button", "Move", to=move_screen(path), action="move"),
                Widget(sub_id(sid, "rename"), "button", "Rename", to=rename_screen(path), action="rename"),
                *note,
                *(Widget(check_id(n["id"]), "checkbox", n["name"], value=bool(vals.get(check_id(n["id"])))) for n in _children(nodes, fid)),
            ]
        if head == "d":
            sel = self.selected(state, fid)
            files = all(not n["folder"] for n in sel)
            what = sel[0]["name"] if len(sel) == 1 else f"{len(sel)} {'files' if files else 'items'}"
            return [  # the panel, then its buttons (left to right)
                Widget(sub_id(sid, "dialog"), "dialog", f"Delete {what}?", detail="There is no trash: this cannot be undone."),
                Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
                Widget(sub_id(sid, "confirm"), "button", "Delete", action="confirm", style="danger"),
            ]
        if head in "rn":
            err = vals.get(sub_id(sid, "error"), "")
            return [
                Widget(sub_id(sid, "name"), "input", "Name", value=vals.get(sub_id(sid, "name"), ""), placeholder="Folder name"),
                *([Widget(sub_id(sid, "error"), "label", err, style="error")] if err else []),
                Widget(sub_id(sid, "save"), "button", "Save" if head == "r" else "Create", action="save", style="primary"),
                Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
            ]
        if head == "m":  # every folder the ticked items may go to: not here, not into themselves
            moving = {n["id"] for n in self.selected(state, fid)}
            group = sub_id(sid, "dest")
            dests = []
            for d in [ROOT] + [n["id"] for n in sorted(nodes, key=lambda n: n["id"]) if n["folder"]]:
                up, inside = d, False
                while up != ROOT and not inside:
                    inside, up = up in moving, by_id[up]["parent"]
                if d != fid and not inside:
                    dests.append(d)
            out = [Widget(dest_id(path, d), "radio", label, value=vals.get(group) == str(d), group=group, option=str(d))
                   for d, label in zip(dests, dest_labels(by_id, dests))]
            return [Widget(sub_id(sid, "go"), "button", "Move here", action="dest", style="primary"), *note, *out]
        node = by_id.get(int(sid.rpartition(":")[2]))  # a file's details
        if node is None or node["parent"] != fid:
            return []
        return [
            Widget(sub_id(sid, "size"), "label", f"Size: {size_label(node['size'])}"),
            Widget(sub_id(sid, "date"), "label", f"Modified: {node['date']}"),
            Widget(sub_id(sid, "where"), "label", f"In: {where(by_id, fid)}", style="muted"),
            Widget(sub_id(sid, "share"), "button", "Share", action="share"),
            *note,
        ]

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        sid = state["stack"][-1]
        path = path_of(sid)
        nodes = state["data"]["nodes"]
        fid = _folder(_by_id(state), path)
        vals = state["values"]
        if fid is None:
            return
        sel = self.selected(state, fid)
        if w.action == "new":  # an empty name field
            vals.update({sub_id(new_screen(path), "name"): "", sub_id(new_screen(path), "error"): ""})
            self.push(state, new_screen(path))
        elif w.action == "select":  # the select mode starts with nothing ticked
            for k in [k for k in vals if k.startswith("c:")]:
                del vals[k]
            vals[sub_id(select_screen(path), "msg")] = ""
            self.push(state, select_screen(path))
        elif w.action in ("delete", "move", "rename"):
            if not sel or (w.action == "rename" and len(sel) != 1):
                vals[sub_id(sid, "msg")] = "Tick one item to rename" if sel else "Tick the items first"
                return
            vals[sub_id(sid, "msg")] = ""
            to = {"delete": dialog_screen, "move": move_screen, "rename": rename_screen}[w.action](path)
            if w.action == "rename":  # the field holds the current name
                vals.update({sub_id(to, "name"): sel[0]["name"], sub_id(to, "error"): ""})
            elif w.action == "move":  # no destination chosen yet
                vals.update({sub_id(to, "dest"): "", sub_id(to, "msg"): ""})
            self.push(state, to)
        elif w.action == "cancel":
            self.pop(state)
        elif w.action == "share":  # a distractor: it only says what it would do
            vals[sub_id(sid, "msg")] = "Sharing is turned off on this phone"
        elif w.action == "confirm":  # gone for good, with everything inside
            gone = {n["id"] for n in sel}
            while True:
                more = {n["id"] for n in nodes if n["parent"] in gone} - gone
                if not more:
                    break
                gone |= more
            state["data"]["nodes"] = [n for n in nodes if n["id"] not in gone]
            self._done(state, path)
        elif w.action == "dest":
            choice = str(vals.get(sub_id(sid, "dest"), ""))
            dest = int(choice) if choice.isdigit() else None
            if dest is None or dest != ROOT and dest not in {n["id"] for n in nodes if n["folder"]}:
                vals[sub_id(sid, "msg")] = "Choose a folder"
                return
            clash = next((e for n in sel if (e := name_error(nodes, dest, n["name"], n["id"]))), "")
            if clash:
                vals[sub_id(sid, "msg")] = clash
                return
            for n in sel:
                n["parent"] = dest
            self._done(state, path)
        elif w.action == "save":
            name = clean_text(str(vals.get(sub_id(sid, "name"), ""))).strip()
            me = sel[0]["id"] if sid[0] == "r" and len(sel) == 1 else None
            err = name_error(nodes, fid, name, me)
            vals[sub_id(sid, "error")] = err
            if err:
                return
            if sid[0] == "r" and me is not None:
                sel[0]["name"] = name
            elif sid[0] == "n":
                nid = state["data"]["next_id"]
                state["data"]["next_id"] = nid + 1
                nodes.append({"id": nid, "name": name, "parent": fid, "folder": True, "size": 0, "date": date_label(0)})
            self._done(state, path)

    def on_event(self, spec: AppSpec, state: AppState, ev: Event, w: Widget | None) -> None:
        if ev.kind == "click" and w is not None and w.kind == "radio":  # the picker's choice (no screen spec)
            state["values"][w.group] = w.option  # type: ignore[index]
            return
        super().on_event(spec, state, ev, w)

    @staticmethod
    def _done(state: AppState, path: str) -> None:
        """Back on the folder's list, nothing ticked."""
        stack = state["stack"]
        del stack[stack.index(folder_screen(path)) + 1:]
        state["focus"] = None
        for k in [k for k in state["values"] if k.startswith("c:")]:
            del state["values"][k]

    def on_toggle(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        state["values"][sub_id(state["stack"][-1], "msg")] = ""


# --- generation ------------------------------------------------------------------------------
class _Tree:
    """The tree being generated: nodes in id order and unique names per folder."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.nodes: list[FileNode] = []
        self.names: dict[int, set[str]] = {ROOT: set()}

    def _name(self, parent: int, draw: Any) -> str:
        while True:
            name = draw()
            if name.casefold() not in self.names[parent]:
                self.names[parent].add(name.casefold())
                return name

    def folder(self, parent: int) -> int:
        rng, T = self.rng, tables(__name__)
        name = self._name(parent, lambda: pick(rng, T.FOLDER_NAMES))
        nid = len(self.nodes) + 1
        self.nodes.append({"id": nid, "name": name, "parent": parent, "folder": True, "size": 0,
                           "date": date_label(int(rng.integers(30, 700)))})
        self.names[nid] = set()
        return nid

    def file(self, parent: int, exts: tuple[str, ...] = EXTS, avoid: frozenset[str] | set[str] = frozenset()) -> int:
        rng, T = self.rng, tables(__name__)

        def draw() -> str:
            while True:
                name = f"{pick(rng, T.STEMS)}{pick(rng, T.VARIANTS)}.{pick(rng, exts)}"
                if name.casefold() not in avoid:
                    return name

        name = self._name(parent, draw)
        nid = len(self.nodes) + 1
        self.nodes.append({"id": nid, "name": name, "parent": parent, "folder": False,
                           "size": int(rng.integers(1, 51200)), "date": date_label(int(rng.integers(0, 700)))})
        return nid

    def files(self, parent: int, lo: int, hi: int) -> list[int]:
        return [self.file(parent) for _ in range(int(self.rng.integers(lo, hi + 1)))]

    def depth(self, fid: int) -> int:
        d = 0
        while fid != ROOT:
            fid, d = self.nodes[fid - 1]["parent"], d + 1
        return d

    def under(self, fid: int, anc: int) -> bool:
        """Whether folder ``fid`` is ``anc`` or inside it."""
        while fid != anc and fid != ROOT:
            fid = self.nodes[fid - 1]["parent"]
        return fid == anc

    def where(self, fid: int) -> str:
        return where({n["id"]: n for n in self.nodes}, fid)


def _q(name: str) -> str:
    """A name as the instruction quotes it (so a name with spaces reads, and types, as one)."""
    return f"'{name}'"


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _change(kind: str, nodes: list[int] | None = None, name: str | None = None, dest: int | None = None) -> FileChange:
    return {"type": kind, "nodes": nodes or [], "name": name, "dest": dest}


_WANT: dict[int, tuple[Any, Any, dict[int, tuple[Any, ...]], set[int]]] = {}
_PLAN: dict[int, tuple[Any, Any, tuple[dict[int, FileNode], set[int], list[int]]]] = {}


class FilesFamily(Family):
    name = "Files"
    description = "A file manager: open, create, rename, move and delete (a dialog) files and folders; multi-select."
    apps = (APP,)
    task_type = FilesTask
    templates = {"easy": ("open", "rename", "delete", "create", "move"),
                 "medium": ("open", "rename", "delete", "create", "move", "rename_dir"),
                 "hard": ("delete_ext", "move_ext", "create_move")}

    def template(self, scenario: Scenario) -> str:
        changes = self._changes(scenario)
        kind = changes[0]["type"]
        if scenario["level"] == "hard":
            return "create_move" if kind == "create" else f"{kind}_ext"
        if kind == "rename" and any(n["id"] == changes[0]["nodes"][0] and n["folder"] for n in scenario["apps"][APP]["nodes"]):
            return "rename_dir"
        return kind

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        t = _Tree(rng)
        if level == "easy":
            subs = [t.folder(ROOT) for _ in range(int(rng.integers(1, 3)))]
            for s in subs:
                t.files(s, 0, 3)
            here = t.files(ROOT, 4, 7)
            text, changes = self._single(t, pick(rng, ("open", "rename", "delete", "create", "move")), ROOT, here, subs)
        elif level == "medium":
            tops = [t.folder(ROOT) for _ in range(int(rng.integers(3, 5)))]
            for f in tops:
                for _ in range(int(rng.integers(0, 3))):
                    t.folder(f)
            folders = [n["id"] for n in t.nodes if n["folder"]]
            t.files(ROOT, 2, 4)
            for f in folders:
                t.files(f, 1, 5)
            home = pick(rng, folders)
            here = [n["id"] for n in t.nodes if n["parent"] == home and not n["folder"]] + t.files(home, 8, 14)
            kind = pick(rng, ("open", "rename", "delete", "create", "move", "rename_dir"))
            text, changes = self._single(t, kind, home, here, [f for f in folders if f != home] + [ROOT])
        else:
            text, changes = self._hard(t, pick(rng, ("delete_ext", "move_ext", "create_move")))
        spec: AppSpec = {
            "kind": "filemanager", "name": APP, "root": folder_screen(str(ROOT)), "color": list(pick(rng, ICON_COLORS)),
            "nodes": t.nodes, "screens": {folder_screen(str(ROOT)): {"title": HOME, "parent": None, "rows": []}},
        }
        task: FilesTask = {"instruction": text, "changes": changes}
        return {
            "family": self.name, "level": level, "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]},
            "theme": theme(rng), "start": {"fg": APP, "values": {}}, "task": task,
        }

    @staticmethod
    def _single(t: _Tree, kind: str, home: int, files: list[int], dests: list[int]) -> tuple[str, list[FileChange]]:
        """One change in folder ``home`` (``files``: its files; ``dests``: other folders)."""
        rng, p, T = t.rng, t.where(home), tables(__name__)
        node = t.nodes[pick(rng, files) - 1]
        f = node["name"]
        if kind == "open":
            return pick(rng, OPEN).format(f=_q(f), p=p), [_change("open", [node["id"]])]
        if kind == "delete":
            return pick(rng, DELETE).format(f=_q(f), p=p), [_change("delete", [node["id"]])]
        if kind == "rename":
            ext = f.rpartition(".")[2]
            new = t._name(home, lambda: f"{pick(rng, T.STEMS)}{pick(rng, T.VARIANTS)}.{ext}")
            return pick(rng, RENAME).format(f=_q(f), p=p, n=_q(new)), [_change("rename", [node["id"]], new)]
        if kind == "create":
            new = t._name(home, lambda: pick(rng, T.FOLDER_NAMES))
            return pick(rng, CREATE).format(n=_q(new), p=p), [_change("create", name=new, dest=home)]
        if kind == "rename_dir":
            if home == ROOT:  # the top folder cannot be renamed: rename one of its folders
                home = pick(rng, [n["id"] for n in t.nodes if n["folder"] and n["parent"] == ROOT])
            up = t.nodes[home - 1]["parent"]
            new = t._name(up, lambda: pick(rng, T.FOLDER_NAMES))
            return pick(rng, RENAME_DIR).format(p=t.where(home), n=_q(new)), [_change("rename", [home], new)]
        dest = pick(rng, [d for d in dests if d != home])  # move: a file whose name is free there
        free = [i for i in files if t.nodes[i - 1]["name"].casefold() not in t.names[dest]]
        if not free:
            return pick(rng, DELETE).format(f=_q(f), p=p), [_change("delete", [node["id"]])]
        node = t.nodes[pick(rng, free) - 1]
        f = node["name"]
        t.names[dest].add(f.casefold())
        return pick(rng, MOVE).format(f=_q(f), p=p, q=t.where(dest)), [_change("move", [node["id"]], dest=dest)]

    @staticmethod
    def _hard(t: _Tree, kind: str) -> tuple[str, list[FileChange]]:
        rng = t.rng
        tops = [t.folder(ROOT) for _ in range(int(rng.integers(3, 5)))]
        mids = [t.folder(f) for f in tops for _ in range(int(rng.integers(1, 3)))]
        deep = [t.folder(m) for m in mids for _ in range(int(rng.integers(0, 3)))]
        if not deep:
            deep = [t.folder(pick(rng, mids))]
        folders = tops + mids + deep
        t.files(ROOT, 1, 3)
        a = pick(rng, deep)
        others = [f for f in folders if not t.under(f, a) and not t.under(a, f)]
        for f in folders:
            if f != a:
                t.files(f, 1, 4)
        p = t.where(a)
        if kind == "create_move":  # the >= 15-step template: three levels down, then across to b
            b = pick(rng, [f for f in others if t.depth(f) >= 2])
            moved = sample(rng, t.files(b, 14, 22), 3)
            new = t._name(a, lambda: pick(rng, tables(__name__).FOLDER_NAMES))
            t.files(a, 14, 22)
            fs = _and([_q(t.nodes[i - 1]["name"]) for i in sorted(moved, key=lambda i: t.nodes[i - 1]["name"].casefold())])
            text = pick(rng, CREATE_MOVE).format(n=_q(new), p=p, fs=fs, q=t.where(b))
            return text, [_change("create", name=new, dest=a), _change("move", moved, dest=NEW)]
        ext = pick(rng, EXTS)
        rest = tuple(e for e in EXTS if e != ext)
        if kind == "move_ext":
            b = pick(rng, others + [ROOT])
            avoid = set(t.names[b])
            hits = [t.file(a, (ext,), avoid) for _ in range(int(rng.integers(3, 6)))]
            t.names[b] |= {t.nodes[i - 1]["name"].casefold() for i in hits}
        else:
            hits = [t.file(a, (ext,)) for _ in range(int(rng.integers(3, 7)))]
        for _ in range(int(rng.integers(14, 23))):
            t.file(a, rest)
        if kind == "move_ext":
            return pick(rng, MOVE_EXT).format(e=ext, p=p, q=t.where(b)), [_change("move", hits, dest=b)]
        return pick(rng, DELETE_EXT).format(e=ext, p=p), [_change("delete", hits)]

    # --- progress --------------------------------------------------------------------------
    @staticmethod
    def _changes(scenario: Scenario) -> list[FileChange]:
        return cast(FilesTask, scenario["task"])["changes"]

    def _expected(self, scenario: Scenario) -> dict[int, FileNode]:
        """The items the task asks for, by id (the folder to create under ``NEW``)."""
        out: dict[int, FileNode] = {n["id"]: dict(n) for n in scenario["apps"][APP]["nodes"]}  # type: ignore[misc]
        for c in self._changes(scenario):
            if c["type"] == "delete":
                for i in c["nodes"]:
                    out.pop(i, None)
            elif c["type"] == "rename":
                out[c["nodes"][0]]["name"] = c["name"]  # type: ignore[typeddict-item]
            elif c["type"] == "move":
                for i in c["nodes"]:
                    out[i]["parent"] = c["dest"]  # type: ignore[typeddict-item]
            elif c["type"] == "create":
                out[NEW] = {"id": NEW, "name": c["name"], "parent": c["dest"], "folder": True, "size": 0, "date": date_label(0)}  # type: ignore[typeddict-item]
        return out

    def _want(self, scenario: Scenario) -> tuple[dict[int, tuple[Any, ...]], set[int]]:
        """The expected items as ``id -> (name, parent, folder, size, date)`` and the ids that
        must stay, memoised per scenario (checked on every step; a scenario is never mutated,
        and the memo holds its task so the id is not reused)."""
        task, start = scenario["task"], scenario["apps"][APP]["nodes"]
        hit = _WANT.get(id(task))
        if hit is None or hit[0] is not task or hit[1] is not start:
            if len(_WANT) > 256:
                _WANT.clear()
            want = {i: (n["name"], n["parent"], n["folder"], n["size"], n["date"]) for i, n in self._expected(scenario).items()}
            hit = _WANT[id(task)] = (task, start, want, set(want) - {NEW})
        return hit[2], hit[3]

    def _plan(self, scenario: Scenario) -> tuple[dict[int, FileNode], set[int], list[int]]:
        """For :meth:`next_goal`: :meth:`_expected`, the ids of the start's items, and the order
        in which items are put in place (the task's, then by id), memoised per scenario like
        :meth:`_want` (never mutate them)."""
        task, start = scenario["task"], scenario["apps"][APP]["nodes"]
        hit = _PLAN.get(id(task))
        if hit is None or hit[0] is not task or hit[1] is not start:
            if len(_PLAN) > 256:
                _PLAN.clear()
            initial = {n["id"] for n in start}
            order = list(dict.fromkeys([i for c in self._changes(scenario) for i in c["nodes"]] + sorted(initial)))
            hit = _PLAN[id(task)] = (task, start, (self._expected(scenario), initial, order))
        return hit[2]

    @staticmethod
    def same_tree(want: dict[int, tuple[Any, ...]], nodes: list[FileNode]) -> bool:
        """Whether ``nodes`` is the expected tree: every item at the same path with the same
        kind, size and date, nothing more (names are unique per folder, so this is the items
        compared by id, the folder the task creates being the one item that is not original)."""
        if len(nodes) != len(want):
            return False
        made = [n["id"] for n in nodes if n["id"] not in want]
        if made and (len(made) > 1 or NEW not in want):
            return False
        for n in nodes:
            w = want[NEW] if made and n["id"] == made[0] else want[n["id"]]
            parent = made[0] if w[1] == NEW and made else w[1]
            if (n["name"], n["parent"], n["folder"], n["size"], n["date"]) != (w[0], parent, w[2], w[3], w[4]):
                return False
        return True

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each change of a known type about items of the scenario (a delete of a missing one
        loaded as done), a folder (or the top one) to move to or create in, the
        folder a create makes only after that create."""
        nodes = {n["id"]: n for n in scenario["apps"][APP]["nodes"]}
        folders = [ROOT, *(i for i, n in nodes.items() if n["folder"])]
        out: list[str] = []
        created = False
        for i, c in enumerate(self._changes(scenario)):
            w, k = f"$.task.changes[{i}]", c["type"]
            out += missing(f"{w}.type", k, ("open", "rename", "move", "delete", "create"), "Files change type")
            out += [p for j, x in enumerate(c["nodes"]) for p in missing(f"{w}.nodes[{j}]", x, nodes, "item of the scenario's Files")]
            if k in ("open", "rename", "move", "delete") and not c["nodes"]:
                out.append(f"{w}.nodes: empty (a {k} is about an item)")
            if k in ("rename", "create") and not (isinstance(c["name"], str) and c["name"].strip()):
                out.append(f"{w}.name: {c['name']!r:.40} is no name")
            if k in ("move", "create"):
                dests = [*folders, NEW] if k == "move" and created else folders
                out += missing(f"{w}.dest", c["dest"], dests, "folder of the scenario's Files")
            created = created or k == "create"
        return out

    def _opened(self, scenario: Scenario) -> int | None:
        return next((c["nodes"][0] for c in self._changes(scenario) if c["type"] == "open"), None)

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        app_state = state["apps"][APP]
        if not self.same_tree(self._want(scenario)[0], app_state["data"]["nodes"]):
            return False
        fid = self._opened(scenario)
        by_id = _by_id(app_state)
        return fid is None or app_state["stack"][-1] == file_screen(tree_path(by_id, by_id[fid]["parent"]), fid)

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        have = {n["id"] for n in state["apps"][APP]["data"]["nodes"]}
        if not self._want(scenario)[1] <= have:
            return "a file or folder that should stay was deleted (Files has no trash)"
        return False

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        """Put every kept item where the task wants it (moves by source and destination, then
        renames; a folder to create once nothing clashes with it), then delete, folder by
        folder, what the task deletes and any folder made by mistake; then open the file."""
        app_state = state["apps"][APP]
        nodes = app_state["data"]["nodes"]
        have = _by_id(app_state)
        want, initial, order = self._plan(scenario)
        new = want.get(NEW)
        made = None
        if new is not None:
            made = next((n["id"] for n in nodes
                         if n["id"] not in initial and n["parent"] == new["parent"] and n["name"] == new["name"]), None)
        blocked = None
        for i in order:
            if i not in want or i not in have:
                continue
            n, w = have[i], want[i]
            dest = made if w["parent"] == NEW else w["parent"]
            if dest is None:  # waits for the folder to exist
                continue
            if n["parent"] != dest:
                group = [m["id"] for m in nodes if m["id"] in want and m["parent"] == n["parent"]
                         and (made if want[m["id"]]["parent"] == NEW else want[m["id"]]["parent"]) == dest]
                clash = any(name_error(nodes, dest, have[g]["name"], g) for g in group)
                goal = self._act(app_state, n["parent"], group, "move", dest)
            elif n["name"] != w["name"]:
                clash = bool(name_error(nodes, dest, w["name"], i))
                goal = self._act(app_state, n["parent"], [i], "rename", w["name"])
            else:
                continue
            if not clash:
                return goal
            blocked = blocked or goal
        if new is not None and made is None and not name_error(nodes, new["parent"], new["name"]):
            return self._create(app_state, new["parent"], new["name"])
        if blocked is not None:  # a cycle of clashing names: try anyway
            return blocked
        drop = {i for i in have if i not in want and i != made}
        top = [n for n in nodes if n["id"] in drop and n["parent"] not in drop]
        if top:
            src = top[0]["parent"]
            return self._act(app_state, src, [n["id"] for n in top if n["parent"] == src], "delete", None)
        fid = self._opened(scenario)
        if fid is not None and fid in have:
            sid = file_screen(tree_path(have, have[fid]["parent"]), fid)
            return Goal(APP, sid, sub_id(sid, "size"), "press")
        return None

    @staticmethod
    def _act(app_state: AppState, folder: int, group: list[int], op: str, arg: Any) -> Goal:
        """Tick exactly ``group`` in ``folder``'s select mode, then ``op`` (move to folder
        ``arg``, rename to ``arg``, delete through the dialog)."""
        by_id = _by_id(app_state)
        path = tree_path(by_id, folder)
        sel = select_screen(path)
        stack, vals = app_state["stack"], app_state["values"]
        live = sel in stack  # outside the select mode, Select starts with nothing ticked
        for n in _children(app_state["data"]["nodes"], folder):
            on = n["id"] in group
            if (live and bool(vals.get(check_id(n["id"])))) != on:
                return Goal(APP, sel, check_id(n["id"]), "set", on)
        if op == "move":  # choose the folder, then "Move here"
            pick_ = move_screen(path)
            if stack[-1] == pick_ and vals.get(sub_id(pick_, "dest")) == str(arg):
                return Goal(APP, pick_, sub_id(pick_, "go"), "press")
            return Goal(APP, pick_, dest_id(path, arg), "press")
        if op == "delete":
            return Goal(APP, dialog_screen(path), sub_id(dialog_screen(path), "confirm"), "press")
        ed = rename_screen(path)
        if stack[-1] == ed and vals.get(sub_id(ed, "name")) == arg:
            return Goal(APP, ed, sub_id(ed, "save"), "press")
        if stack[-1] != ed:  # Rename fills the field with the current name
            return Goal(APP, sel, sub_id(sel, "rename"), "press")
        return Goal(APP, ed, sub_id(ed, "name"), "set", arg)

    @staticmethod
    def _create(app_state: AppState, folder: int, name: str) -> Goal:
        path = tree_path(_by_id(app_state), folder)
        ed = new_screen(path)
        if app_state["stack"][-1] != ed:
            return Goal(APP, folder_screen(path), sub_id(folder_screen(path), "new"), "press")
        if app_state["values"].get(sub_id(ed, "name")) != name:
            return Goal(APP, ed, sub_id(ed, "name"), "set", name)
        return Goal(APP, ed, sub_id(ed, "save"), "press")
