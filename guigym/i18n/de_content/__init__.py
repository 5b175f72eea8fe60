"""German content tables, one module per family module (``guigym.i18n.content``): each defines
some of that module's upper-case tables again, entry for entry, in German."""
