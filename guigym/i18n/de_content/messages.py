"""German content of ``guigym.apps.messages``: the small talk, the facts people send (an address,
a time) and their parts.

The chat templates take every ``{thing}`` in the accusative with its article ("Danke für die
Fotos!") and every ``{event}`` with its own preposition ("Wie war es beim Konzert?"), so one
table of each fits all templates. Like the English ones they hold no digits (only a fact message
holds an address or a time), no apostrophes and no double quotes (instructions quote them).
Addresses read "Eichenweg 12". Times stay on the apps' 12-hour clock ("7:30 PM"), as every screen
and picker shows them: a time read in Messages and set in Clock or Calendar (CrossApp) is then
the English task's, not one with a conversion more.
"""

THINGS = (
    "die Tickets", "die Schlüssel", "die Fotos", "das Ladegerät", "den Schirm", "den Beleg", "das Buch", "den Kuchen", "die Karte",
    "die Notizen", "die Rechnung", "die Snacks", "die Decke", "die Kamera", "die Kopfhörer", "das Rezept",
)
EVENTS = (
    "beim Konzert", "beim Spiel", "auf der Party", "beim Meeting", "beim Essen", "beim Interview", "auf der Reise", "im Kurs",
    "beim Turnier", "auf der Hochzeit", "bei der Show", "bei der Wanderung",
)
DAYS = ("morgen", "heute Abend", "am Montag", "am Dienstag", "am Freitag", "am Wochenende", "nächste Woche", "am Sonntag")
CHAT = (
    "Hast du {thing} gesehen?", "Danke für {thing}!", "Kannst du {thing} mitbringen?", "Ich habe {thing} gefunden",
    "Vergiss {thing} nicht", "Wie war es {event}?", "Bist du {event} dabei?", "Es war super {event}",
    "Ich komme etwas später", "Klingt gut", "Ruf mich später an", "Wir sehen uns {day}", "Viel Glück {event}!",
    "Wo hast du {thing} hingelegt?", "Ich schicke dir {day} {thing}", "Alles klar, danke", "Können wir {day} reden?",
    "Ich schaue nach und melde mich", "Ich bringe {day} {thing} mit", "Wer ist {event} dabei?",
)
#: Street names' first halves: street + kind is one word ("Eichen" + "weg").
STREETS = ("Eichen", "Ahorn", "Zedern", "Tannen", "Ulmen", "See", "Berg", "Park", "Ufer", "Mühlen", "Kirch", "Haupt", "Hafen", "Wald",
           "Brunnen", "Sonnen")
STREET_KINDS = ("straße", "allee", "weg", "gasse", "ring", "platz")
ADDRESS = "{street}{kind} {n}"
#: No preposition before the address: "in der Eichenstraße" but "im Eichenweg".
SAY_ADDRESS = ("Treffpunkt: {a}", "Die Party ist hier: {a}", "Meine neue Adresse ist {a}", "Ich bin jetzt hier: {a}",
               "Komm vorbei: {a}")
SAY_TIME = ("Wie wäre es mit {t}?", "Treffen wir uns um {t}?", "Geht stattdessen auch {t}?", "Abendessen um {t}?", "Ich bin um {t} da")
