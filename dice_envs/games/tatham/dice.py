"""Simon Tatham's dice that never roll 7, in exact arithmetic.

From "A Pair Of Dice Which Never Roll 7" (Simon Tatham).  The ordinary 2d6
outcome grid is rearranged so that all six 7s share one face of one die; relabelling
gives two dice whose result is *the face with more dots*:

* the **even** die (R): faces 6, 8, 4, 10, 2, 12 (in the source document's construction order);
* the **odd** die (C): faces 7, 5, 9, 3, 11 and a blank (:data:`BLANK`, counted as 0);
* dots: six on the 7, five on 6 and 8, four on 5 and 9, three on 4 and 10, two on 3
  and 11, one on 2 and 12, none on the blank (:func:`dots`).  Faces with the same
  number of dots are on the same die, so there is never a draw.

Together they give exactly the 2d6 distribution of totals.  Removing the 7 face from
the odd die (a d5 with faces 3, 5, 9, 11, blank; in practice a d10 with the faces
painted in pairs) gives every total but 7 with the 2d6 relative probabilities.

**Cities and Knights** needs the red die too.  The even die carries red numbers
2, 4, 6, 8, 10, 12 -> 1, 2, 3, 4, 5, 6; the odd die modifies it: blank +0, 3 +1,
5 +2, 11 -1, 9 -2 (wrapping round 1..6), and the 7 face is left unannotated (+0).
With the faces sorted (blank as 0) the red numbers form the circulant grid
``(row + column) mod 6 + 1``, which is the symmetric labelling with the 7 face
marked +3 (:data:`SYMMETRIC_SHIFT`); both give the exact joint distribution of
(total, red die) of two ordinary dice, with and without the 7.

The alternatives the source document discusses are here too: a d6 (red) plus a d5, adding one
when the sum is 7 or more, and a d30 labelled with the 30 totals of the 5 x 6 grid.
Plain 2d6, and 2d6 re-rolled until it is not 7 (the house rule the dice replace),
are the baselines.

Each way of rolling is a :class:`Mechanism`: physical dice (a :class:`~dice_envs.core.dice.Die`
per die, one face per physical face, so that faces painted alike can still be loaded
one at a time) and a rule reading the faces shown.  :func:`distribution` enumerates
every roll exactly (:func:`dice_envs.core.dice.enumerate_rolls`); :func:`checks` proves the
seed's claims by enumeration; :func:`fault_sensitivity` measures, exactly, how far the
distribution of totals moves when one face of one die is loaded, worst case over the
face (the source document's "Evaluation").
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from dice_envs.core.dice import Die, d, enumerate_rolls

BLANK = 0
"""The odd die's blank face, counted as 0 (as the source document does when sorting the faces)."""

EVEN_FACES = (6, 8, 4, 10, 2, 12)
ODD_FACES = (7, 5, 9, 3, 11, BLANK)
NO_SEVEN_FACES = (5, 9, 3, 11, BLANK)

# Cities and Knights annotations.
EVEN_RED = {2: 1, 4: 2, 6: 3, 8: 4, 10: 5, 12: 6}
ODD_SHIFT = {BLANK: 0, 3: +1, 5: +2, 7: 0, 9: -2, 11: -1}  # the source document's dice: the 7 face unannotated
SYMMETRIC_SHIFT = {**ODD_SHIFT, 7: +3}  # the "beautifully symmetric" grid (+3 = -3 mod 6)

# The d30 of the source document's last paragraph, label by label.
D30_LABELS = (2, 3, 3, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 6, 8, 8, 8, 8, 8, 9, 9, 9, 9, 10, 10, 10, 11, 11, 12)

# The source document's list: which red numbers can go with which total.
SEED_RED_NUMBERS = {
    2: {1}, 3: {1, 2}, 4: {1, 2, 3}, 5: {1, 2, 3, 4}, 6: {1, 2, 3, 4, 5}, 7: {1, 2, 3, 4, 5, 6},
    8: {2, 3, 4, 5, 6}, 9: {3, 4, 5, 6}, 10: {4, 5, 6}, 11: {5, 6}, 12: {6},
}


def dots(face: int) -> int:
    """Dots on a Tatham face: 6 on the 7, one fewer per step away from 7, none on the blank."""
    if face == BLANK:
        return 0
    if not 2 <= face <= 12:
        raise ValueError(f"a Tatham face is 2..12 or BLANK, got {face!r}")
    return 6 - abs(7 - face)


def label(face) -> int:
    """The number painted on a physical face (faces of a die painted alike are ``(label, copy)``)."""
    return face[0] if isinstance(face, tuple) else face


def painted_die(labels: Sequence[int], name: str) -> Die:
    """A fair die with one physical face per entry of ``labels`` (repeats allowed).

    Repeated labels become distinct faces ``(label, copy)`` so that each physical
    face can be loaded on its own; a label that occurs once stays a plain face.
    """
    counts: Dict[int, int] = {}
    faces: List[Union[int, Tuple[int, int]]] = []
    for lab in labels:
        counts[lab] = counts.get(lab, 0) + 1
    seen: Dict[int, int] = {}
    for lab in labels:
        if counts[lab] == 1:
            faces.append(lab)
        else:
            faces.append((lab, seen.get(lab, 0)))
            seen[lab] = seen.get(lab, 0) + 1
    return Die(tuple(faces), name=name)


def red_number(even: int, odd: int, shift: Optional[Dict[int, int]] = None) -> int:
    """The Cities and Knights red number: the even die's, moved by the odd die's shift, wrapped to 1..6."""
    shift = ODD_SHIFT if shift is None else shift
    return (EVEN_RED[even] - 1 + shift[odd]) % 6 + 1


def tatham_total(even: int, odd: int) -> int:
    """The face with more dots (never a draw: equal dots are on the same die)."""
    return even if dots(even) > dots(odd) else odd


# -- the dice -----------------------------------------------------------------------------

EVEN = Die(EVEN_FACES, name="even")
ODD = Die(ODD_FACES, name="odd")
ODD_D5 = Die(NO_SEVEN_FACES, name="odd d5")
ODD_D10 = painted_die([f for f in NO_SEVEN_FACES for _ in range(2)], name="odd d10")
D30 = painted_die(D30_LABELS, name="d30")
RED_D6 = d(6, name="red d6")
WHITE_D6 = d(6, name="white d6")
D5 = d(5, name="d5")

Outcome = Tuple[int, Optional[int]]  # (total, red number or None)


@dataclass(frozen=True)
class Mechanism:
    """A way of rolling a Settlers total.

    Attributes:
        key: short identifier (``"tatham"``, ``"d30"``, ...).
        name: description.
        dice: the physical dice.
        read: faces shown (labels, in ``dice`` order) -> ``(total, red)`` (``red`` None
            if the mechanism has no red number), or None for "roll again".
        rolls_seven: whether 7 is a possible total (the target is then 2d6, else 2d6 without 7).
        has_red: whether it gives Cities and Knights red numbers.
    """

    key: str
    name: str
    dice: Tuple[Die, ...]
    read: Callable[[Tuple[int, ...]], Optional[Outcome]]
    rolls_seven: bool
    has_red: bool


def _two_d6(faces):
    return faces[0] + faces[1], faces[0]


def _two_d6_reroll_seven(faces):
    total = faces[0] + faces[1]
    return None if total == 7 else (total, faces[0])


def _tatham(faces):
    even, odd = faces
    return tatham_total(even, odd), red_number(even, odd)


def _tatham_symmetric(faces):
    even, odd = faces
    return tatham_total(even, odd), red_number(even, odd, SYMMETRIC_SHIFT)


def _d6_d5(faces):
    red, five = faces
    total = red + five
    return (total + 1 if total >= 7 else total), red


def _d30(faces):
    return faces[0], None


MECHANISMS: Dict[str, Mechanism] = {
    m.key: m
    for m in (
        Mechanism("2d6", "two ordinary d6 (red + white), summed", (RED_D6, WHITE_D6), _two_d6, True, True),
        Mechanism("2d6_reroll_7", "two ordinary d6, re-rolled until not 7 (the house rule)", (RED_D6, WHITE_D6),
                  _two_d6_reroll_seven, False, True),
        Mechanism("tatham", "Tatham's even + odd dice (more dots wins)", (EVEN, ODD), _tatham, True, True),
        Mechanism("tatham_no7_d5", "Tatham's even die + the odd d5 (no 7 face)", (EVEN, ODD_D5), _tatham, False, True),
        Mechanism("tatham_no7_d10", "Tatham's even die + the odd d10 (faces painted in pairs)", (EVEN, ODD_D10),
                  _tatham, False, True),
        Mechanism("d6_d5", "d6 (red) + d5, add one if 7 or more", (RED_D6, D5), _d6_d5, False, True),
        Mechanism("d30", "one d30 labelled with the 30 totals of the 5 x 6 grid", (D30,), _d30, False, False),
    )
}


# -- exact distributions ------------------------------------------------------------------


def distribution(mechanism: Mechanism, dice: Optional[Sequence[Die]] = None) -> Dict[Outcome, Fraction]:
    """Exact distribution of ``(total, red)`` (``red`` None without red numbers).

    ``dice`` replaces the mechanism's dice (e.g. with a loaded one); "roll again"
    outcomes are conditioned away.
    """
    dice = tuple(mechanism.dice if dice is None else dice)
    if len(dice) != len(mechanism.dice):
        raise ValueError(f"{mechanism.key} rolls {len(mechanism.dice)} dice, got {len(dice)}")
    out: Dict[Outcome, Fraction] = {}
    for faces, p in enumerate_rolls(dice):
        result = mechanism.read(tuple(label(f) for f in faces))
        if result is not None:
            out[result] = out.get(result, Fraction(0)) + p
    kept = sum(out.values())
    if kept == 0:
        raise ValueError(f"{mechanism.key}: every roll is rolled again")
    return {k: v / kept for k, v in sorted(out.items(), key=lambda kv: (kv[0][0], kv[0][1] or 0))}


def totals(mechanism: Mechanism, dice: Optional[Sequence[Die]] = None) -> Dict[int, Fraction]:
    """Exact distribution of the total alone."""
    out: Dict[int, Fraction] = {}
    for (total, _), p in distribution(mechanism, dice).items():
        out[total] = out.get(total, Fraction(0)) + p
    return dict(sorted(out.items()))


def target_totals(rolls_seven: bool = True) -> Dict[int, Fraction]:
    """2d6 totals, or (``rolls_seven=False``) 2d6 totals conditioned on not 7."""
    ways = {t: 6 - abs(7 - t) for t in range(2, 13) if rolls_seven or t != 7}
    n = sum(ways.values())
    return {t: Fraction(w, n) for t, w in ways.items()}


def target_joint(rolls_seven: bool = True) -> Dict[Outcome, Fraction]:
    """Joint (total, red die) of two ordinary dice, optionally conditioned on not 7."""
    cells = [(r + w, r) for r in range(1, 7) for w in range(1, 7) if rolls_seven or r + w != 7]
    return {cell: Fraction(1, len(cells)) for cell in sorted(cells)}


def red_grid(shift: Optional[Dict[int, int]] = None) -> List[List[int]]:
    """Red numbers with both dice's faces sorted (blank as 0): rows even 2..12, columns odd blank..11."""
    return [[red_number(e, o, shift) for o in sorted(ODD_FACES)] for e in sorted(EVEN_FACES)]


# -- the source document's claims, proved by enumeration ---------------------------------------------


def _check(name: str, passed: bool, detail: str) -> dict:
    return {"check": name, "passed": bool(passed), "detail": detail}


def checks() -> List[dict]:
    """Every claim of the source document, checked exactly.  Each item: ``check``, ``passed``, ``detail``."""
    m = MECHANISMS
    out = []
    tie = [(e, o) for e in EVEN_FACES for o in ODD_FACES if dots(e) == dots(o)]
    same_die = all(len({f in EVEN_FACES for f in (a, b)}) == 1
                   for a in EVEN_FACES + ODD_FACES for b in EVEN_FACES + ODD_FACES if dots(a) == dots(b))
    out.append(_check("dots rule never draws", not tie and same_die,
                      "faces with equal dots are on the same die, so no even/odd pair ties"))
    out.append(_check("even + odd dice give exactly the 2d6 totals", totals(m["tatham"]) == target_totals(True),
                      "36 equally likely face pairs enumerated"))
    for key in ("tatham_no7_d5", "tatham_no7_d10", "d6_d5", "d30", "2d6_reroll_7"):
        got = totals(m[key])
        out.append(_check(f"{key}: every total but 7, with the 2d6 relative probabilities",
                          got == target_totals(False) and 7 not in got,
                          f"{m[key].name}; P(t) = (2d6 ways)/30"))
    for key in ("tatham", "tatham_no7_d5", "tatham_no7_d10", "d6_d5", "2d6_reroll_7"):
        mech = m[key]
        out.append(_check(f"{key}: exact joint distribution of (total, red die)",
                          distribution(mech) == target_joint(mech.rolls_seven),
                          "red = even die's red number moved by the odd die's shift" if key.startswith("tatham")
                          else "red = the d6"))
    symmetric = Mechanism("tatham_symmetric", "", (EVEN, ODD), _tatham_symmetric, True, True)
    symmetric_no7 = Mechanism("tatham_symmetric_no7", "", (EVEN, ODD_D5), _tatham_symmetric, False, True)
    circulant = red_grid(SYMMETRIC_SHIFT) == [[(r + c) % 6 + 1 for c in range(6)] for r in range(6)]
    out.append(_check("symmetric labelling (7 face +3): red grid of the sorted faces is (row + column) mod 6 + 1, "
                      "and exact with and without the 7",
                      circulant and distribution(symmetric) == target_joint(True)
                      and distribution(symmetric_no7) == target_joint(False),
                      f"red grid {red_grid(SYMMETRIC_SHIFT)}"))
    support: Dict[int, set] = {}
    for (t, r) in distribution(m["tatham"]):
        support.setdefault(t, set()).add(r)
    out.append(_check("red numbers possible with each total are the source's list", support == SEED_RED_NUMBERS,
                      "total 2: red 1; total 3: red 1 or 2; ...; total 12: red 6"))
    labels = sorted(label(f) for f in D30.faces)
    out.append(_check("d30 labels: the 30 totals of the 5 x 6 grid", labels == sorted(
        t for t, w in ((t, 6 - abs(7 - t)) for t in range(2, 13) if t != 7) for _ in range(w)),
        "2, 3, 3, 4, 4, 4, 5 x 4, 6 x 5, 8 x 5, 9 x 4, 10 x 3, 11, 11, 12"))
    # The source document's Evaluation: the even die's error passes straight through.
    loaded_even = Die(EVEN_FACES, tuple(Fraction(5, 4) if f == 8 else 1 for f in EVEN_FACES), name="even*")
    ratios = []
    for key in ("tatham", "tatham_no7_d5", "tatham_no7_d10"):
        dist = totals(m[key], (loaded_even, m[key].dice[1]))
        ratios.append(dist[8] / dist[6])
    out.append(_check("an even die rolling 8 25% more often than 6 makes the total 8 exactly 25% more likely than 6",
                      all(r == Fraction(5, 4) for r in ratios), f"P(8)/P(6) = {[str(r) for r in ratios]}"))
    return out


def two_d6_one_face_loaded(face: int = 3, factor=Fraction(5, 4)) -> Dict[int, Fraction]:
    """Change of each 2d6 total's probability when one die's ``face`` is loaded by ``factor``
    (the source document's example of how the sum spreads an error)."""
    m = MECHANISMS["2d6"]
    loaded = totals(m, (RED_D6.loaded(face, factor), WHITE_D6))
    fair = totals(m)
    return {t: loaded[t] - fair[t] for t in fair}


# -- fault sensitivity --------------------------------------------------------------------


def face_name(die: Die, face) -> str:
    """``"even:8"``, ``"odd:blank"``, ``"d30:8#2"`` (the second face painted 8)."""
    if isinstance(face, tuple):
        return f"{die.name}:{face[0]}#{face[1] + 1}"
    return f"{die.name}:{'blank' if (die.name.startswith('odd') and face == BLANK) else face}"


@dataclass(frozen=True)
class Sensitivity:
    """How far a mechanism's totals move when one face of one die is loaded (worst case).

    ``total_variation`` and ``relative_error`` are exact; each comes with the face
    that attains it (``relative_error`` also with the total it hits).
    ``relative_error_by_total[t]`` is the worst relative error of total ``t`` alone.
    """

    mechanism: str
    factor: Fraction
    total_variation: Fraction
    tv_face: str
    relative_error: Fraction
    relative_face: str
    relative_total: int
    relative_error_by_total: Dict[int, Fraction]

    def as_dict(self) -> dict:
        return {
            "mechanism": self.mechanism,
            "load_factor": str(self.factor),
            "total_variation": float(self.total_variation),
            "total_variation_exact": str(self.total_variation),
            "total_variation_face": self.tv_face,
            "max_relative_error": float(self.relative_error),
            "max_relative_error_exact": str(self.relative_error),
            "max_relative_error_face": self.relative_face,
            "max_relative_error_total": self.relative_total,
            "max_relative_error_by_total": {str(t): float(e) for t, e in self.relative_error_by_total.items()},
        }


def _as_factor(factor) -> Fraction:
    try:
        value = Fraction(factor.strip()) if isinstance(factor, str) else Fraction(factor)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"load factor must be a positive number, got {factor!r}") from None
    if value <= 0:
        raise ValueError(f"load factor must be positive (1 = fair, 5/4 = 25% heavier), got {factor!r}")
    return value


def _as_load(load) -> Fraction:
    """``load`` (e.g. ``1/4`` or ``"0.25"``: one face 25% heavier) as a Fraction above -1."""
    try:
        value = Fraction(load.strip()) if isinstance(load, str) else Fraction(load)
    except (TypeError, ValueError, ZeroDivisionError):
        raise ValueError(f"load must be a number above -1 (0.25 = one face 25% heavier), got {load!r}") from None
    if value <= -1:
        raise ValueError(f"load must be above -1 (0.25 = one face 25% heavier), got {load!r}")
    return value


def fault_sensitivity(mechanism: Mechanism, factor=Fraction(5, 4)) -> Sensitivity:
    """Worst case, over every physical face of every die, of loading that face by ``factor``.

    For each loading, the distribution of totals is compared with the fair one: total
    variation ``1/2 sum |p' - p|`` and the largest relative error ``max |p'/p - 1|``
    over the totals.  Both maxima are exact Fractions.

    Raises:
        ValueError: for a factor that is not a positive number.
    """
    factor = _as_factor(factor)
    fair = totals(mechanism)
    best_tv, best_rel = (Fraction(-1), "", 0), (Fraction(-1), "", 0)
    by_total = {t: Fraction(0) for t in fair}
    for index, die in enumerate(mechanism.dice):
        for face in die.faces:
            dice = list(mechanism.dice)
            dice[index] = die.loaded(face, factor)
            loaded = totals(mechanism, dice)
            tv = sum((abs(loaded.get(t, Fraction(0)) - p) for t, p in fair.items()), Fraction(0)) / 2
            errors = {t: abs(loaded.get(t, Fraction(0)) / p - 1) for t, p in fair.items()}
            for t, e in errors.items():
                by_total[t] = max(by_total[t], e)
            rel, at = max((e, t) for t, e in errors.items())
            name = face_name(die, face)
            if tv > best_tv[0]:
                best_tv = (tv, name, 0)
            if rel > best_rel[0]:
                best_rel = (rel, name, at)
    return Sensitivity(
        mechanism.key, factor, best_tv[0], best_tv[1], best_rel[0], best_rel[1], best_rel[2], by_total
    )


def sensitivity_table(factor=Fraction(5, 4)) -> List[dict]:
    """:func:`fault_sensitivity` of every mechanism in :data:`MECHANISMS`, as dicts."""
    rows = []
    for mech in MECHANISMS.values():
        row = fault_sensitivity(mech, factor).as_dict()
        row.update(name=mech.name, rolls_seven=mech.rolls_seven, red_numbers=mech.has_red)
        rows.append(row)
    return rows


def report(load=Fraction(1, 4)) -> dict:
    """Everything ``dice-envs dice tatham`` prints: the checks and the sensitivity table.

    ``load`` is the extra weight given to one face (``1/4``: 25% more likely before
    renormalising, i.e. a load factor of 5/4).
    """
    load = _as_load(load)
    all_checks = checks()
    return {
        "game": "tatham_dice",
        "load": str(load),
        "load_factor": str(1 + load),
        "all_checks_passed": all(c["passed"] for c in all_checks),
        "checks": all_checks,
        "two_d6_one_die_face_3_loaded": {str(t): str(v) for t, v in two_d6_one_face_loaded(3, 1 + load).items()},
        "sensitivity": sensitivity_table(1 + load),
    }
