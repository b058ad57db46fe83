"""The model's explanation checked against the excerpts it cites, before the answer is final.

A small model states numbers, names and terms with confidence whether or not the lecture said
them. Every sentence of the explanation is read for its checkable facts: numbers (digits or
number words), names and acronyms (a capital letter past the sentence's first word), code-like
terms (`append()`, `os.path`, `snake_case`) and quoted words. A fact counts as supported when
one of the sentence's cited excerpts contains it (case and accents folded; numbers by value, so
"3" is found in "three" and "1,000" in "1000"). A sentence whose facts another excerpt holds is
cited with that one instead; a sentence whose facts no excerpt holds loses its citation and is
listed as unsupported, so the faces show it dimmed with a note. A sentence with no checkable
fact keeps its citation: the check refuses only what it can prove absent.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from lecturetui.core.citing import CITATION, cited_numbers
from lecturetui.core.lexical import fold

SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+(?:\s*\[[\d,;\s]+\])*|$)")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?![\w])")
_CODE = re.compile(r"`([^`]+)`|\b(\w+\(\))|\b([A-Za-z_]\w*\.[A-Za-z_]\w*)\b|\b([a-z]+_[a-z_]+)\b")
_WORD = re.compile(r"[^\W\d_][\w'-]*")
#: number words of the lectures' languages, so "three" supports "3" (and "três" too)
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20, "hundred": 100,
    "thousand": 1000, "million": 10**6, "billion": 10**9,
    "um": 1, "uma": 1, "dois": 2, "duas": 2, "tres": 3, "quatro": 4, "cinco": 5, "seis": 6,
    "sete": 7, "oito": 8, "nove": 9, "dez": 10, "onze": 11, "doze": 12, "vinte": 20, "cem": 100,
    "cento": 100, "mil": 1000, "milhao": 10**6, "milhoes": 10**6, "bilhao": 10**9,
    "bilhoes": 10**9,
}  # fmt: skip
#: capitalised words that are not names (a sentence's own words, the citation's language)
_NOT_NAMES = frozenset(
    {
        "the",
        "a",
        "an",
        "in",
        "it",
        "this",
        "that",
        "these",
        "when",
        "if",
        "o",
        "os",
        "as",
        "no",
        "na",
        "em",
        "e",
        "é",
        "um",
        "uma",
        "se",
        "quando",
        "isso",
        "este",
        "esta",
        "ele",
        "ela",
        "i",
        "eu",
        "segundo",
        "according",
        "por",
        "para",
        "de",
        "do",
        "da",
        "and",
        "or",
        "but",
    }
)


@dataclass(frozen=True, slots=True)
class Unsupported:
    """A sentence of the explanation whose facts none of its cited excerpts contains."""

    sentence: str
    missing: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Checked:
    """The explanation with its citations corrected, and what could not be supported."""

    text: str
    unsupported: tuple[Unsupported, ...]
    recited: int  # sentences given another excerpt's citation
    checked: int  # cited sentences with at least one checkable fact


def _values(token: str) -> set[float]:
    """The values a written number can have: "1,000" and "1.000" are a thousand or one, "3,5"
    is three and a half (the separators differ between English and Portuguese)."""
    out: set[float] = set()
    for thousands, decimal in ((",", "."), (".", ",")):
        parts = token.split(decimal)
        if len(parts) > 2:
            continue
        whole = parts[0].replace(thousands, "")
        try:
            out.add(float(whole + ("." + parts[1] if len(parts) == 2 else "")))
        except ValueError:
            continue
    return out


def facts(sentence: str) -> list[str]:
    """The checkable facts of a sentence: numbers, names and acronyms, code-like terms."""
    body = CITATION.sub(" ", sentence)
    out: list[str] = []
    for m in _CODE.finditer(body):
        out.append(next(g for g in m.groups() if g))
    out.extend(m.group(0) for m in _NUMBER.finditer(body))
    words = list(_WORD.finditer(body))
    for k, m in enumerate(words):
        w = m.group(0)
        if k == 0 or not w[0].isupper() or fold(w) in _NOT_NAMES:
            continue
        if body[: m.start()].rstrip().endswith((":", '"', "«", "“")):
            continue  # a quotation's first word
        out.append(w)
    return list(dict.fromkeys(out))


def _numbers_in(text: str) -> set[float]:
    found = {v for m in _NUMBER.finditer(text) for v in _values(m.group(0))}
    found.update(_NUMBER_WORDS[w] for w in re.findall(r"[a-z]+", fold(text)) if w in _NUMBER_WORDS)
    return found


def holds(fact: str, excerpt: str) -> bool:
    """Whether the excerpt states the fact (see the module's docstring)."""
    if _NUMBER.fullmatch(fact):
        return bool(_values(fact) & _numbers_in(excerpt))
    needle = fold(fact).strip("()'’")
    hay = fold(excerpt)
    if re.search(rf"(?<!\w){re.escape(needle)}", hay):
        return True
    # a name's possessive or an acronym's plural: "Satoshi's", "ASICs" where "Satoshi", "ASIC"
    bare = re.sub(r"(?<=\w{2})(?:['’]s|(?<=[A-Z])s)$", "", fact)
    if bare != fact:
        return holds(bare, excerpt)
    if needle.replace(" ", "") in hay.replace(" ", ""):  # "TensorFlow" heard as "tensor flow"
        return True
    # `os.path` said as "os dot path", `snake_case` as "snake case", `line.startswith` as
    # "line starts with"
    spoken = re.sub(r"[._]", " ", needle)
    if spoken == needle:
        return False
    said = hay.replace(" dot ", " ").replace(" ponto ", " ")
    return spoken in said or spoken.replace(" ", "") in said.replace(" ", "")


def check(text: str, excerpts: dict[int, str]) -> Checked:
    """Check each cited sentence of `text` against `excerpts` (their number -> their text)."""
    out: list[str] = []
    unsupported: list[Unsupported] = []
    recited = checked = 0
    pos = 0
    for m in SENTENCE.finditer(text):
        sentence = m.group(0)
        out.append(text[pos : m.start()])
        pos = m.end()
        cited = [n for n in cited_numbers(sentence, max(excerpts, default=0)) if n in excerpts]
        found = facts(sentence)
        if not found or not sentence.strip():
            out.append(sentence)
            continue
        checked += 1 if cited else 0

        def missing(n: int, found: Sequence[str] = found) -> list[str]:
            return [f for f in found if not holds(f, excerpts[n])]

        if cited and not any(missing(n) for n in cited):
            out.append(sentence)
            continue
        best = min(excerpts, key=lambda n: (len(missing(n)), n not in cited, n))
        bare = re.sub(r"\s+([.!?])", r"\1", CITATION.sub("", sentence)).rstrip()
        trail = sentence[len(sentence.rstrip()) :]
        if not missing(best):
            recited += 1 if cited else 0
            out.append(_cite(bare, best) + trail)
            continue
        lacking = [f for f in found if not any(holds(f, e) for e in excerpts.values())]
        unsupported.append(Unsupported(" ".join(bare.split()), tuple(lacking or found)))
        out.append(bare + trail)
    out.append(text[pos:])
    return Checked("".join(out), tuple(unsupported), recited, checked)


def _cite(bare: str, n: int) -> str:
    """The sentence (citations removed) with `[n]` before its closing punctuation."""
    stripped = bare.rstrip(".!?")
    return f"{stripped.rstrip()} [{n}]{bare[len(stripped) :]}"


_NOT_ANSWERED = [
    re.compile(p)
    for p in (
        r"\b(excerpts?|lectures?|texts?|context|passages?)\b[^.]{0,60}\b(do|does|did) not\b"
        r"[^.]{0,40}\b(answer|cover|mention|address|say|discuss|contain|provide|explain)",
        r"\bnot (mentioned|covered|discussed|addressed|explained)\b",
        r"\bno (information|mention)\b",
        r"\b(trechos?|excertos?|aulas?|textos?|contexto)\b[^.]{0,60}\bnao\b[^.]{0,40}"
        r"\b(respond|abord|mencion|trat|fala|cont[eé]m|cobr|explic|diz|menciona)",
        r"\bnao (e|foi|sao|foram|esta|estao) (mencionad|abordad|tratad|discutid|explicad)",
        r"\bnao ha (informac|mencao)",
    )
]


def says_not_answered(explanation: str) -> bool:
    """Whether the explanation opens by saying the excerpts do not answer the question (the
    model was asked to say so in one sentence): then the lectures do not cover it."""
    first = next(iter(SENTENCE.findall(explanation.strip())), "")
    text = fold(CITATION.sub(" ", first))
    return any(p.search(text) for p in _NOT_ANSWERED)
