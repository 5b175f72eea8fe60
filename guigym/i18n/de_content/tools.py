"""German content of ``guigym.apps.tools``: the notes' titles and texts (Launcher, Phone and
CrossApp draw them), entry for entry the English ones: pairwise distinct, and each text fits the
notes list's 28-character preview."""

NOTE_TITLES = (
    "Einkaufsliste", "Packliste", "Meeting-Notizen", "Geschenkideen", "Leseliste", "Rezepte", "Trainingsplan",
    "Reisepläne", "Zu erledigen", "Filmliste", "Garten", "Geburtstagsfeier", "Autoinspektion", "Budget", "Ideen",
)
NOTE_BODIES = (
    "Milch, Eier, Brot", "Klempner anrufen", "Pass und Ladegerät", "Miete am Freitag zahlen", "Briefmarken kaufen",
    "Tisch für vier reservieren", "Pflanzen gießen", "Büchereiausweis verlängern", "Paket abholen", "Ölwechsel um 5",
)
