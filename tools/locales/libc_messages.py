#!/usr/bin/env python3
"""Writes crates/gpuenv-explain/data/libc-messages.tsv: glibc's own translations of the loader
messages the explain catalogue matches in English, read from the libc.mo catalogues of Debian's
`locales` package (/usr/share/locale/*/LC_MESSAGES/libc.mo). Run on a machine with that package:

    python3 tools/locales/libc_messages.py > crates/gpuenv-explain/data/libc-messages.tsv
"""
import glob
import gettext
import subprocess
import sys

# The msgids, exactly as glibc's sources spell them (elf/dl-load.c, string/strerror.c).
MSGIDS = [
    "cannot open shared object file",
    "error while loading shared libraries",
    "No such file or directory",
]


def glibc_version() -> str:
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "locales"],
                             capture_output=True, text=True, check=True).stdout
        return out.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    print(f"# glibc's translations of loader messages, from Debian locales {glibc_version()}")
    print("# (/usr/share/locale/LOCALE/LC_MESSAGES/libc.mo); written by tools/locales/libc_messages.py.")
    print("# english<TAB>locale<TAB>translation")
    rows = set()
    for path in sorted(glob.glob("/usr/share/locale/*/LC_MESSAGES/libc.mo")):
        locale = path.split("/")[4]
        with open(path, "rb") as f:
            catalogue = gettext.GNUTranslations(f)
        for msgid in MSGIDS:
            translated = catalogue.gettext(msgid)
            # Translations that kept the English text add nothing; tabs would break the table.
            if translated != msgid and "\t" not in translated and "\n" not in translated:
                rows.add((msgid, locale, translated))
    if not rows:
        sys.exit("no libc.mo catalogues found: install Debian's `locales` package")
    for msgid, locale, translated in sorted(rows, key=lambda r: (r[0], r[1])):
        print(f"{msgid}\t{locale}\t{translated}")


if __name__ == "__main__":
    main()
