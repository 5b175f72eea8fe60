"""German content of ``guigym.apps.files``: folder names, file names' stems and their variants.

Entry for entry the English tables' (the same draws). Names stay as short as the English ones
(the longest folder name has 11 letters, as "Screenshots" does: the Move picker shortens paths
by characters, :data:`guigym.apps.files.DEST_CHARS`), pairwise distinct ignoring case, and no
stem holds a variant's separator ("_", "-", " "), so a file name is one stem, variant and
extension, as in English (the same names clash, the same draws are made again).
"""

FOLDER_NAMES = (
    "Dokumente", "Downloads", "Bilder", "Musik", "Videos", "Arbeit", "Projekte", "Steuern", "Rechnungen", "Reisen", "Rezepte",
    "Schule", "Belege", "Sicherungen", "Screenshots", "Entwürfe", "Geteilt", "Archiv", "Familie", "Kunden", "Grafiken",
    "Berichte", "Notizen", "Scans", "Alt", "Sonstiges", "Verträge", "Briefe", "Budget", "2023",
)
STEMS = (
    "bericht", "rechnung", "budget", "notizen", "lebenslauf", "foto", "scan", "vertrag", "folien", "entwurf", "brief", "beleg",
    "zusammenfassung", "plan", "sicherung", "tagesordnung", "reiseplan", "speisekarte", "plakat", "rezept", "zeitplan",
    "kontoauszug", "abschlussarbeit", "protokoll", "handbuch", "playlist", "logo", "karte", "ticket", "formular",
)
#: The words of the English variants in German (" copy" as a German file manager names a copy);
#: years, versions, quarters and "-final" read the same in German.
VARIANTS = ("", "_2023", "_2024", "_2025", "-final", "-v2", "-v3", " (1)", " Kopie", "_q1", "_q3", "-alt", "_entwurf", "-signiert")
