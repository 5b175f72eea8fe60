"""German content of ``guigym.apps.crossapp``: a new mail's subjects, the meeting mail's sentences
and the date it names.

The instruction templates (``FACT``, ``NOTE_T``, …) stay English: the German instruction is made
from the task's fields (``guigym.i18n.de``, ``_crossapp``). Times stay as the apps show them.
"""

#: A new mail's subject, per source (the keys are the sources: not translated).
SUBJECTS: dict[str, tuple[str, ...]] = {
    "address": ("Adresse", "Die Adresse", "Wo es hingeht", "Hier ist sie"), "meeting": ("Termin", "Die Uhrzeit", "Zur Info"),
    "price": ("Preischeck", "Der Preis", "Schau mal", "Für dich"), "phone": ("Die Nummer", "Telefonnummer", "Kontakt", "Wie versprochen"),
    "chain": ("Die Nummer", "Telefonnummer", "Kontakt", "Wie versprochen"),
}
MEETING_OPENS = ("Hier sind die Details.", "Kurz zu unserem nächsten Treffen.", "Komm gern dazu.")
MEETING_SAYS = ("Das Treffen ist am {d}.", "Wir treffen uns am {d}.", "Es findet am {d} statt.")
STARTS = ("Es beginnt um {t}.", "Wir fangen pünktlich um {t} an.", "Los geht es um {t}.")
MEETING_CLOSES = ("Bis dann.", "Bis bald.", "Vielen Dank!")
#: "Samstag, 14. März 2026".
LONG_DATE = "{weekday}, {day}. {month} {year}"
WEEKDAYS = ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag")
MONTHS = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember")
