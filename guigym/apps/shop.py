"""Shop: search a catalog, pick options, fill and change a cart, check out, answer from the catalog.

Description:
    A Shop app: a catalog screen (a "Cart" row showing the items and the total, a search field
    that filters the products by name, a tab bar of categories, Colour and Price ("Up to $50",
    …) selects side by side, then one row per matching product: its name, "Red · $49.99"
    under it), a product screen (colour and
    category, the price, a Size select, a Quantity stepper, "Add to cart"), a cart screen (one
    row per item: its name, "Green · size S · Qty 2 · $210.00" under it; then the total and
    Checkout), an item screen (its Quantity stepper and "Remove from cart", which asks in a
    confirmation dialog "Remove this item?" with Cancel / Remove), a checkout form (Full name,
    Address and, at hard, Card number fields; Place order) and an order confirmation. Products
    are models drawn from 16 adjectives x 20 nouns in 5 categories, each in 1-3 of 12 colours
    with its own price (category price ranges, 3 cent endings) and sizes (a run of the
    category's sizes). Distinct instances: at easy alone,
    more than 1e9 catalogs before prices, sizes, the cart and the task are drawn. In German
    (``language="de"``) names and addresses come from ``guigym.i18n.de_content.shop``
    ("Regenjacke Alpin", "Eichenstraße 12"); categories, colours and sizes are UI, translated at display.
Instruction:
    'Add 2 of the red "Alpine Parka" in size M to your cart', 'Buy the blue "Metro Backpack" and
    check out with name "Grace Hill" and address "12 Oak Street"', 'Remove the green "Trail Cap"
    from your cart', 'Change the quantity of the black "Urban Hoodie" in your cart to 3', 'How much
    does the blue "Metro Backpack" cost?', "What is the cheapest red jacket?"; at hard two of them
    joined ('Remove the …, then buy 2 of the … in size 9 and check out the whole cart with name …,
    address … and card number "4539 1234 5678 9012".'). A checkout orders the whole cart: where the cart holds
    more than the item bought (items in it from the start, one added before), the instruction
    says "… and check out the whole cart with name …" (German: "… und schließe die Bestellung des
    ganzen Warenkorbs mit Name … ab"). Product names, names, addresses and card numbers are
    quoted: what is typed is always a quoted span.
Actions:
    Click, Scroll, Back, OpenApp, Type and Answer (``type`` is ``Discrete(6)``). Answer ends an
    information task; in a task that asks nothing it is a no-op with an ``action_error``.
Levels:
    * easy: 3-6 products in up to 2 categories and 3 colours (the catalog fits on the screen),
      a cart of 0-2 items, one task; "buy" only adds to the cart (no checkout).
    * medium: 7-27 products in up to 4 categories and 5 colours (Scroll), models in several
      colours (distractors with the same name) and in pairs with similar names (the same
      adjective or the same noun: "Alpine Parka", "Alpine Raincoat"), stale search text, tab and
      colour filter that may hide the product, a cart of 0-3 items, one task; "buy" checks out
      with name and address (the card is saved), a stale name may sit in the form.
    * hard: 18-33 products in up to 4 categories and 6 colours (similar names as at medium), a
      cart of 2-4 items, two tasks chained, always ending in the full checkout (name, address,
      card number) or, after it, a price question. Every hard reference is at least 15 steps
      from reset (17-33 on seeds 0-199; tested).
Rewards:
    1 on success, else 0 (``reward_mode="shaped"`` adds the env's potential-based shaping).
Termination:
    Success when the cart (product, size, quantity per item) and the placed orders (their
    items, and the name, address and card digits typed) equal the start plus exactly the
    instructed changes and, for a question, the answer matches the fact after
    :func:`guigym.answers.answers_match`'s normalisation ("$49.99" = "49.99"; a product name is
    text). Failure (terminated) when that can no longer happen, or at once although the cart could
    set it back: an item added that the task does not ask for (a wrong product, colour or size),
    an item removed that should stay; and an order
    that differs from the instructed one (a wrong quantity, item, name, address or card), an
    order the task does not ask for (where it asks for none, or a second one), or an answer
    that does not make the task a success. A wrong quantity in the cart (an item added twice,
    a stray stepper click) is not success but not yet failure: the steppers can set it
    right until the order is placed, and the reference does. Search text, filters, the product
    screen's choices and the form's text are not compared.
Registered ids:
    ``GuiGym-Shop-v0`` (``level="easy" | "medium" | "hard"``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypedDict, cast

import numpy as np

from guigym.apps.base import App, Widget, id_problems, register_app
from guigym.apps.catalog import ICON_COLORS
from guigym.apps.family import CART_ITEM_ADDED, CART_ITEM_REMOVED, Family, Goal, answer_failure, missing, pick, sample, theme
from guigym.apps.schema import AppSpec, AppState, CartItem, DeviceState, Product, Scenario, ShopSpec, Task, record_id, sub_id
from guigym.apps.tools import PEOPLE
from guigym.apps.widgets import menu_screen, search_row, select_row, stepper_row, tabs_row
from guigym.i18n.content import tables

APP = "Shop"
MAIN, CART, CHECKOUT, DONE = "main", "cart", "checkout", "done"
SEARCH, CAT, COLOUR = "q", "cat", "colour"  # the catalog's search text, category tab and colour filter
PRICE = "price"  # the catalog's price filter: ANY, or the highest price shown in whole dollars ("50", …)
PRICE_LIMITS = ("50", "100", "200", "500")
ALL, ANY = "All", "Any"
NAME, ADDRESS, CARD = "co.name", "co.address", "co.card"  # the checkout form's fields
MAX_QTY = 9
#: ``failed``'s reason for an order placed where the task asks for none (or for no more).
ORDER_EXTRA = "an order was placed that the task does not ask for"

APPAREL = ("XS", "S", "M", "L", "XL")
SHOE_SIZES = ("6", "7", "8", "9", "10", "11", "12")
ONE_SIZE = "One size"
#: category -> (nouns, sizes, how a question names one, price range in dollars). Categories,
#: colours and sizes are UI (tabs and filter options the phrasebook translates at display): their
#: German tables (``guigym.i18n.de_content.shop``) keep them and translate the nouns.
CATEGORIES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str, tuple[int, int]]] = {
    "Jackets": (("Parka", "Windbreaker", "Raincoat", "Jacket"), APPAREL, "jacket", (59, 199)),
    "Tops": (("Hoodie", "Polo", "T-Shirt", "Sweater"), APPAREL, "top", (14, 69)),
    "Shoes": (("Sneakers", "Boots", "Sandals", "Loafers"), SHOE_SIZES, "pair of shoes", (39, 159)),
    "Bags": (("Backpack", "Tote", "Duffel", "Satchel"), (ONE_SIZE,), "bag", (24, 129)),
    "Hats": (("Cap", "Beanie", "Bucket Hat", "Sun Hat"), ("S/M", "L/XL"), "hat", (9, 39)),
}
#: A model's name from its adjective (a product line: "Alpine") and its category's noun.
PRODUCT_NAME = "{a} {n}"
ADJECTIVES = ("Alpine", "Urban", "Trail", "Classic", "Summit", "Coastal", "Nordic", "Metro", "Harbor", "Canyon", "Ridge",
              "Aspen", "Pioneer", "Atlas", "Everyday", "Drift")
COLOURS = ("Red", "Blue", "Green", "Black", "White", "Grey", "Navy", "Yellow", "Orange", "Pink", "Brown", "Purple")
STREETS = ("Oak", "Maple", "Cedar", "Pine", "Elm", "Lake", "Hill", "Park", "River", "Mill", "Church", "Main")
STREET_KINDS = ("Street", "Avenue", "Road", "Lane", "Drive")
ADDRESS_FORMAT = "{n} {s} {k}"  # house number, street, kind: "12 Oak Street"
#: (models, colours per model, categories, colours, items in the cart at the start) per level.
LEVEL_SIZES: dict[str, tuple[tuple[int, int], tuple[int, int], int, int, tuple[int, int]]] = {
    "easy": ((3, 4), (1, 2), 2, 3, (0, 2)), "medium": ((7, 9), (1, 3), 4, 5, (0, 3)), "hard": ((9, 11), (2, 3), 4, 6, (2, 4)),
}
EASY_MAX_PRODUCTS = 6  # the catalog fits on one screen at easy

ADD = ("Add {q}the {d}{s} to your cart", "Put {q}the {d}{s} in the cart")
BUY = ("Buy {q}the {d}{s}", "Order {q}the {d}{s}")
REMOVE = ("Remove the {d} from your cart", "Take the {d} out of the cart")
QTY = ("Change the quantity of the {d} in your cart to {n}", "Set the {d} in the cart to a quantity of {n}")
ASK_PRICE = ("How much does the {d} cost?", "What is the price of the {d}?")
ASK_CHEAPEST = ("What is the cheapest {c} {k}?", "Which {c} {k} costs the least?")
JOINS = (", then ", ". Then ", "; after that, ")


class ShopTask(TypedDict):
    type: str  # "add", "remove", "qty", "checkout" or "ask"
    pid: int | None  # add / remove / qty / ask: the product (ask: the one whose row shows the fact)
    size: str | None  # add / remove / qty
    qty: int | None  # add: how many; qty: the new quantity
    name: str | None  # checkout
    address: str | None  # checkout
    card: str | None  # checkout at hard (as the instruction shows it)
    field: str | None  # ask: "price" or "cheapest"
    fact: str | None  # ask: the answer


class ShopInstruction(Task):
    tasks: list[ShopTask]  # in order (a "buy" is an "add" then a "checkout")


Cart = dict[str, int]  # "pid|size" -> quantity


# --- ids -------------------------------------------------------------------------------------
def product_screen(pid: int) -> str:
    """A product's screen (and its row in the catalog).

    >>> product_screen(3), product_of("p:3"), product_of("menu:p:3.size"), line_of("rm:2"), line_of("cart")
    ('p:3', 3, None, 2, None)
    """
    return f"p:{pid}"


def product_of(sid: str) -> int | None:
    return record_id(sid, "p")


def size_key(pid: int) -> str:
    return sub_id(product_screen(pid), "size")


def qty_key(pid: int) -> str:
    return sub_id(product_screen(pid), "qty")


def price_id(pid: int) -> str:
    return sub_id(product_screen(pid), "price")


def add_id(pid: int) -> str:
    return sub_id(product_screen(pid), "add")


def line_id(lid: int) -> str:
    """A cart item's row on the cart screen: a link to its item screen (:func:`item_screen`),
    which has its Quantity stepper (:func:`line_qty`) and "Remove from cart" (:func:`remove_id`)."""
    return f"l:{lid}"


def item_screen(lid: int) -> str:
    return f"i:{lid}"


def item_of(sid: str) -> int | None:
    return record_id(sid, "i")


def line_qty(lid: int) -> str:
    return sub_id(item_screen(lid), "qty")


def remove_id(lid: int) -> str:
    return sub_id(item_screen(lid), "remove")


def dialog_screen(lid: int) -> str:
    """The "Remove this item?" dialog of a cart item."""
    return f"rm:{lid}"


def line_of(sid: str) -> int | None:
    return record_id(sid, "rm")


def key_of(pid: int, size: str) -> str:
    return f"{pid}|{size}"


def money(cents: int) -> str:
    """>>> money(4999), money(110496)
    ('$49.99', '$1,104.96')
    """
    return f"${cents // 100:,}.{cents % 100:02d}"


def _size_text(size: str) -> str:
    return size if size == ONE_SIZE else f"size {size}"


def card_digits(text: str) -> str:
    return "".join(ch for ch in str(text) if ch.isdigit())


def _shop(spec: AppSpec) -> ShopSpec:
    return spec["shop"]


def _products(spec: AppSpec) -> list[Product]:
    return spec["shop"]["products"]


def describe(p: Product) -> str:
    """How an instruction names a product: colour and the quoted name ('red "Alpine Parka"'; the
    name is what the search field takes, so it is a span a discrete Type action can copy)."""
    return f'{p["colour"].lower()} "{p["name"]}"'


def price_ok(p: Product, limit: str) -> bool:
    """Whether the price filter ``limit`` (ANY or whole dollars) lets ``p`` through."""
    return limit == ANY or p["price"] <= int(limit) * 100


def matches(p: Product, query: str, cat: str, colour: str, price: str = ANY) -> bool:
    """Whether the catalog shows ``p`` under the search text and filters."""
    return (query.strip().casefold() in p["name"].casefold() and cat in (ALL, p["cat"]) and colour in (ANY, p["colour"])
            and price_ok(p, price))


def shown(spec: AppSpec, values: dict[str, Any]) -> list[Product]:
    """The catalog's products under the current search text and filters, in catalog order."""
    q, cat, colour = str(values.get(SEARCH, "")), str(values.get(CAT, ALL)), str(values.get(COLOUR, ANY))
    return [p for p in _products(spec) if matches(p, q, cat, colour, str(values.get(PRICE, ANY)))]


def cart_of(app_state: AppState) -> Cart:
    """The cart as ``"pid|size" -> quantity``."""
    vals = app_state["values"]
    return {key_of(x["pid"], x["size"]): int(vals.get(line_qty(x["lid"]), 1)) for x in app_state["data"]["cart"]}


# --- the app ---------------------------------------------------------------------------------
@register_app
class ShopApp(App):
    """``data["cart"]``: the cart's items (``lid``, ``pid``, ``size``; the quantity is the
    stepper's ``values[line_qty(lid)]``); ``data["orders"]``: the placed orders;
    ``data["next"]``: the next item id. Product and dialog screens are made on the fly."""

    kind = "shop"
    dialog_prefix = "rm:"  # the remove confirmation

    def initial_state(self, spec: AppSpec) -> AppState:
        state = super().initial_state(spec)
        start = _shop(spec)["cart"]
        state["data"].update(cart=[{"lid": i, "pid": c["pid"], "size": c["size"]} for i, c in enumerate(start)], orders=[],
                             next=len(start))
        state["values"].update({SEARCH: "", CAT: ALL, COLOUR: ANY, PRICE: ANY, NAME: "", ADDRESS: "", CARD: ""})
        state["values"].update({line_qty(i): c["qty"] for i, c in enumerate(start)})
        return state

    def state_problems(self, spec: AppSpec, state: AppState) -> list[str]:
        """The catalog (each product's id its index, at least one size), cart lines (the
        scenario's and the state's) of a product in one of its sizes, with unique ``lid`` s
        below ``next``, quantities (steppers) ints in 1..``MAX_QTY``, the price filter one of
        its options and placed orders as ``_place`` makes them."""
        out = super().state_problems(spec, state)
        products = _products(spec)
        out += [f"spec.shop.products[{i}]: id {p['id']!r:.20} is not its index or it has no size"
                for i, p in enumerate(products) if p["id"] != i or not p["sizes"]]
        if out:
            return out

        def item_problems(pid: Any, size: Any, qty: Any, where: str) -> list[str]:
            if type(pid) is not int or not 0 <= pid < len(products) or size not in products[pid]["sizes"]:
                return [f"{where}: product {pid!r:.20} in size {size!r:.20} is not in the catalog"]
            if type(qty) is not int or not 1 <= qty <= MAX_QTY:
                return [f"{where}: quantity {qty!r:.20} is not an int in 1..{MAX_QTY}"]
            return []

        for i, c in enumerate(_shop(spec)["cart"]):
            out += item_problems(c["pid"], c["size"], c["qty"], f"spec.shop.cart[{i}]")
        data, vals = state["data"], state["values"]
        out += id_problems(data["cart"], "data.cart", "lid", next_id=data["next"])
        for i, x in enumerate(data["cart"]):
            out += item_problems(x["pid"], x["size"], vals.get(line_qty(x["lid"]), 1), f"data.cart[{i}]")
        for k, v in vals.items():
            if k.endswith(".qty") and (type(v) is not int or not 1 <= v <= MAX_QTY):
                out.append(f"values[{k!r}]: {v!r:.20} is not an int in 1..{MAX_QTY}")
            elif k.endswith(".size") and v is not None:
                pid = product_of(k[:-5])
                if pid is None or pid >= len(products) or v not in products[pid]["sizes"]:
                    out.append(f"values[{k!r}]: {v!r:.20} is not a size of that product")
        if str(vals.get(PRICE, ANY)) not in (ANY, *PRICE_LIMITS):
            out.append(f"values[{PRICE!r}]: {vals[PRICE]!r:.20} is not one of {(ANY, *PRICE_LIMITS)}")
        keys = {"number": int, "items": list, "name": str, "address": str, "card": str, "total": int}
        for i, o in enumerate(data["orders"]):
            if not (isinstance(o, dict) and o.keys() == keys.keys() and all(type(o[k]) is t for k, t in keys.items())
                    and o["items"] and all(isinstance(x, list) and len(x) == 3 and not item_problems(x[0], x[1], x[2], "")
                                           for x in o["items"])):
                out.append(f"data.orders[{i}]: {o!r:.40} is not an order (number, items [[product, size, quantity], …], "
                           "name, address, card, total)")
        return out

    def tile(self, sid: str, w: Widget) -> bool:
        """The catalogue's products (the ``layout`` variation shows them as tiles)."""
        return sid == MAIN and w.kind == "link" and product_of(w.id) is not None

    def parent(self, spec: AppSpec, sid: str) -> str | None:
        if product_of(sid) is not None:
            return MAIN
        if item_of(sid) is not None:
            return CART
        lid = line_of(sid)
        if lid is not None:
            return item_screen(lid)
        return super().parent(spec, sid)

    def title(self, spec: AppSpec, state: AppState, sid: str) -> str:
        pid = product_of(sid)
        if pid is not None:
            return _products(spec)[pid]["name"]
        lid = item_of(sid)
        if lid is not None:
            x = next((x for x in state["data"]["cart"] if x["lid"] == lid), None)
            return _products(spec)[x["pid"]]["name"] if x is not None else "Cart item"
        if line_of(sid) is not None:
            return "Remove this item?"
        return super().title(spec, state, sid)

    def rows(self, spec: AppSpec, state: AppState, sid: str) -> list[Widget]:
        vals = state["values"]
        products = _products(spec)
        pid = product_of(sid)
        if pid is not None:
            return self._product_rows(products[pid], vals)
        lid = item_of(sid)
        if lid is not None:
            return self._item_rows(products, state, lid)
        lid = line_of(sid)
        if lid is not None:
            x = next((x for x in state["data"]["cart"] if x["lid"] == lid), None)
            if x is None:
                return []
            p = products[x["pid"]]
            what = f"{p['name']} ({p['colour']}, {_size_text(x['size'])})"
            return [
                Widget(sub_id(sid, "dialog"), "dialog", "Remove this item?", detail=what),
                Widget(sub_id(sid, "cancel"), "button", "Cancel", action="cancel"),
                Widget(sub_id(sid, "confirm"), "button", "Remove", action="confirm", style="danger"),
            ]
        if sid == MAIN:
            n, total = self._totals(products, state)
            out = [
                Widget("cart", "link", "Cart", detail=f"{n} item{'s' if n != 1 else ''} \u00b7 {money(total)}", to=CART),
                search_row(SEARCH, str(vals.get(SEARCH, "")), "Search products"),
                tabs_row(CAT, [ALL, *_shop(spec)["cats"]], str(vals.get(CAT, ALL))),
                Widget("filters", "cells", "Filters", cells=[  # the two filters side by side (easy: one screen)
                    select_row(COLOUR, "Colour", [ANY, *_shop(spec)["colours"]], vals.get(COLOUR, ANY)),
                    select_row(PRICE, "Price", [ANY, *PRICE_LIMITS], vals.get(PRICE, ANY),
                               {ANY: "Any", **{x: f"Up to ${x}" for x in PRICE_LIMITS}}),
                ]),
            ]
            found = shown(spec, vals)
            out += [Widget(product_screen(p["id"]), "link", p["name"], detail=f"{p['colour']} \u00b7 {money(p['price'])}",
                           to=product_screen(p["id"])) for p in found]
            if not found:
                out.append(Widget("none", "label", "No products match", style="muted"))
            return out
        if sid == CART:
            return self._cart_rows(products, state)
        if sid == CHECKOUT:
            _, total = self._totals(products, state)
            err = vals.get("co.error", "")
            shop = _shop(spec)
            card = ([Widget(CARD, "input", "Card number", value=vals.get(CARD, ""), placeholder="16 digits")] if shop["card_field"]
                    else [Widget("co.saved", "label", f"Card: Visa \u2022\u2022\u2022\u2022 {shop['saved_card']} (saved)", style="muted")])
            return [
                Widget("co.total", "label", f"Total: {money(total)}"),
                Widget(NAME, "input", "Full name", value=vals.get(NAME, ""), placeholder="Name"),
                Widget(ADDRESS, "input", "Address", value=vals.get(ADDRESS, ""), placeholder="Street and number"),
                *card,
                *([Widget("co.error", "label", err, style="error")] if err else []),
                Widget("co.place", "button", "Place order", action="place", style="primary"),
            ]
        if sid == DONE:
            orders = state["data"]["orders"]
            if not orders:
                return []
            o = orders[-1]
            return [
                Widget("done.number", "label", f"Order #{o['number']} placed", style="heading"),
                Widget("done.thanks", "label", f"Thank you, {o['name']}!"),
                Widget("done.total", "label", f"Total: {money(o['total'])}", style="muted"),
                Widget("done.continue", "button", "Continue shopping", action="continue", style="primary"),
            ]
        return super().rows(spec, state, sid)

    @staticmethod
    def _totals(products: list[Product], state: AppState) -> tuple[int, int]:
        vals = state["values"]
        n = total = 0
        for x in state["data"]["cart"]:
            q = int(vals.get(line_qty(x["lid"]), 1))
            n += q
            total += q * products[x["pid"]]["price"]
        return n, total

    @staticmethod
    def _product_rows(p: Product, vals: dict[str, Any]) -> list[Widget]:
        sid = product_screen(p["id"])
        out = [
            Widget(sub_id(sid, "info"), "label", f"{p['colour']} \u00b7 {p['cat']}", style="muted"),
            Widget(price_id(p["id"]), "label", money(p["price"]), style="heading"),
        ]
        if len(p["sizes"]) > 1:
            out.append(select_row(size_key(p["id"]), "Size", list(p["sizes"]), vals.get(size_key(p["id"])), placeholder="Choose a size"))
        else:
            out.append(Widget(sub_id(sid, "onesize"), "label", f"Size: {p['sizes'][0]}", style="muted"))
        out.append(stepper_row(qty_key(p["id"]), "Quantity", int(vals.get(qty_key(p["id"]), 1)), 1, MAX_QTY))
        err, msg = vals.get(sub_id(sid, "error"), ""), vals.get(sub_id(sid, "msg"), "")
        if err:
            out.append(Widget(sub_id(sid, "error"), "label", err, style="error"))
        out.append(Widget(add_id(p["id"]), "button", "Add to cart", action="add", style="primary"))
        if msg:
            out.append(Widget(sub_id(sid, "msg"), "label", msg, style="muted"))
        return out

    @staticmethod
    def _item_rows(products: list[Product], state: AppState, lid: int) -> list[Widget]:
        x = next((x for x in state["data"]["cart"] if x["lid"] == lid), None)
        if x is None:
            return []
        p, sid = products[x["pid"]], item_screen(lid)
        return [
            Widget(sub_id(sid, "info"), "label", f"{p['colour']} \u00b7 {_size_text(x['size'])}", style="muted"),
            Widget(sub_id(sid, "price"), "label", f"{money(p['price'])} each", style="heading"),
            stepper_row(line_qty(lid), "Quantity", int(state["values"].get(line_qty(lid), 1)), 1, MAX_QTY),
            Widget(remove_id(lid), "button", "Remove from cart", to=dialog_screen(lid), action="remove"),
        ]

    def _cart_rows(self, products: list[Product], state: AppState) -> list[Widget]:
        vals = state["values"]
        out: list[Widget] = []
        for x in state["data"]["cart"]:
            p, lid = products[x["pid"]], x["lid"]
            q = int(vals.get(line_qty(lid), 1))
            out.append(Widget(line_id(lid), "link", p["name"], to=item_screen(lid),
                              detail=f"{p['colour']} \u00b7 {_size_text(x['size'])} \u00b7 Qty {q} \u00b7 {money(q * p['price'])}"))
        if not out:
            return [Widget("cart.empty", "label", "Your cart is empty", style="muted")]
        _, total = self._totals(products, state)
        return [*out, Widget("cart.total", "label", f"Total: {money(total)}", style="heading"),
                Widget("cart.checkout", "button", "Checkout", to=CHECKOUT, action="checkout", style="primary")]

    def on_button(self, spec: AppSpec, state: AppState, w: Widget) -> None:
        sid = state["stack"][-1]
        vals, data = state["values"], state["data"]
        if w.action == "add":
            pid = product_of(sid)
            if pid is None:
                return
            p = _products(spec)[pid]
            size = vals.get(size_key(pid)) if len(p["sizes"]) > 1 else p["sizes"][0]
            if size is None:
                vals.update({sub_id(sid, "error"): "Choose a size", sub_id(sid, "msg"): ""})
                return
            qty = int(vals.get(qty_key(pid), 1))
            x = next((x for x in data["cart"] if x["pid"] == pid and x["size"] == size), None)
            if x is None:
                x = {"lid": data["next"], "pid": pid, "size": size}
                data["next"] += 1
                data["cart"].append(x)
                vals[line_qty(x["lid"])] = qty
            else:
                vals[line_qty(x["lid"])] = min(MAX_QTY, int(vals.get(line_qty(x["lid"]), 1)) + qty)
            vals.update({sub_id(sid, "error"): "", sub_id(sid, "msg"): f"Added {qty} to your cart"})
        elif w.action == "remove" and w.to is not None:
            self.push(state, w.to)
        elif w.action == "cancel":
            self.pop(state)
        elif w.action == "confirm":
            lid = line_of(sid)
            data["cart"] = [x for x in data["cart"] if x["lid"] != lid]
            vals.pop(line_qty(lid), None)  # type: ignore[arg-type]
            while len(state["stack"]) > 1 and state["stack"][-1] != CART:  # the dialog and the item's screen close
                state["stack"].pop()
            state["focus"] = None
        elif w.action == "checkout" and data["cart"]:
            self.push(state, CHECKOUT)
        elif w.action == "place":
            self._place(spec, state)
        elif w.action == "continue":
            del state["stack"][1:]
            state["focus"] = None

    @staticmethod
    def _place(spec: AppSpec, state: AppState) -> None:
        vals, data = state["values"], state["data"]
        name, address = str(vals.get(NAME, "")).strip(), str(vals.get(ADDRESS, "")).strip()
        shop = _shop(spec)
        card = card_digits(vals.get(CARD, "")) if shop["card_field"] else shop["saved_card"]
        err = ("Your cart is empty" if not data["cart"] else "Enter your name" if not name else "Enter your address" if not address
               else "Enter a 16-digit card number" if len(card) != 16 and shop["card_field"] else "")
        if err:
            vals["co.error"] = err
            return
        products = _products(spec)
        items = sorted([x["pid"], x["size"], int(vals.get(line_qty(x["lid"]), 1))] for x in data["cart"])
        total = sum(q * products[pid]["price"] for pid, _, q in items)
        data["orders"].append({"number": shop["order_base"] + len(data["orders"]), "items": items, "name": name,
                               "address": address, "card": card, "total": total})
        for x in data["cart"]:
            vals.pop(line_qty(x["lid"]), None)
        data["cart"] = []
        vals["co.error"] = ""
        state["stack"][1:] = [DONE]
        state["focus"] = None


# --- generation ------------------------------------------------------------------------------
def street_address(rng: np.random.Generator) -> str:
    T = tables(__name__)
    n = int(rng.integers(1, 999))  # drawn in this order: number, street, kind
    s = pick(rng, T.STREETS)
    return T.ADDRESS_FORMAT.format(n=n, s=s, k=pick(rng, T.STREET_KINDS))


def card_number(rng: np.random.Generator) -> str:
    """A 16-digit card number as printed: '4539 1234 5678 9012'."""
    digits = "4" + "".join(str(int(d)) for d in rng.integers(0, 10, size=15))
    return " ".join(digits[i:i + 4] for i in range(0, 16, 4))


def catalog(rng: np.random.Generator, level: str) -> tuple[list[Product], list[str], list[str]]:
    """(products in catalog order, categories, colours)."""
    T = tables(__name__)
    (mlo, mhi), (clo, chi), n_cats, n_cols, _ = LEVEL_SIZES[level]
    cats = sorted(sample(rng, list(T.CATEGORIES), n_cats), key=list(T.CATEGORIES).index)
    colours = sample(rng, T.COLOURS, n_cols)
    n_models = int(rng.integers(mlo, mhi + 1))
    names: set[str] = set()
    prices: set[int] = set()
    out: list[Product] = []
    prev: tuple[str, str, str] | None = None  # the last model's (category, adjective, noun)
    for i in range(n_models):
        twin = level != "easy" and i % 2 == 1 and prev is not None  # a similar name: the last one's adjective or noun
        cat = prev[0] if twin else pick(rng, cats)  # type: ignore[index]
        nouns, sizes, _, (plo, phi) = T.CATEGORIES[cat]
        same_adj = bool(rng.random() < 0.5)
        if twin and (all(T.PRODUCT_NAME.format(a=prev[1], n=n) in names for n in nouns) if same_adj  # type: ignore[index]
                     else all(T.PRODUCT_NAME.format(a=a, n=prev[2]) in names for a in T.ADJECTIVES)):  # type: ignore[index]
            twin = False  # no similar name is free: any free one (the loop below would never end)
        while True:
            adj = prev[1] if twin and same_adj else pick(rng, T.ADJECTIVES)  # type: ignore[index]
            noun = prev[2] if twin and not same_adj else pick(rng, nouns)  # type: ignore[index]
            name = T.PRODUCT_NAME.format(a=adj, n=noun)
            if name not in names:
                break
        names.add(name)
        prev = (cat, adj, noun)
        if len(sizes) > 2:
            k = int(rng.integers(3, min(len(sizes), 5) + 1))
            lo = int(rng.integers(0, len(sizes) - k + 1))
            run = list(sizes[lo:lo + k])
        else:
            run = list(sizes)
        for colour in sample(rng, colours, int(rng.integers(clo, chi + 1))):
            price = int(rng.integers(plo, phi + 1)) * 100 + pick(rng, (0, 50, 99))
            while price in prices:  # every price differs: "the cheapest" is always one product
                price = int(rng.integers(plo, phi + 1)) * 100 + pick(rng, (0, 50, 99))
            prices.add(price)
            out.append({"id": 0, "name": name, "cat": cat, "colour": colour, "sizes": run, "price": price})
        if level == "easy" and len(out) >= EASY_MAX_PRODUCTS:
            out = out[:EASY_MAX_PRODUCTS]
            break
    order = [int(i) for i in rng.permutation(len(out))]
    products = [out[i] for i in order]
    for i, p in enumerate(products):
        p["id"] = i
    used_cats = [c for c in cats if any(p["cat"] == c for p in products)]
    used_cols = [c for c in colours if any(p["colour"] == c for p in products)]
    return products, used_cats, used_cols


def whole_cart(cart: list[CartItem], tasks: list[ShopTask]) -> bool:
    """Whether a checkout after ``tasks`` (up to a purchase's "add") orders more than the item
    bought: the cart they leave, from the start's ``cart``, holds another item. The instruction
    then says that the whole cart is ordered (the order is of the cart, not of the item)."""
    held = {key_of(c["pid"], c["size"]) for c in cart}
    for t in tasks:
        if t["type"] in ("add", "qty"):
            held.add(key_of(cast(int, t["pid"]), cast(str, t["size"])))
        elif t["type"] == "remove":
            held.discard(key_of(cast(int, t["pid"]), cast(str, t["size"])))
    return len(held) > 1


def _blank(kind: str) -> ShopTask:
    return {"type": kind, "pid": None, "size": None, "qty": None, "name": None, "address": None, "card": None, "field": None,
            "fact": None}


class ShopFamily(Family):
    name = "Shop"
    description = "A shop: search, filter, options, cart (steppers, remove through a dialog), checkout form, questions (Answer)."
    apps = (APP,)
    task_type = ShopInstruction
    asks_questions = True
    _memo: tuple[Scenario, tuple[Cart, Cart, list[Any]]] | None = None
    #: The tasks in the instruction's order ("buy": add, then check out).
    templates = {"easy": ("add", "remove", "qty", "ask_price", "ask_cheapest"),
                 "medium": ("buy", "remove", "qty", "ask_price", "ask_cheapest"),
                 "hard": ("remove+buy", "qty+buy", "add+buy", "buy+ask_price")}

    def template(self, scenario: Scenario) -> str:
        names: list[str] = []
        for t in self._tasks(scenario):
            if t["type"] == "checkout":
                names[-1] = "buy"
            else:
                names.append(f"ask_{t['field']}" if t["type"] == "ask" else t["type"])
        return "+".join(names)

    def generate(self, rng: np.random.Generator, level: str) -> Scenario:
        T = tables(__name__)
        products, cats, colours = catalog(rng, level)
        if level == "hard":
            kinds = list(pick(rng, (("remove", "buy"), ("qty", "buy"), ("add", "buy"), ("buy", "ask_price"))))
        elif level == "medium":
            kinds = [pick(rng, ("buy", "buy", "remove", "qty", "ask_price", "ask_cheapest"))]
        else:
            kinds = [pick(rng, ("add", "add", "remove", "qty", "ask_price", "ask_cheapest"))]
        clo, chi = LEVEL_SIZES[level][4]
        need = sum(k in ("remove", "qty") for k in kinds)
        n_cart = max(need, int(rng.integers(clo, chi + 1)))
        # products to add are not in the cart at the start; the cart's and these have distinct names
        n_add = sum(k in ("add", "buy") for k in kinds)
        chosen: list[Product] = []
        for p in sample(rng, products, len(products)):
            if len(chosen) < n_cart + n_add and all(p["name"] != c["name"] for c in chosen):
                chosen.append(p)
        adds, in_cart = chosen[:n_add], chosen[n_add:]
        cart: list[CartItem] = [{"pid": p["id"], "size": pick(rng, p["sizes"]), "qty": int(rng.integers(1, 4))} for p in in_cart]
        targets = sample(rng, range(len(cart)), need)  # the cart items the tasks change
        tasks: list[ShopTask] = []
        clauses: list[str] = []
        card_field = level == "hard"
        for k in kinds:
            if k in ("add", "buy"):
                p = adds.pop(0)
                t = _blank("add")
                t.update({"pid": p["id"], "size": pick(rng, p["sizes"]), "qty": int(rng.integers(1, 3 if level == "easy" else 4))})
                tasks.append(t)
                clauses.append(self._add_clause(rng, p, t, buy=k == "buy"))
                if k == "buy" and level != "easy":
                    c = _blank("checkout")
                    c.update({"name": pick(rng, PEOPLE), "address": street_address(rng), "card": card_number(rng) if card_field else None})
                    tasks.append(c)
                    clauses[-1] += self._checkout_clause(c, whole_cart(cart, tasks))
            elif k in ("remove", "qty"):
                item = cart[targets.pop(0)]
                pid, size, qty = item["pid"], item["size"], item["qty"]
                p = products[pid]
                t = _blank(k)
                t.update({"pid": pid, "size": size})
                if k == "qty":
                    t["qty"] = pick(rng, [n for n in range(1, 6) if n != qty])
                    clauses.append(pick(rng, QTY).format(d=describe(p), n=t["qty"]))
                else:
                    clauses.append(pick(rng, REMOVE).format(d=describe(p)))
                tasks.append(t)
            else:
                t = self._ask(rng, k, products, level, first=not clauses)
                tasks.append(t)
                p = products[t["pid"]]  # type: ignore[index]
                if t["field"] == "price":
                    q = pick(rng, ASK_PRICE).format(d=describe(p))
                    clauses.append(q if not clauses else f"tell me how much the {describe(p)} costs")
                else:
                    clauses.append(pick(rng, ASK_CHEAPEST).format(c=p["colour"].lower(), k=T.CATEGORIES[p["cat"]][2]))
        text = clauses[0]
        for clause in clauses[1:]:
            text += pick(rng, JOINS) + clause[0].lower() + clause[1:]
        if not text.endswith(("?", ".")):
            text += "."
        values: dict[str, Any] = {}
        if level != "easy":  # stale search text and filters (they may hide the product), a stale name in the form
            if rng.random() < 0.3:
                word = pick(rng, T.ADJECTIVES)
                if "ask_cheapest" not in kinds:  # (that reference would clear it: no span of the instruction to type)
                    values[SEARCH] = word
            if rng.random() < 0.5:
                values[CAT] = pick(rng, cats)
            if rng.random() < 0.3:
                values[COLOUR] = pick(rng, colours)
            if rng.random() < 0.5:
                values[NAME] = pick(rng, PEOPLE)
        shop: ShopSpec = {"products": products, "cats": cats, "colours": colours, "cart": cart, "card_field": card_field,
                          "saved_card": f"{int(rng.integers(0, 10000)):04d}", "order_base": int(rng.integers(1000, 9000))}
        spec: AppSpec = {
            "kind": "shop", "name": APP, "root": MAIN, "color": list(pick(rng, ICON_COLORS)), "shop": shop,
            "screens": {
                MAIN: {"title": pick(rng, ("Shop", "Store", "Catalog")), "parent": None, "rows": []},
                CART: {"title": "Cart", "parent": MAIN, "rows": []},
                CHECKOUT: {"title": "Checkout", "parent": CART, "rows": []},
                DONE: {"title": "Order placed", "parent": None, "rows": []},
            },
        }
        task: ShopInstruction = {"instruction": text, "tasks": tasks}
        return {
            "family": self.name, "level": level, "apps": {APP: spec}, "home": {"enabled": False, "icons": [APP]},
            "theme": theme(rng), "start": {"fg": APP, "values": {APP: values} if values else {}}, "task": task,
        }

    @staticmethod
    def _add_clause(rng: np.random.Generator, p: Product, t: ShopTask, buy: bool) -> str:
        q = f"{t['qty']} of " if t["qty"] != 1 else ""
        s = f" in size {t['size']}" if len(p["sizes"]) > 1 else ""
        return pick(rng, BUY if buy else ADD).format(q=q, d=describe(p), s=s)

    @staticmethod
    def _checkout_clause(c: ShopTask, whole: bool) -> str:
        """' and check out with name …': ``whole``, when the cart holds more than the item bought
        (the order is of the whole cart), '… check out the whole cart with name …'."""
        what = " the whole cart" if whole else ""
        if c["card"] is None:
            return f' and check out{what} with name "{c["name"]}" and address "{c["address"]}"'
        return f' and check out{what} with name "{c["name"]}", address "{c["address"]}" and card number "{c["card"]}"'

    @staticmethod
    def _ask(rng: np.random.Generator, kind: str, products: list[Product], level: str, first: bool) -> ShopTask:
        t = _blank("ask")
        if kind == "ask_cheapest":  # a (category, colour) with several products (one is enough at easy)
            groups: dict[tuple[str, str], list[Product]] = {}
            for p in products:
                groups.setdefault((p["cat"], p["colour"]), []).append(p)
            least = 1 if level == "easy" else 2
            pool = [g for _, g in sorted(groups.items()) if len(g) >= least]
            if pool and first:
                best = min(pick(rng, pool), key=lambda p: p["price"])
                t.update({"pid": best["id"], "field": "cheapest", "fact": best["name"]})
                return t
        p = pick(rng, products)
        t.update({"pid": p["id"], "field": "price", "fact": money(p["price"])})
        return t

    # --- progress --------------------------------------------------------------------------
    @staticmethod
    def _tasks(scenario: Scenario) -> list[ShopTask]:
        return cast(ShopInstruction, scenario["task"])["tasks"]

    def _expected(self, scenario: Scenario) -> tuple[Cart, Cart, list[Any]]:
        """(the start's cart, the cart the tasks make before any checkout, the orders at the end),
        memoised for the last scenario (by identity; never mutate it)."""
        memo = self._memo
        if memo is not None and memo[0] is scenario:
            return memo[1]
        start = {key_of(c["pid"], c["size"]): c["qty"] for c in _shop(scenario["apps"][APP])["cart"]}
        cart = dict(start)
        orders: list[Any] = []
        for t in self._tasks(scenario):
            if t["type"] in ("add", "qty"):
                cart[key_of(t["pid"], t["size"])] = int(t["qty"])  # type: ignore[arg-type]
            elif t["type"] == "remove":
                cart.pop(key_of(t["pid"], t["size"]), None)  # type: ignore[arg-type]
            elif t["type"] == "checkout":
                orders.append(self._order(cart, t["name"], t["address"], card_digits(t["card"]) if t["card"] else None))
        out = (start, cart, orders)
        self._memo = (scenario, out)
        return out

    @staticmethod
    def _order(cart: Cart, name: Any, address: Any, card: str | None) -> tuple[Any, ...]:
        items = tuple(sorted((k, q) for k, q in cart.items()))
        return (items, str(name).strip(), str(address).strip(), card)

    def _orders(self, scenario: Scenario, app_state: AppState) -> list[Any]:
        saved = not _shop(scenario["apps"][APP])["card_field"]
        return [self._order({key_of(pid, size): q for pid, size, q in o["items"]}, o["name"], o["address"],
                            None if saved else o["card"]) for o in app_state["data"]["orders"]]

    def _ask_task(self, scenario: Scenario) -> ShopTask | None:
        return next((t for t in self._tasks(scenario) if t["type"] == "ask"), None)

    def question(self, scenario: Scenario) -> bool:
        return self._ask_task(scenario) is not None

    def task_problems(self, scenario: Scenario) -> list[str]:
        """Each task of a known type; an add of a size the product comes in, a remove or a new
        quantity of an item in the cart by then (a remove of a missing one loaded as done), a
        question about a product of the catalog."""
        shop = _shop(scenario["apps"][APP])
        sizes = {p["id"]: p["sizes"] for p in shop["products"]}
        cart = {key_of(c["pid"], c["size"]) for c in shop["cart"]}
        out: list[str] = []
        for i, t in enumerate(self._tasks(scenario)):
            w, k = f"$.task.tasks[{i}]", t["type"]
            out += missing(f"{w}.type", k, ("add", "remove", "qty", "checkout", "ask"), "Shop task type")
            if k in ("add", "remove", "qty", "ask"):
                out += missing(f"{w}.pid", t["pid"], sizes, "product of the scenario's Shop")
            if k == "add" and t["pid"] in sizes:
                out += missing(f"{w}.size", t["size"], sizes[t["pid"]], f"size of product {t['pid']}")
                cart.add(key_of(t["pid"], t["size"]))  # type: ignore[arg-type]
            elif k in ("remove", "qty") and t["pid"] in sizes:
                out += missing(f"{w}.size", t["size"], {c.partition("|")[2] for c in cart if c.partition("|")[0] == str(t["pid"])},
                               f"size of product {t['pid']} in the cart by then")
                if k == "remove":
                    cart.discard(key_of(t["pid"], t["size"]))  # type: ignore[arg-type]
            if k in ("add", "qty") and not (type(t["qty"]) is int and t["qty"] >= 1):
                out.append(f"{w}.qty: {t['qty']!r:.40} is not a quantity (an int >= 1)")
        return out

    def success(self, scenario: Scenario, state: DeviceState) -> bool:
        app_state = state["apps"][APP]
        _, cart, orders = self._expected(scenario)
        if self._orders(scenario, app_state) != orders:
            return False
        if cart_of(app_state) != ({} if orders else cart):
            return False
        ask = self._ask_task(scenario)
        if ask is None:
            return True
        from guigym.answers import answers_match

        return "answer" in state and answers_match(state["answer"], str(ask["fact"]))

    def failed(self, scenario: Scenario, state: DeviceState) -> bool | str:
        app_state = state["apps"][APP]
        start, want, orders = self._expected(scenario)
        have_orders = self._orders(scenario, app_state)
        if have_orders != orders[:len(have_orders)]:
            if have_orders[:len(orders)] == orders:  # every order asked for, and one more (or one where none is asked)
                return ORDER_EXTRA
            return "an order was placed that differs from the one the task asks for"
        base, goal = (start, want) if len(have_orders) < len(orders) or not orders else ({}, {})
        have = cart_of(app_state)
        if any(k not in base and k not in goal for k in have):
            return CART_ITEM_ADDED
        if any(k not in have for k in base if k in goal):
            return CART_ITEM_REMOVED
        # a wrong quantity is not yet a failure: the steppers can set it right until the order is placed
        if "answer" not in state or self.success(scenario, state):
            return False
        ask = self._ask_task(scenario)
        return answer_failure(state, str(ask["fact"]) if ask is not None else None)

    def next_goal(self, scenario: Scenario, state: DeviceState) -> Goal | None:
        spec = scenario["apps"][APP]
        app_state = state["apps"][APP]
        vals = app_state["values"]
        products = _products(spec)
        cart = cart_of(app_state)
        placed = bool(app_state["data"]["orders"])
        if not placed:  # a quantity the tasks do not ask for (a stray click, an item added twice): set it right first
            want = self._expected(scenario)[1]
            started = {key_of(t["pid"], t["size"]) for t in self._tasks(scenario) if t["type"] == "qty"}  # type: ignore[arg-type]
            for x in app_state["data"]["cart"]:
                k = key_of(x["pid"], x["size"])
                if k in want and k not in started and cart[k] != want[k]:
                    return Goal(APP, item_screen(x["lid"]), line_qty(x["lid"]), "set", want[k])
        for t in self._tasks(scenario):
            kind = t["type"]
            if kind in ("add", "remove", "qty") and not placed:
                pid, size = int(t["pid"]), str(t["size"])  # type: ignore[arg-type]
                k = key_of(pid, size)
                lid = next((x["lid"] for x in app_state["data"]["cart"] if x["pid"] == pid and x["size"] == size), None)
                if kind == "remove" and lid is not None:
                    return Goal(APP, dialog_screen(lid), sub_id(dialog_screen(lid), "confirm"), "press")
                if kind == "qty" and lid is not None and cart[k] != t["qty"]:
                    return Goal(APP, item_screen(lid), line_qty(lid), "set", int(t["qty"]))  # type: ignore[arg-type]
                if kind == "add" and k not in cart:
                    return self._add(spec, app_state, products[pid], size, int(t["qty"]))  # type: ignore[arg-type]
            elif kind == "checkout" and not placed:
                for key, value in ((NAME, t["name"]), (ADDRESS, t["address"]), (CARD, t["card"])):
                    if value is not None and vals.get(key) != value:
                        return Goal(APP, CHECKOUT, key, "set", value)
                return Goal(APP, CHECKOUT, "co.place", "press")
            elif kind == "ask" and "answer" not in state:
                p = products[int(t["pid"])]  # type: ignore[arg-type]
                if t["field"] == "cheapest":  # every candidate listed: the category and colour chosen, no search text
                    for key, value in ((SEARCH, ""), (CAT, p["cat"]), (COLOUR, p["colour"]), (PRICE, ANY)):
                        if vals.get(key) != value:
                            return Goal(APP, MAIN, key, "set", value)
                    return Goal(APP, MAIN, product_screen(p["id"]), "answer", t["fact"])
                psid = product_screen(p["id"])
                goal = Goal(APP, psid, price_id(p["id"]), "answer", t["fact"])
                if psid in app_state["stack"]:
                    return goal
                # the price read off the product's catalog row where that row is on screen and
                # shows it whole (guigym.oracle.ground); its page otherwise
                return Goal(APP, MAIN, psid, "answer", t["fact"], otherwise=self._show(spec, vals, p, goal), read_off=True)
        return None

    def _add(self, spec: AppSpec, app_state: AppState, p: Product, size: str, qty: int) -> Goal:
        """The next step of adding ``qty`` x ``p`` in ``size``: find it, choose the size and quantity, add."""
        vals = app_state["values"]
        psid = product_screen(p["id"])
        # the quantity first: while no size is chosen, a stray "Add to cart" adds nothing
        if int(vals.get(qty_key(p["id"]), 1)) != qty:
            goal = Goal(APP, psid, qty_key(p["id"]), "set", qty)
        elif len(p["sizes"]) > 1 and vals.get(size_key(p["id"])) != size:
            goal = Goal(APP, psid, size_key(p["id"]), "set", size)
        else:
            goal = Goal(APP, psid, add_id(p["id"]), "press")
        return goal if psid in app_state["stack"] else self._show(spec, vals, p, goal)

    @staticmethod
    def _show(spec: AppSpec, vals: dict[str, Any], p: Product, goal: Goal) -> Goal:
        """``goal`` (on ``p``'s screen) where the catalog lists ``p`` alone (or at all, in a catalog
        that fits on one screen, at easy); else a goal that narrows the catalog to ``p`` alone
        (search its name, then the category tab if it hides it, then the colour filter), or,
        where ``p`` is listed once by its name among others, ``goal`` if its row is on screen
        and that narrowing otherwise (:attr:`Goal.otherwise`: a row in view is clicked, not searched)."""
        listed = shown(spec, vals)
        if [x["id"] for x in listed] == [p["id"]]:
            return goal
        once = p in listed and sum(x["name"] == p["name"] for x in listed) == 1
        if once and len(_products(spec)) <= EASY_MAX_PRODUCTS:
            return goal
        if str(vals.get(SEARCH, "")).strip().casefold() != p["name"].casefold():
            narrow = Goal(APP, MAIN, SEARCH, "set", p["name"])
        elif not price_ok(p, str(vals.get(PRICE, ANY))):  # a price filter that hides it (set on a detour)
            narrow = Goal(APP, MAIN, PRICE, "set", ANY)
        elif vals.get(CAT, ALL) not in (ALL, p["cat"]):
            narrow = Goal(APP, MAIN, CAT, "set", p["cat"])
        else:
            narrow = Goal(APP, MAIN, COLOUR, "set", p["colour"])
        return replace(goal, otherwise=narrow) if once else narrow


__all__ = ["ShopFamily", "ShopApp", "menu_screen"]
