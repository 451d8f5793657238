"""Text as the judging rules read it: one spelling for what a reader sees as the same.

A pattern for "ignore previous instructions" or `ghp_` misses the same words written
with a zero-width space inside, in fullwidth letters, with a Cyrillic o or a
non-breaking space: a person (or a model) reads no difference, a regex sees other
characters. So the injection, secret, personal-data and transcript rules judge
`judged(text)`, which is

1. NFKD: compatibility forms become plain characters (fullwidth letters, digits, low
   line and bar are ASCII ones, the fi ligature is `fi`, a no-break space is a space)
   and every accented letter is split into its letter and combining marks;
2. without format characters (Unicode category Cf: zero-width space, joiners, soft
   hyphen, bidi embeddings, overrides and isolates, the BOM) and without any combining
   mark (category Mn), so `pre\u0301vious`, `é`, `ï` and `İ` are read as their bare
   letters: a skeleton, as a reader skims it. The invisible tag characters are read as
   the ASCII letters they copy;
3. with every other space (em, thin, ideographic, line and paragraph separators)
   folded to a plain space;
4. with the letters of LOOKALIKES folded to the Latin letter they are drawn like (and
   a few bars, colons and angle brackets to ASCII punctuation);
5. NFC again, so what is left of other scripts (Hangul syllables) is composed as typed.

Newlines are never added or removed, so a line number in the judged text is the line
in the file. Text that is pure ASCII, nearly every entry, comes back as it is for the
cost of one `str.isascii`: nothing above can change it.
"""

from __future__ import annotations

# Letters of Cyrillic, Greek, Armenian, Coptic, Cherokee, Lisu and Latin extensions that
# fonts draw like a Latin letter (after the Unicode confusables data, for the letters the
# injection phrases and secret prefixes are spelled with), blank letters drawn as a
# space, and colons. Only whole lookalikes: Cyrillic `и` or Greek `λ` stay as they are.
# Keys are as NFKD leaves them (the lunate sigma U+03F2 arrives as a final sigma).
LOOKALIKES = {
    # Cyrillic
    "\N{CYRILLIC SMALL LETTER A}": "a",
    "\N{CYRILLIC SMALL LETTER ES}": "c",
    "\N{CYRILLIC SMALL LETTER KOMI DE}": "d",
    "\N{CYRILLIC SMALL LETTER IE}": "e",
    "\N{CYRILLIC SMALL LETTER SHHA}": "h",
    "\N{CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I}": "i",
    "\N{CYRILLIC SMALL LETTER JE}": "j",
    "\N{CYRILLIC SMALL LETTER KA}": "k",
    "\N{CYRILLIC SMALL LETTER PALOCHKA}": "l",
    "\N{CYRILLIC SMALL LETTER O}": "o",
    "\N{CYRILLIC SMALL LETTER ER}": "p",
    "\N{CYRILLIC SMALL LETTER QA}": "q",
    "\N{CYRILLIC SMALL LETTER DZE}": "s",
    "\N{CYRILLIC SMALL LETTER WE}": "w",
    "\N{CYRILLIC SMALL LETTER HA}": "x",
    "\N{CYRILLIC SMALL LETTER U}": "y",
    "\N{CYRILLIC SMALL LETTER STRAIGHT U}": "y",
    "\N{CYRILLIC CAPITAL LETTER A}": "A",
    "\N{CYRILLIC CAPITAL LETTER VE}": "B",
    "\N{CYRILLIC CAPITAL LETTER ES}": "C",
    "\N{CYRILLIC CAPITAL LETTER IE}": "E",
    "\N{CYRILLIC CAPITAL LETTER EN}": "H",
    "\N{CYRILLIC CAPITAL LETTER BYELORUSSIAN-UKRAINIAN I}": "I",
    "\N{CYRILLIC CAPITAL LETTER JE}": "J",
    "\N{CYRILLIC CAPITAL LETTER KA}": "K",
    "\N{CYRILLIC CAPITAL LETTER EM}": "M",
    "\N{CYRILLIC CAPITAL LETTER O}": "O",
    "\N{CYRILLIC CAPITAL LETTER ER}": "P",
    "\N{CYRILLIC CAPITAL LETTER DZE}": "S",
    "\N{CYRILLIC CAPITAL LETTER TE}": "T",  # codespell:ignore te
    "\N{CYRILLIC CAPITAL LETTER HA}": "X",
    "\N{CYRILLIC CAPITAL LETTER U}": "Y",
    "\N{CYRILLIC CAPITAL LETTER STRAIGHT U}": "Y",
    "\N{CYRILLIC CAPITAL LETTER QA}": "Q",
    "\N{CYRILLIC CAPITAL LETTER WE}": "W",
    "\N{CYRILLIC LETTER PALOCHKA}": "I",
    # Greek
    "\N{GREEK SMALL LETTER ALPHA}": "a",
    "\N{GREEK SMALL LETTER EPSILON}": "e",
    "\N{GREEK SMALL LETTER IOTA}": "i",
    "\N{GREEK SMALL LETTER KAPPA}": "k",
    "\N{GREEK SMALL LETTER NU}": "v",
    "\N{GREEK SMALL LETTER OMICRON}": "o",
    "\N{GREEK SMALL LETTER RHO}": "p",
    "\N{GREEK SMALL LETTER UPSILON}": "u",
    "\N{GREEK SMALL LETTER CHI}": "x",
    "\N{GREEK CAPITAL LETTER ALPHA}": "A",
    "\N{GREEK CAPITAL LETTER BETA}": "B",
    "\N{GREEK CAPITAL LETTER EPSILON}": "E",
    "\N{GREEK CAPITAL LETTER ZETA}": "Z",
    "\N{GREEK CAPITAL LETTER ETA}": "H",
    "\N{GREEK CAPITAL LETTER IOTA}": "I",
    "\N{GREEK CAPITAL LETTER KAPPA}": "K",
    "\N{GREEK CAPITAL LETTER MU}": "M",
    "\N{GREEK CAPITAL LETTER NU}": "N",
    "\N{GREEK CAPITAL LETTER OMICRON}": "O",
    "\N{GREEK CAPITAL LETTER RHO}": "P",
    "\N{GREEK CAPITAL LETTER TAU}": "T",
    "\N{GREEK CAPITAL LETTER UPSILON}": "Y",
    "\N{GREEK CAPITAL LETTER CHI}": "X",
    # Latin
    "\N{LATIN SMALL LETTER SCRIPT G}": "g",
    "\N{LATIN SMALL LETTER DOTLESS I}": "i",
    "\N{LATIN SMALL LETTER DOTLESS J}": "j",
    # Latin small capitals, a "styled text" spelling that NFKC leaves alone
    "\N{LATIN LETTER SMALL CAPITAL A}": "a",
    "\N{LATIN LETTER SMALL CAPITAL B}": "b",
    "\N{LATIN LETTER SMALL CAPITAL C}": "c",
    "\N{LATIN LETTER SMALL CAPITAL D}": "d",
    "\N{LATIN LETTER SMALL CAPITAL E}": "e",
    "\N{LATIN LETTER SMALL CAPITAL F}": "f",
    "\N{LATIN LETTER SMALL CAPITAL G}": "g",
    "\N{LATIN LETTER SMALL CAPITAL H}": "h",
    "\N{LATIN LETTER SMALL CAPITAL I}": "i",
    "\N{LATIN LETTER SMALL CAPITAL J}": "j",
    "\N{LATIN LETTER SMALL CAPITAL K}": "k",
    "\N{LATIN LETTER SMALL CAPITAL L}": "l",
    "\N{LATIN LETTER SMALL CAPITAL M}": "m",
    "\N{LATIN LETTER SMALL CAPITAL N}": "n",
    "\N{LATIN LETTER SMALL CAPITAL O}": "o",
    "\N{LATIN LETTER SMALL CAPITAL P}": "p",
    "\N{LATIN LETTER SMALL CAPITAL Q}": "q",
    "\N{LATIN LETTER SMALL CAPITAL R}": "r",
    "\N{LATIN LETTER SMALL CAPITAL S}": "s",
    "\N{LATIN LETTER SMALL CAPITAL T}": "t",
    "\N{LATIN LETTER SMALL CAPITAL U}": "u",
    "\N{LATIN LETTER SMALL CAPITAL V}": "v",
    "\N{LATIN LETTER SMALL CAPITAL W}": "w",
    "\N{LATIN LETTER SMALL CAPITAL Y}": "y",
    "\N{LATIN LETTER SMALL CAPITAL Z}": "z",
    # Armenian
    "\N{ARMENIAN SMALL LETTER OH}": "o",
    "\N{ARMENIAN CAPITAL LETTER OH}": "O",
    "\N{ARMENIAN SMALL LETTER SEH}": "u",  # codespell:ignore seh
    "\N{ARMENIAN CAPITAL LETTER SEH}": "U",  # codespell:ignore seh
    "\N{ARMENIAN SMALL LETTER HO}": "h",
    "\N{ARMENIAN SMALL LETTER VO}": "n",
    "\N{ARMENIAN SMALL LETTER CO}": "g",
    "\N{ARMENIAN SMALL LETTER ZA}": "q",
    "\N{ARMENIAN FULL STOP}": ":",
    # Coptic
    "\N{COPTIC SMALL LETTER O}": "o",
    "\N{COPTIC CAPITAL LETTER O}": "O",
    "\N{COPTIC SMALL LETTER ALFA}": "a",
    "\N{COPTIC SMALL LETTER RO}": "p",
    "\N{COPTIC CAPITAL LETTER RO}": "P",
    "\N{COPTIC SMALL LETTER SIMA}": "c",
    "\N{COPTIC CAPITAL LETTER SIMA}": "C",
    "\N{COPTIC SMALL LETTER IAUDA}": "i",
    "\N{COPTIC CAPITAL LETTER IAUDA}": "I",
    "\N{COPTIC SMALL LETTER KHI}": "x",
    "\N{COPTIC CAPITAL LETTER KHI}": "X",
    "\N{COPTIC SMALL LETTER KAPA}": "k",
    "\N{COPTIC CAPITAL LETTER KAPA}": "K",
    "\N{COPTIC CAPITAL LETTER HATE}": "H",
    "\N{COPTIC CAPITAL LETTER NI}": "N",
    "\N{COPTIC CAPITAL LETTER MI}": "M",
    "\N{COPTIC CAPITAL LETTER TAU}": "T",
    "\N{COPTIC CAPITAL LETTER ALFA}": "A",
    "\N{COPTIC CAPITAL LETTER VIDA}": "B",
    "\N{COPTIC CAPITAL LETTER EIE}": "E",
    "\N{COPTIC CAPITAL LETTER ZATA}": "Z",
    # Cherokee (their small letters follow from .lower())
    "\N{CHEROKEE LETTER V}": "i",
    "\N{CHEROKEE LETTER GO}": "A",
    "\N{CHEROKEE LETTER YV}": "B",
    "\N{CHEROKEE LETTER TLI}": "C",
    "\N{CHEROKEE LETTER A}": "D",
    "\N{CHEROKEE LETTER GV}": "E",
    "\N{CHEROKEE LETTER NAH}": "G",
    "\N{CHEROKEE LETTER MI}": "H",
    "\N{CHEROKEE LETTER GU}": "J",
    "\N{CHEROKEE LETTER TSO}": "K",
    "\N{CHEROKEE LETTER TLE}": "L",
    "\N{CHEROKEE LETTER LU}": "M",
    "\N{CHEROKEE LETTER TLV}": "P",
    "\N{CHEROKEE LETTER DU}": "S",
    "\N{CHEROKEE LETTER LA}": "W",
    "\N{CHEROKEE LETTER I}": "T",
    "\N{CHEROKEE LETTER DO}": "V",
    "\N{CHEROKEE LETTER NO}": "Z",
    "\N{CHEROKEE LETTER E}": "R",
    "\N{CHEROKEE LETTER GI}": "y",
    "\N{CHEROKEE LETTER SV}": "R",
    "\N{CHEROKEE LETTER NA}": "O",
    # Lisu (Fraser), capitals only
    "\N{LISU LETTER I}": "I",
    "\N{LISU LETTER A}": "A",
    "\N{LISU LETTER BA}": "B",
    "\N{LISU LETTER CA}": "C",
    "\N{LISU LETTER DA}": "D",
    "\N{LISU LETTER E}": "E",
    "\N{LISU LETTER TSA}": "F",
    "\N{LISU LETTER GA}": "G",
    "\N{LISU LETTER XA}": "H",
    "\N{LISU LETTER JA}": "J",
    "\N{LISU LETTER KA}": "K",
    "\N{LISU LETTER LA}": "L",
    "\N{LISU LETTER MA}": "M",
    "\N{LISU LETTER NA}": "N",
    "\N{LISU LETTER O}": "O",
    "\N{LISU LETTER PA}": "P",
    "\N{LISU LETTER ZHA}": "R",
    "\N{LISU LETTER SA}": "S",
    "\N{LISU LETTER TA}": "T",
    "\N{LISU LETTER U}": "U",
    "\N{LISU LETTER HA}": "V",
    "\N{LISU LETTER WA}": "W",
    "\N{LISU LETTER SHA}": "X",
    "\N{LISU LETTER YA}": "Y",
    "\N{LISU LETTER DZA}": "Z",
    # Greek, more (a lunate sigma reaches here as a final sigma: NFKD)
    "\N{GREEK SMALL LETTER FINAL SIGMA}": "c",
    "\N{GREEK LETTER YOT}": "j",  # codespell:ignore yot
    "\N{GREEK SMALL LETTER GAMMA}": "y",
    "\N{GREEK SMALL LETTER ETA}": "n",
    "\N{GREEK SMALL LETTER OMEGA}": "w",
    "\N{GREEK CAPITAL LETTER YOT}": "J",  # codespell:ignore yot
    # Cyrillic, more
    "\N{CYRILLIC SMALL LETTER IZHITSA}": "v",
    "\N{CYRILLIC CAPITAL LETTER IZHITSA}": "V",
    "\N{CYRILLIC CAPITAL LETTER KOMI DE}": "D",
    "\N{CYRILLIC CAPITAL LETTER KOMI SJE}": "G",
    "\N{CYRILLIC SMALL LETTER OMEGA}": "w",
    "\N{CYRILLIC CAPITAL LETTER SHHA}": "H",
    # Latin, more
    "\N{LATIN SMALL LETTER ALPHA}": "a",
    "\N{LATIN SMALL LETTER IOTA}": "i",
    "\N{LATIN SMALL LETTER OPEN E}": "e",
    "\N{LATIN SMALL LETTER V WITH HOOK}": "v",
    "\N{LATIN LETTER RETROFLEX CLICK}": "!",
    # Colons
    "\N{MODIFIER LETTER TRIANGULAR COLON}": ":",
    "\N{TWO DOT PUNCTUATION}": ":",
    "\N{HEBREW PUNCTUATION SOF PASUQ}": ":",
    "\N{COLON}": ":",
    # Blank letters that render as a space
    "\N{HANGUL CHOSEONG FILLER}": " ",
    "\N{HANGUL JUNGSEONG FILLER}": " ",
    "\N{HANGUL FILLER}": " ",
    "\N{HALFWIDTH HANGUL FILLER}": " ",
    "\N{BRAILLE PATTERN BLANK}": " ",
    # Punctuation that chat-template markers and role prefixes are spelled with
    "\N{DIVIDES}": "|",
    "\N{LATIN LETTER DENTAL CLICK}": "|",
    "\N{BOX DRAWINGS LIGHT VERTICAL}": "|",
    "\N{MODIFIER LETTER COLON}": ":",
    "\N{RATIO}": ":",
    "\N{SINGLE LEFT-POINTING ANGLE QUOTATION MARK}": "<",
    "\N{SINGLE RIGHT-POINTING ANGLE QUOTATION MARK}": ">",
    "\N{LEFT ANGLE BRACKET}": "<",
    "\N{RIGHT ANGLE BRACKET}": ">",
}
# A small letter of a capital above is drawn like the capital's small Latin letter (the
# Cherokee small letters, Coptic and Armenian lower case): added here, not written out.
LOOKALIKES.update(
    {
        small: latin.lower()
        for char, latin in list(LOOKALIKES.items())
        for small in (char.lower(),)
        if small != char and len(small) == 1 and small not in LOOKALIKES and latin.isalpha()
    }
)
# Unicode tag characters (U+E0020 to U+E007E) are invisible copies of ASCII that a model
# may still read ("ASCII smuggling"): they are judged as the ASCII they copy, not removed.
_TAG_CHARACTERS = range(0xE0020, 0xE007F)
_TAG_OFFSET = 0xE0000
_DROPPED = ("Cf", "Mn")  # format characters; combining marks (NFKD split them off)
_SPACES = ("Zs", "Zl", "Zp")

# What each non-ASCII character becomes (None: removed), filled as characters are met.
_FOLDED: dict[str, str | None] = {}
# The last lines judged: the four rules judge each document in turn, so three of four
# calls find it here. (the lines given, their text judged, the judged lines, that text
# lowercased or None until asked for)
_LAST: list = [None, "", [], None]


def judged(text: str) -> str:
    """The text the rules judge (see the module docstring); `text` itself when ASCII."""
    if text.isascii():
        return text
    import unicodedata  # only for text that is not ASCII

    if not unicodedata.is_normalized("NFKD", text):  # the check is several times cheaper
        text = unicodedata.normalize("NFKD", text)
    table = {}
    # Distinct characters only: a long entry has a few dozen, so the Python loop is short.
    for char in set(text):
        if char.isascii():
            continue
        if char in _FOLDED:
            folded = _FOLDED[char]
        else:
            folded = _FOLDED[char] = _fold(unicodedata.category(char), char)
        if folded != char:
            table[ord(char)] = folded
    if table:
        text = text.translate(table)
    if text.isascii() or unicodedata.is_normalized("NFC", text):
        return text
    return unicodedata.normalize("NFC", text)


def judged_lines(lines: list[str]) -> tuple[str, list[str]]:
    """(the lines joined by newlines, then judged; the judged lines). The lines given
    come back as they are when they are ASCII. The judged lines are shared with the
    other rules reading the same lines: a rule must not change them."""
    if lines == _LAST[0]:  # a copy: equal lines, even if the list changed since
        return _LAST[1], _LAST[2]
    joined = "\n".join(lines)
    if joined.isascii():
        _LAST[:] = list(lines), joined, lines, None
    else:
        text = judged(joined)
        _LAST[:] = list(lines), text, text.split("\n"), None
    return _LAST[1], _LAST[2]


def judged_lowered(lines: list[str]) -> str:
    """`judged_lines(lines)[0].lower()`, made once for the rules that read it in turn."""
    text = judged_lines(lines)[0]
    if _LAST[3] is None:
        _LAST[3] = text.lower()
    return _LAST[3]


def format_characters(text: str) -> set[str]:
    """The format characters (category Cf, not tag characters) that `text` holds.

    `judged` removes them, which reads "ig\u200bnore" as the word it hides. But a
    zero-width space (or joiner, or soft hyphen) may also stand where a space would,
    "previous\u200binstructions", and a reader, or a model, reads two words there: a
    rule that must not miss either reading judges the text with them as spaces too.
    """
    if text.isascii():
        return set()
    import unicodedata

    return {
        char
        for char in set(text)
        if not char.isascii()
        and ord(char) not in _TAG_CHARACTERS
        and unicodedata.category(char) == "Cf"
    }


def _fold(category: str, char: str) -> str | None:
    if ord(char) in _TAG_CHARACTERS:
        return chr(ord(char) - _TAG_OFFSET)
    if category in _DROPPED:
        return None
    if category in _SPACES:
        return " "
    return LOOKALIKES.get(char, char)
