"""`dice-envs evaluate GAME AGENT`: agents over observations scored exactly, one JSON shape for
every game, and saved SB3 models loaded without running code from them.

Pinned: an agent written as a function of observations scores exactly what the same
policy scores when the solver is handed it directly."""

import base64
import io
import json
import pickle
import zipfile

import numpy as np
import pytest

from dice_envs.agents.cli import main as cli_main
from dice_envs.agents.evaluate.contract import check_probabilities
from dice_envs.agents.evaluate.observation_agents import FunctionAgent, load_agent
from dice_envs.agents.scoring import score

pytest.importorskip("sb3_contrib")

AYZD_MODEL = "experiments/models/ayzd_batched_selfplay_seed1.zip"
PIG_MODEL = "experiments/models/pig_batched_selfplay_seed1.zip"
SHAPE = {"game", "agent", "agent_type", "config", "opponent", "payoff", "value", "seats", "optimal_value", "gap",
         "exploitability", "value_against_equilibrium", "references", "reached", "details", "seconds"}


# -- agents written as functions of observations ---------------------------------------------------


def pig_hold_at_20(observations, masks):
    """Pig-v0's full observation: own score, opponent's score, turn total, to move."""
    return (observations[:, 2] < 20).astype(np.int64)  # 1 = roll


def official_roll_until_2_shotguns(observations, masks):
    """Zombie Dice's AEC observation: index 9 is the turn's shotguns."""
    return (observations[:, 9] < 2).astype(np.int64)


def test_a_committed_model_is_scored_in_the_common_shape():
    """A saved SB3 model is scored as an ``sb3`` agent, in the shape every game shares; each committed
    model's figure is pinned by tests/agents/test_rescore_models.py (experiments/rescore_models.py),
    through the same scorer (the Pig model trained on observation="scaled", read off its model.json,
    among them)."""
    ayzd = score("ayzd", AYZD_MODEL)
    assert ayzd["gap"] == pytest.approx(ayzd["details"]["difference"] / 2, abs=1e-15)
    assert ayzd["agent_type"] == "sb3" and all(ayzd["reached"].values()) and set(ayzd) == SHAPE
    # The references are the human-playable policies' published gaps (computed, not copied).
    assert ayzd["details"]["reference_differences"]["minh"] == pytest.approx(-0.0134, abs=5e-5)


def test_a_function_over_observations_scores_as_the_policy_itself():
    as_function = score("pig", FunctionAgent(pig_hold_at_20), goal=30)
    builtin = score("pig", "hold_at_20", goal=30)
    assert as_function["gap"] == pytest.approx(builtin["gap"], abs=1e-13)
    assert as_function["seats"] == pytest.approx(builtin["seats"], abs=1e-13)
    # module:function, as the command line takes it
    by_name = score("pig", "test_agent_evaluation:pig_hold_at_20", goal=30)
    assert by_name["gap"] == pytest.approx(builtin["gap"], abs=1e-13) and by_name["agent_type"] == "function"


def test_liars_dice_agents_over_observations():
    from dice_envs.agents.liars_dice.learned import equilibrium
    from dice_envs.games.liars_dice.rules import LiarsDiceGame

    eq = equilibrium(LiarsDiceGame(faces=3, wild=True), 1e-4).policy

    def equilibrium_agent(observations, masks):
        return np.array([eq.probabilities_from_observation(o) for o in observations])

    def uniform(observations, masks):
        return masks / masks.sum(axis=1, keepdims=True)

    against = {"against": "equilibrium"}
    mine = score("liars-dice", FunctionAgent(equilibrium_agent), faces=3, wild=True, **against)
    theirs = score("liars-dice", "equilibrium", faces=3, wild=True, **against)
    assert mine["exploitability"] == pytest.approx(theirs["exploitability"], abs=1e-12)
    assert mine["exploitability"] < 1e-4
    assert mine["gap"] == pytest.approx(0.0, abs=1e-12) and mine["opponent"] == "equilibrium"
    assert mine["value_against_equilibrium"] == mine["value"]
    rand = score("liars-dice", FunctionAgent(uniform), faces=3, wild=True, **against)
    assert rand["gap"] == pytest.approx(rand["references"]["random"], abs=1e-12) and rand["reached"]["random"]
    assert rand["exploitability"] == pytest.approx(theirs["details"]["reference_exploitability"]["random"], abs=1e-12)
    assert set(mine) == SHAPE and mine["config"]["faces"] == 3 and mine["config"]["against"] == "equilibrium"
    # by default against a best response: the value is minus the exploitability
    default = score("liars-dice", FunctionAgent(uniform), faces=3, wild=True)
    assert default["opponent"] == "best_response" and default["value_against_equilibrium"] is None
    assert default["exploitability"] == pytest.approx(rand["exploitability"], abs=1e-12)
    assert default["value"] == pytest.approx(-default["exploitability"], abs=1e-12) and set(default) == SHAPE


def test_liars_dice_scores_measure_the_same_whatever_is_cached(monkeypatch, tmp_path):
    """Scored before and after its equilibrium is solved and cached, an agent gets the same report (it
    once switched from a best response to the equilibrium, so that ``gap`` changed its meaning)."""
    from dice_envs.agents.liars_dice import evaluation as liars_dice_evaluation

    def uniform(observations, masks):
        return masks / masks.sum(axis=1, keepdims=True)

    # (a game whose equilibrium the package does not ship: a shipped one is read, never cached)
    agent, game = FunctionAgent(uniform), {"faces": 3, "dice_per_player": (1, 2), "wild": "highest"}
    before = score("liars-dice", agent, cache_dir=str(tmp_path), **game)
    asked = score("liars-dice", agent, cache_dir=str(tmp_path), against="equilibrium", **game)
    assert list(tmp_path.iterdir())  # the equilibrium is now cached
    after = score("liars-dice", agent, cache_dir=str(tmp_path), **game)
    for key in ("opponent", "value", "gap", "exploitability", "seats", "references"):
        assert before[key] == after[key], key
    assert before["opponent"] == "best_response" and asked["opponent"] == "equilibrium"
    assert asked["exploitability"] == pytest.approx(before["exploitability"], abs=1e-12)
    monkeypatch.setattr(liars_dice_evaluation, "equilibrium_if_cheap", lambda *a, **k: None)
    with pytest.raises(ValueError, match="--against best-response"):
        score("liars-dice", agent, against="equilibrium", **game)
    with pytest.raises(ValueError, match="against must be one of"):
        score("liars-dice", agent, against="nash", **game)


def test_official_zombie_dice_agent_over_observations():
    small = {"goal": 3, "score_cap": 12}  # quick exact evaluations (as tests/zombie_dice/test_zombie_dice_solver.py)
    as_function = score("zombie-dice", FunctionAgent(official_roll_until_2_shotguns), **small)
    builtin = score("zombie-dice", "roll_until_2_shotguns", **small)
    assert as_function["seats"] == pytest.approx(builtin["seats"], abs=1e-12)
    assert builtin["gap"] < 0 and set(builtin["references"]) == {"fixed_hold_at", "minh", "llano", "neller"}
    assert as_function["config"] == {**small, "stop_when_won": True} and set(builtin) == SHAPE
    # The rules as written: a player 2 who could win by holding may roll on (and bust).
    written = score("zombie-dice", FunctionAgent(official_roll_until_2_shotguns), stop_when_won=False, **small)
    assert written["config"] == {**small, "stop_when_won": False}
    assert written["gap"] < as_function["gap"]  # rolling until 2 shotguns rolls on past a win


@pytest.mark.parametrize("answer, message", [
    (lambda o, m: np.zeros(len(o)), "actions must be integers"),
    (lambda o, m: np.full(len(o), 7), "outside 0..1"),
    (lambda o, m: np.full((len(o), 3), 1 / 3), "shape"),
    (lambda o, m: np.full(m.shape, 0.6), "do not sum to 1"),
    (lambda o, m: np.full(m.shape, np.nan), "non-finite"),
    (lambda o: o, "must take (observations, masks)"),
])
def test_bad_agents_are_refused_by_name(answer, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        score("pig", FunctionAgent(answer, "mine"), goal=10)


def test_illegal_mass_and_bad_settings():
    masks = np.array([[True, False]])
    with pytest.raises(ValueError, match="illegal action"):
        check_probabilities(np.array([[0.5, 0.5]]), masks, "agent mine")
    with pytest.raises(ValueError, match="no setting"):
        score("pig", "optimal", faces=3)
    with pytest.raises(ValueError, match="game must be one of"):
        score("chess", "optimal")
    with pytest.raises(ValueError, match="length 12"):  # an AYZD network is not a Pig agent
        score("pig", AYZD_MODEL)


# -- saved SB3 models: nothing in them runs ---------------------------------------------------------


def rewrite_data(source, target, change):
    """Copy the zip ``source`` to ``target`` with its ``data`` entry changed by ``change(dict)``."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for item in zin.infolist():
            raw = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(raw)
                change(data)
                raw = json.dumps(data).encode()
            zout.writestr(item, raw)


class Payload:
    marker = None

    def __reduce__(self):
        return (open, (self.marker, "w"))


def test_a_crafted_sb3_model_runs_no_code(tmp_path):
    marker = tmp_path / "ran"
    Payload.marker = str(marker)
    payload = base64.b64encode(pickle.dumps(Payload())).decode()

    def plant(data):
        for key in ("policy_class", "policy_kwargs", "observation_space", "lr_schedule"):
            data[key][":serialized:"] = payload

    crafted = tmp_path / "model.zip"
    rewrite_data(PIG_MODEL, crafted, plant)
    agent = load_agent(str(crafted))  # loads (the readable half is intact), and runs nothing
    assert not marker.exists() and agent.observation_size == 4
    # The test can fail: Stable-Baselines3's own loader does run it.
    from sb3_contrib import MaskablePPO

    with pytest.raises(Exception):  # noqa: B017 - whatever the payload's return value breaks
        MaskablePPO.load(crafted)
    assert marker.exists()


@pytest.mark.parametrize("change, message", [
    (lambda d: d["policy_kwargs"].update(activation_fn="<class 'evil.Activation'>"), "activation"),
    (lambda d: d["policy_kwargs"].update(features_extractor_class="x"), "features_extractor_class"),
    (lambda d: d["policy_kwargs"].update(net_arch="{'pi': [8], 'vf': [8]}"), "do not fit"),
    (lambda d: d["policy_class"].update(__module__="evil"), "policy class"),
    (lambda d: d["observation_space"].update({":type:": "<class 'gymnasium.spaces.dict.Dict'>"}), "Box"),
])
def test_sb3_models_that_do_not_fit_are_refused(tmp_path, change, message):
    target = tmp_path / "model.zip"
    rewrite_data(PIG_MODEL, target, change)
    with pytest.raises(ValueError, match=message):
        load_agent(str(target))


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
def test_damaged_model_files(tmp_path):
    (tmp_path / "a.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a zip"):
        load_agent(str(tmp_path / "a.zip"))
    with zipfile.ZipFile(tmp_path / "b.zip", "w") as z:
        z.writestr("data", "{}")
    with pytest.raises(ValueError, match="no 'policy.pth'|no policy class"):
        load_agent(str(tmp_path / "b.zip"))
    buf = io.BytesIO(b"\x80\x04garbage")
    with zipfile.ZipFile(PIG_MODEL) as zin, zipfile.ZipFile(tmp_path / "c.zip", "w") as zout:
        for item in zin.infolist():
            zout.writestr(item, buf.getvalue() if item.filename == "policy.pth" else zin.read(item.filename))
    with pytest.raises(ValueError, match="weights"):
        load_agent(str(tmp_path / "c.zip"))
    with pytest.raises(ValueError, match="not an RLlib checkpoint"):  # a directory: it would be RLlib's
        load_agent(str(tmp_path))


# -- the command line -----------------------------------------------------------------------------


@pytest.mark.parametrize("argv", [
    ["pig", "test_agent_evaluation:pig_hold_at_20", "--goal", "30"],
    ["ayzd", "neller", "--goal", "4"],
    ["liars-dice", "random", "--faces", "3", "--wild"],
    ["shakes", "thompson", "--players", "2"],
    ["closest-number", "random", "--numbers", "4", "--round3", "one_card"],
])
def test_every_game_prints_one_shape(argv, capsys):
    assert cli_main(["evaluate", *argv, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report) == SHAPE | {"schema"} and report["agent"] == argv[1]
    assert report["gap"] == pytest.approx(report["value"] - report["optimal_value"], abs=1e-15)
    assert report["gap"] < 0 and set(report["reached"]) == set(report["references"])


THREADS_SEEN = []


def uniform_counting_threads(observations, masks):
    """Uniform over the legal actions; notes torch's thread count at each call."""
    import torch

    THREADS_SEEN.append(torch.get_num_threads())
    return masks / masks.sum(axis=1, keepdims=True)


def test_threads_govern_the_scoring_and_are_put_back(capsys):
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    THREADS_SEEN.clear()
    argv = ["evaluate", "liars-dice", "test_agent_evaluation:uniform_counting_threads", "--faces", "3", "--json"]
    torch.set_num_threads(3)  # not 1 on any machine, so the option's 1 is seen
    try:
        assert cli_main([*argv, "--threads", "1"]) == 0
        assert THREADS_SEEN and set(THREADS_SEEN) == {1} and torch.get_num_threads() == 3
    finally:
        torch.set_num_threads(before)
    with_one = json.loads(capsys.readouterr().out)
    assert cli_main(argv) == 0  # the same figure without the option
    assert json.loads(capsys.readouterr().out)["exploitability"] == with_one["exploitability"]
    with pytest.raises(SystemExit):
        cli_main([*argv, "--threads", "0"])
    assert "--threads must be at least 1, got 0" in capsys.readouterr().err


def test_cli_text_report(capsys):
    assert cli_main(["evaluate", "liars-dice", "random", "--faces", "2"]) == 0
    out = capsys.readouterr().out
    assert "exploitability (NashConv/2)" in out and "random" in out


def test_the_docs_train_save_and_evaluate_recipe_runs(tmp_path):
    """``docs/evaluate.md``'s recipe as a user runs it (one rollout instead of 1,000,000 steps): the
    snippet trains and saves a model, and ``dice-envs evaluate ayzd`` scores the saved file."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "evaluate.md").read_text()
    section = page.split("## From `model.save` to a score", 1)[1].split("\n## ", 1)[0]
    code = re.findall(r"^```python\n(.*?)^```", section, flags=re.S | re.M)[0]
    commands = re.findall(r"^```bash\n(.*?)^```", section, flags=re.S | re.M)[0]
    assert "model.learn(1_000_000)" in code and 'model.save("ayzd_ppo.zip")' in code
    trained = subprocess.run([sys.executable, "-c", code.replace("model.learn(1_000_000)", "model.learn(1_000)")],
                             cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert trained.returncode == 0, trained.stderr[-3000:]
    command = next(line.split("#")[0].split() for line in commands.splitlines() if "--json" in line)
    assert command[:4] == ["dice-envs", "evaluate", "ayzd", "ayzd_ppo.zip"]
    scored = subprocess.run([sys.executable, "-m", "dice_envs", *command[1:]], cwd=tmp_path, capture_output=True,
                            text=True, timeout=600)
    assert scored.returncode == 0, scored.stderr[-3000:]
    report = json.loads(scored.stdout)
    assert report["agent_type"] == "sb3" and report["game"] == "ayzd" and -1 < report["gap"] <= 0
