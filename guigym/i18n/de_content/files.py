"""German content of ``guigym.apps.files``: file names' stems."""

STEMS = (
    "bericht", "rechnung", "budget", "notizen", "lebenslauf", "foto", "scan", "vertrag", "folien", "entwurf", "brief", "beleg",
    "zusammenfassung", "plan", "sicherung", "tagesordnung", "reiseplan", "speisekarte", "plakat", "rezept", "zeitplan",
    "kontoauszug", "abschlussarbeit", "protokoll", "handbuch", "playlist", "logo", "karte", "ticket", "formular",
)
