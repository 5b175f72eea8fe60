"""German content of ``guigym.apps.shop``: product names (a German noun, then the model's name,
as German catalogs name them: "Regenjacke Alpin") and street addresses ("Eichenstraße 12").

The categories (the dict's keys), colours and sizes stay the English UI values the phrasebook
translates at display; only the nouns and the question's word for a category are German. No noun
is the end of another and no model name the start of another, so searching a product's whole
name lists that model alone (as in English).
"""

from guigym.apps import shop as _en

#: The noun, then the model's name: "Parka Gipfel" (a name before the noun would need a hyphen).
PRODUCT_NAME = "{n} {a}"
CATEGORIES: dict[str, tuple[tuple[str, ...], tuple[str, ...], str, tuple[int, int]]] = {
    "Jackets": (("Parka", "Windjacke", "Regenjacke", "Steppjacke"), _en.APPAREL, "Jacke", (59, 199)),
    "Tops": (("Kapuzenpulli", "Poloshirt", "T-Shirt", "Pullover"), _en.APPAREL, "Oberteil", (14, 69)),
    "Shoes": (("Turnschuhe", "Stiefel", "Sandalen", "Slipper"), _en.SHOE_SIZES, "Paar Schuhe", (39, 159)),
    "Bags": (("Rucksack", "Tragetasche", "Reisetasche", "Umhängetasche"), (_en.ONE_SIZE,), "Tasche", (24, 129)),
    "Hats": (("Kappe", "Mütze", "Fischerhut", "Sonnenhut"), ("S/M", "L/XL"), "Hut", (9, 39)),
}
#: Model names (brand-like; the English lines' German counterparts).
ADJECTIVES = ("Alpin", "Urban", "Trail", "Klassik", "Gipfel", "Küste", "Nordkap", "Metro", "Hafen", "Canyon", "Grat",
              "Espe", "Pionier", "Atlas", "Alltag", "Drift")
#: Street names' first parts and their endings: "Eichen" + "straße" = "Eichenstraße".
STREETS = ("Eichen", "Ahorn", "Zedern", "Kiefern", "Ulmen", "See", "Berg", "Park", "Ufer", "Mühlen", "Kirch", "Haupt")
STREET_KINDS = ("straße", "allee", "weg", "gasse", "ring")
ADDRESS_FORMAT = "{s}{k} {n}"  # street, then the house number: "Eichenstraße 12"
