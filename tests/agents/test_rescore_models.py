"""experiments/rescore_models.py: the committed models re-score, through ``dice-envs evaluate``, to
the figures their documentation gives.

The suite runs the default set (Pig, All Yellow Zombie Dice, the one-die-each Liar's Dice models); the
full Zombie Dice models and the Liar's Dice models for unequal dice and for two dice each take from a third
of a minute to an hour each and are re-scored by the script itself (``--zombie-dice``, ``--1v2``,
``--2v1``, ``--2v2``)."""

import pytest

from experiments import rescore_models

pytest.importorskip("sb3_contrib")


@pytest.mark.parametrize("entry", rescore_models.QUICK, ids=lambda entry: entry.model)
def test_a_committed_model_rescores_to_its_documented_figure(entry):
    value, _ = rescore_models.rescore(entry)
    assert value == pytest.approx(entry.figure, abs=entry.tolerance)


def test_every_committed_model_has_a_figure():
    committed = {path.name for path in rescore_models.MODELS_DIR.iterdir() if path.suffix in (".zip", ".pt")}
    alone = [entry.model for entry in rescore_models.MODELS if "," not in entry.model]
    assert committed == set(alone) and len(alone) == len(committed)  # each once
    rounds = {name for entry in rescore_models.MODELS if "," in entry.model for name in entry.model.split(",")}
    assert rounds <= committed  # a whole game's round models are committed models


def test_a_model_off_its_figure_fails_the_script(monkeypatch, capsys):
    entry = next(entry for entry in rescore_models.QUICK if entry.model == "liars_dice_play_mccfr_nowild.pt")
    assert rescore_models.main([entry.model]) == 0
    assert "ok" in capsys.readouterr().out
    moved = rescore_models.Figure(**{**entry.__dict__, "figure": entry.figure + 2 * entry.tolerance})
    monkeypatch.setattr(rescore_models, "MODELS", (moved,))
    assert rescore_models.main([entry.model]) == 1
    out, err = capsys.readouterr()
    assert "MISMATCH" in out and entry.model in err


def test_an_unknown_model_is_refused_by_name(capsys):
    with pytest.raises(SystemExit) as raised:
        rescore_models.main(["mine.pt"])
    assert raised.value.code == 2 and "no documented figure for mine.pt" in capsys.readouterr().err
