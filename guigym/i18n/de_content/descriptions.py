"""German content of ``guigym.descriptions``: the phrase tables of the long descriptions.

A sentence is an opener, a subject and a predicate, or a whole sentence. The openers end in a
colon and the subjects are capitalised and singular, so every opener, subject and predicate make
a correct sentence ("Nur zur Info: Das Team lässt herzlich grüßen."). Like the English ones: no
digits, names, dates, colours, prices or interface verbs (löschen, senden, speichern, öffnen, …).
"""

PHRASES: dict[str, dict[str, tuple[str, ...]]] = {
    "product": {
        "open": ("Für jeden Tag gemacht:", "Mit Sorgfalt gefertigt:", "Auf Dauer gebaut:", "Leicht und praktisch:",
                 "Ein Liebling der Kunden:", "Schlicht und robust:"),
        "subject": ("Das Stück", "Das Design", "Die Verarbeitung", "Das Material", "Jede Naht", "Die Form"),
        "pred": ("hält viele Jahre gut durch.", "fühlt sich den ganzen Tag weich an.", "lässt sich leicht feucht abwischen.",
                 "bleibt auch nach vielen Wäschen in Form.", "passt zu Hause wie auf Reisen.", "sieht überall gut aus.",
                 "wurde auf Komfort und Stabilität geprüft.", "passt auch in kleines Gepäck."),
        "whole": ("Bitte vor dem Waschen das Pflegeetikett beachten.", "Die Verpackung ist vollständig recycelbar.",
                  "Kleine Unterschiede in der Struktur gehören dazu.", "Es passt gut zum Rest der Kollektion.",
                  "Unser Team mag es für Qualität und Komfort."),
    },
    "mail": {
        "open": ("Wie schon gesagt:", "Etwas anderes:", "Nur zur Info:", "Zwischendurch:", "Mit Blick nach vorn:",
                 "Nebenbei bemerkt:"),
        "subject": ("Das Team", "Jeder hier", "Das Büro", "Unsere Gruppe", "Die ganze Truppe", "Die Familie nebenan"),
        "pred": ("hatte zuletzt viel zu tun.", "lässt herzlich grüßen.", "freut sich schon auf den Sommer.",
                 "genoss den langen Spaziergang am Fluss.", "fragt ständig nach dem Garten.", "hat das neue Café um die Ecke entdeckt.",
                 "redet immer noch von der Reise.", "hat sich an den neuen Alltag gewöhnt."),
        "whole": ("Ich hoffe, bei dir ist alles gut.", "Sag Bescheid, wenn etwas unklar ist.", "Wir haben lange nicht gesprochen.",
                  "Pass auf dich auf und genieß die Woche.", "Das Wetter hier war herrlich.",
                  "Darauf musst du nicht eingehen."),
    },
    "event": {
        "open": ("Wie üblich:", "Wenn möglich:", "Wie beim letzten Mal:", "Am besten:", "Bitte beachten:"),
        "subject": ("Die Gruppe", "Jeder", "Der Gastgeber", "Das Orga-Team", "Jeder Gast"),
        "pred": ("bringt eine Kleinigkeit mit.", "fängt gern pünktlich an.", "sollte eine kurze Pause einplanen.",
                 "darf gern jemanden mitbringen.", "wartet am Haupteingang.", "parkt ganz in der Nähe."),
        "whole": ("Bequeme Schuhe sind eine gute Idee.", "Für Snacks und Getränke ist gesorgt.", "Der Raum ist im Erdgeschoss.",
                  "Meist endet es ganz ohne Eile.", "Nimm etwas Warmes mit, falls es kühl wird."),
    },
    "person": {
        "open": ("Soweit ich mich erinnere:", "Soweit ich weiß:", "Gut zu wissen:", "Erwähnenswert:"),
        "subject": ("Diese Person", "Dieser Kontakt", "Die Familie", "Der alte Kollege"),
        "pred": ("mag kurze Texte lieber als lange Gespräche.", "wandert gern und mag ruhige Wochenenden.", "hat abends meist Zeit.",
                 "kocht gern für viele Leute.", "ist vor ein paar Jahren hergezogen.", "hilft immer gern aus."),
        "whole": ("Wir haben uns über gemeinsame Freunde kennengelernt.", "Mag starken Tee und gute Bücher.",
                  "Meldet sich meist innerhalb einer Stunde.", "Tolle Begleitung auf langen Reisen."),
    },
    "file": {
        "open": ("Zur Orientierung:", "Zur Erinnerung:", "Kurz gesagt:", "Der Vollständigkeit halber:"),
        "subject": ("Dieses Dokument", "Diese Kopie", "Das Original", "Diese Fassung"),
        "pred": ("wird zur Sicherheit aufbewahrt.", "sammelt Ideen aus mehreren Quellen.", "gehört der ganzen Gruppe.",
                 "ersetzt einen älteren Stand.", "könnte irgendwann aufgeräumt werden.", "bleibt vorerst an Ort und Stelle."),
        "whole": ("Es lässt sich mit gängigen Programmen ansehen.", "Einiges ist noch unfertig.", "Eine Kopie liegt noch woanders.",
                  "Nichts darin ist dringend."),
    },
    "note": {
        "open": ("Außerdem:", "Nicht vergessen:", "Später dann:", "Vielleicht:", "So oder so:"),
        "subject": ("Der Plan", "Die Idee", "Die Liste", "Dieser Gedanke", "Der Rest"),
        "pred": ("kann warten, bis es ruhiger wird.", "braucht noch etwas Überlegung.", "fühlt sich nach einem guten Anfang an.",
                 "sollte kurz und einfach bleiben.", "kam mir bei einem langen Spaziergang.",
                 "könnte nach einem Gespräch anders aussehen."),
        "whole": ("Einfach halten.", "Mehr Ideen sammeln.", "Überhaupt nicht eilig.", "Irgendwann noch mal ansehen.",
                  "Für jetzt gut genug."),
    },
    "chat": {
        "open": ("Vorhin:", "Übrigens:", "Ehrlich gesagt:", "Jedenfalls:"),
        "subject": ("Der Chat", "Dieser Verlauf", "Das Gespräch", "Die Diskussion"),
        "pred": ("landete bald bei Urlaubsplänen.", "ging vor allem ums Wetter.", "dauerte ziemlich lange.",
                 "drehte sich um alte Geschichten und Witze."),
        "whole": ("Viele lachende Emojis.", "Vor allem Smalltalk.", "Ein paar Fotos gingen herum.", "Eigentlich nichts Wichtiges."),
    },
}
