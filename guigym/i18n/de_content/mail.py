"""German content of ``guigym.apps.mail``: subjects and their slots, bodies, replies, new mails.

The topics (``SUBJECTS``' second column, ``OPENINGS``' and ``SUBJECT_WORDS``' keys) are ids, the
same as in English. Each ``SUBJECT_WORDS`` word is in every subject of its topic and in no other
subject, slot or name (a rule or search on it finds exactly that topic's mails), and the subjects
are as distinct as the English ones (a subject drawn twice is drawn again: the same draws).
"""

TEAMS = ("Budget", "Design", "Vertrieb", "Marketing", "Planung", "Produkt", "Sicherheit", "Forschung")
PLACES = ("Rom", "Oslo", "Lissabon", "Kyoto", "Denver", "Kairo", "Lima", "Dublin", "Paris", "Wien")
# neuter nouns: "Tickets fürs {event}"
EVENTS = ("Konzert", "Spiel", "Theater", "Festival", "Match", "Musical")
MONTHS = ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember")
DAYS = ("Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag")
SUBJECTS = (
    ("Rechnung Nr. {num}", "invoice"), ("Überfällige Rechnung {num}", "invoice"), ("Rechnung für {month}", "invoice"),
    ("Meeting Team {team}", "meeting"), ("Meeting am {day}", "meeting"), ("Meeting auf {day} verschoben", "meeting"),
    ("Mittagessen am {day}", "lunch"), ("Mittagessen mit Team {team}", "lunch"),
    ("Tickets fürs {event}", "tickets"), ("Deine {event}-Tickets", "tickets"),
    ("Fotos aus {place}", "photos"), ("Reisefotos: {place}", "photos"),
    ("Bestellung {num} versandt", "order"), ("Deine Bestellung {num}", "order"),
    ("Bericht Team {team} für {month}", "report"), ("Monatsbericht: {month}", "report"),
    ("Party am {day}", "party"), ("Party im {month}", "party"),
    ("Newsletter: {month}", "newsletter"), ("Newsletter Team {team}", "newsletter"),
    ("Flug nach {place}", "flight"), ("Flugänderung: {place}", "flight"),
    ("Deine Quittung aus {place}", "receipt"), ("Quittung {num}", "receipt"),
)
SUBJECT_WORDS = {"invoice": "Rechnung", "order": "Bestellung", "report": "Bericht", "newsletter": "Newsletter",
                 "receipt": "Quittung", "tickets": "Tickets", "photos": "Fotos", "flight": "Flug"}
# a body is its sentences, one a line: no abbreviations (a word ending in "." ends a sentence)
OPENINGS = {
    "invoice": ("Anbei die Rechnung.", "Hier ist die Rechnung für letzten Monat.", "Deine Rechnung ist jetzt fällig."),
    "meeting": ("Hier die Details zum Meeting.", "Kurz zu unserem Meeting.", "Wir treffen uns in einem anderen Raum."),
    "lunch": ("Wollen wir zusammen essen gehen?", "Ich habe einen Tisch für uns reserviert.", "Das neue Lokal hat diese Woche eröffnet."),
    "tickets": ("Ich habe die Tickets für uns.", "Deine Tickets sind im Anhang.", "Die Plätze sind in Reihe fünf."),
    "photos": ("Hier sind die Fotos von der Reise.", "Ich habe die besten Bilder hochgeladen.", "Die Fotos sind toll geworden."),
    "order": ("Deine Bestellung ist unterwegs.", "Wir haben deine Bestellung heute verpackt.",
              "Deine Bestellung hat unser Lager verlassen."),
    "report": ("Der Bericht ist fertig zur Durchsicht.", "Bitte lies den Bericht im Anhang.", "Ich habe die neuesten Zahlen ergänzt."),
    "party": ("Du bist zur Party eingeladen.", "Bring gern jemanden mit.", "Es gibt Musik und Essen."),
    "newsletter": ("Hier sind die Neuigkeiten des Monats.", "Lies mehr über unsere Neuerungen.", "Danke, dass du unsere News liest."),
    "flight": ("Dein Flug ist bestätigt.", "Das Gate hat sich geändert.", "Der Check-in öffnet einen Tag vorher."),
    "receipt": ("Danke für deinen Einkauf.", "Hier ist deine Quittung.", "Heb die Quittung für Rückgaben auf."),
}
CLOSINGS = ("Sag mir, was du denkst.", "Bis bald.", "Vielen Dank!", "Wir sehen uns dort.", "Schönen Tag noch.",
            "Viele Grüße.", "Melde dich bei Fragen.", "Bis dann.")
# one line on the mail's screen (34 characters with "12:45 PM"): the oracle reads the time off it
MEETING_FACT = ("Es beginnt um {t}.", "Start ist pünktlich um {t}.", "Beginn ist um {t}.")
REPLIES = ("Danke, bis dann", "Klingt gut", "Ich komme", "Können wir es auf Montag verschieben?", "Alles klar, danke",
           "Schick mir bitte die Details", "Ich rufe dich später an", "Sieht super aus, danke!", "Ich bin dabei",
           "Sorry, ich schaffe es nicht", "Ich prüfe das und melde mich", "Perfekt, danke für das Update")
NEW_SUBJECTS = ("Kurze Frage", "Pläne für Samstag", "Projektstart", "Buchtipp", "Umzugstag", "Abendessen nächste Woche",
                "Fahrgemeinschaft", "Wanderung am Wochenende", "Kaffee morgen?", "Danke schön!", "Team-Mittagessen", "Gartengeräte")
NEW_BODIES = ("Hast du am Freitag Zeit?", "Hier sind die versprochenen Fotos.", "Kannst du mich anrufen, wenn du Zeit hast?",
              "Sag mir, was dir passt.", "Ich kenne ein tolles Lokal fürs Abendessen.", "Brauchst du die Leiter noch?",
              "Nochmals danke für deine Hilfe.", "Kannst du mir die Folien schicken?", "Die Tickets sind gebucht.",
              "Wir sehen uns am Bahnhof.")
