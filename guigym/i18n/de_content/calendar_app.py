"""German content of ``guigym.apps.calendar_app``: event titles (entry for entry the English ones)."""

TITLES = (
    "Zahnarzttermin", "Teamessen", "Yogakurs", "Buchclub", "Klavierstunde", "Friseur", "Projektbesprechung", "Fitness",
    "Arzttermin", "Autoinspektion", "Budgetbesprechung", "Elternabend", "Schwimmen", "Gitarrenstunde",
    "Filmabend", "Dinnerparty", "Flug nach Berlin", "Vorstellungsgespräch", "Tierarzttermin", "Tennis", "Spieleabend",
    "Quartalsplanung", "Sprachkurs", "Wochenmarkt", "Töpferkurs", "Ehrenamt", "Code-Review",
    "Geburtstagsfeier", "Physiotherapie", "Sehtest", "Konzert", "Lauftreff", "Kochkurs", "Fototour",
    "Sprintplanung", "Weinprobe", "Museumsbesuch", "Fahrradreparatur", "Team-Retro", "Chorprobe",
)
#: Titles about a person, one per first name (``{n}``).
PERSONAL = ("Mittagessen mit {n}", "{n} anrufen", "Kaffee mit {n}")
#: The series a "delete every ..." rule is about.
SERIES = ("Stand-up", "Abstimmung", "Morgenlauf", "Teamrunde")
