"""Untrusted agents (issue 23, item 1): each attack of the hostile-user report is this file's
input, and must be refused with a clear message, running nothing and allocating nothing.

* an RLlib-shaped folder whose pickles carry a payload: refused, payload not run (and the
  test shows RLlib's own unpickling would run it, so the test can fail);
* an agent that edits the masks in place: refused;
* NaN or inf weights (``.pt``, SB3 ``.zip``, RLlib state): refused, naming the parameter;
* a declared size over the memory limit (``.pt`` ``hidden``, SB3 ``net_arch``): refused
  before anything is built;
* a model recorded for another game: refused, naming both (the RLlib checkpoint's own case
  is in ``test_rllib.py``, which trains one);
* a path given as ``module:function``: a one-line error;
* an agent that raises (``SystemExit`` included), in every scorer: one line naming the agent, exit
  status 1; complex probabilities: refused in every scorer.
"""

from __future__ import annotations

import json
import pickle
import zipfile

import numpy as np
import pytest

from dice_envs.agents.cli import main as cli_main
from dice_envs.agents.evaluate.contract import AgentError, ContractError, ask_agent
from dice_envs.agents.evaluate.observation_agents import FunctionAgent, load_agent
from dice_envs.agents.evaluate.rllib_models import read_state
from dice_envs.agents.scoring import score
from dice_envs.core.resources import ResourceLimitError

torch = pytest.importorskip("torch")

PIG_MODEL = "experiments/models/pig_batched_selfplay_seed1.zip"
LIARS_MODEL = "experiments/models/liars_dice_play_mmd_average_wild.pt"


class Payload:
    """Unpickling this creates the file ``marker``."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def plant_rllib_checkpoint(folder, marker):
    """A folder shaped like ``algo.save_to_path``'s, every pickle in it a payload."""
    module = folder / "learner_group" / "learner" / "rl_module" / "shared"
    module.mkdir(parents=True)
    for path in (module / "module_state.pkl", module / "class_and_ctor_args.pkl", folder / "algorithm_state.pkl"):
        path.write_bytes(pickle.dumps({"weights": Payload(marker)}))
    (module / "metadata.json").write_text(json.dumps({"state_file": "module_state"}))
    return module


def test_an_rllib_shaped_folder_runs_no_code(tmp_path, capsys):
    marker = tmp_path / "ran"
    module = plant_rllib_checkpoint(tmp_path / "ckpt", marker)
    with pytest.raises(SystemExit) as exit_:
        cli_main(["evaluate", "liars-dice", str(tmp_path / "ckpt")])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "not part of a weights file" in err and ".open" in err
    assert "Traceback" not in err
    assert not marker.exists()
    # The test can fail: unpickling the file, as RLlib's loader does, runs the payload.
    with open(module / "module_state.pkl", "rb") as f:
        pickle.load(f)
    assert marker.exists()


def test_rllib_weights_must_be_finite_arrays(tmp_path):
    path = tmp_path / "module_state.pkl"
    path.write_bytes(pickle.dumps({"encoder.encoder.net.mlp.0.weight": np.array([[1.0, np.nan]], np.float32)}))
    with pytest.raises(ValueError, match="'encoder.encoder.net.mlp.0.weight' holds non-finite"):
        read_state(str(path))
    path.write_bytes(pickle.dumps({"w": "text"}))
    with pytest.raises(ValueError, match="'w' is not a numeric array"):
        read_state(str(path))
    path.write_bytes(b"\x80\x04garbage")
    with pytest.raises(ValueError, match="not a readable module state"):
        read_state(str(path))


def test_an_agent_cannot_rewrite_the_masks():
    def widen_masks(observations, masks):
        masks[:] = True  # every action "legal": then uniform over all would pass the check
        return masks / masks.sum(axis=1, keepdims=True)

    with pytest.raises(ValueError, match="read-only"):
        score("liars-dice", FunctionAgent(widen_masks, "widen"), faces=3, wild=True)
    with pytest.raises(ValueError, match="read-only"):
        score("pig", FunctionAgent(widen_masks, "widen"), goal=10)


def save_liars_dice_model(path, hidden="8", poison=None):
    from dice_envs.agents.liars_dice.learned import build_network

    config = {"faces": 3, "wild": True}
    net = build_network(config, "8")
    state = net.state_dict()
    if poison:
        state[poison][0] = float("nan")
    torch.save({"game": config, "hidden": hidden, "net": state}, path)


def test_non_finite_weights_are_refused_naming_the_parameter(tmp_path):
    save_liars_dice_model(tmp_path / "nan.pt", poison="mlp.0.bias")
    with pytest.raises(ValueError, match="parameter 'mlp.0.bias' holds non-finite"):
        load_agent(str(tmp_path / "nan.pt"))
    save_liars_dice_model(tmp_path / "ok.pt")
    assert 0 < score("liars-dice", str(tmp_path / "ok.pt"))["exploitability"] < 1
    target = tmp_path / "nan.zip"
    with zipfile.ZipFile(PIG_MODEL) as zin, zipfile.ZipFile(target, "w") as zout:
        for item in zin.infolist():
            raw = zin.read(item.filename)
            if item.filename == "policy.pth":
                import io

                state = torch.load(io.BytesIO(raw), weights_only=True)
                name = next(iter(state))
                state[name].view(-1)[0] = float("inf")
                buf = io.BytesIO()
                torch.save(state, buf)
                raw = buf.getvalue()
            zout.writestr(item, raw)
    with pytest.raises(ValueError, match=f"parameter '{name}' is not a tensor of finite numbers"):
        load_agent(str(target))


def test_declared_sizes_over_the_limit_are_refused_before_building(tmp_path, monkeypatch):
    monkeypatch.setenv("DICE_ENVS_MAX_MEMORY", "200M")
    save_liars_dice_model(tmp_path / "huge.pt", hidden="100000,100000")  # 10^10 parameters: 160 GB
    with pytest.raises(ResourceLimitError, match="10,00.* parameters.*over the limit of 200.0 MiB"):
        load_agent(str(tmp_path / "huge.pt"))
    target = tmp_path / "huge.zip"
    pig_model_with_data(target, lambda data: data["policy_kwargs"].update(net_arch="[100000, 100000]"))
    with pytest.raises(ResourceLimitError, match="pi network.*over the limit"):
        load_agent(str(target))


def pig_model_with_data(target, edit) -> None:
    """The committed Pig model copied to ``target`` with ``edit(data)`` applied to its JSON ``data`` entry."""
    with zipfile.ZipFile(PIG_MODEL) as zin, zipfile.ZipFile(target, "w") as zout:
        for item in zin.infolist():
            raw = zin.read(item.filename)
            if item.filename == "data":
                data = json.loads(raw)
                edit(data)
                raw = json.dumps(data).encode()
            zout.writestr(item, raw)


def deflated_copy(source, target, padded: str, pad: int) -> None:
    """``source`` (a zip) rewritten deflated, the entry ending in ``padded`` followed by ``pad`` zero bytes."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            raw = zin.read(item.filename)
            zout.writestr(item.filename, raw + bytes(pad) if item.filename.endswith(padded) else raw)


def test_a_zip_bomb_is_refused_from_its_declared_sizes(tmp_path):
    """Issue 58 item 8: a deflate-compressed ``.pt`` inflated without a size check (a 1.5 MB file took
    1.4 GB).  Its declared sizes are read first; here a 24 KB file declares 24 MB."""
    from dice_envs.core.resources import MAX_INFLATION

    save_liars_dice_model(tmp_path / "ok.pt")
    deflated_copy(tmp_path / "ok.pt", tmp_path / "bomb.pt", "/data/0", 24 << 20)
    assert (tmp_path / "bomb.pt").stat().st_size * MAX_INFLATION < 24 << 20
    with pytest.raises(ValueError, match=r"bomb.pt' declares 25,1\d\d,\d{3} bytes once inflated, \d+ times its own "
                                         r"[\d,]+ bytes; a model or checkpoint file may inflate at most 100 times"):
        load_agent(str(tmp_path / "bomb.pt"))
    # the torch file inside a Stable-Baselines3 zip is checked too
    with zipfile.ZipFile(PIG_MODEL) as zin:
        weights = zin.read("policy.pth")
    deflated_copy(__import__("io").BytesIO(weights), tmp_path / "policy.pth", "/data/0", 24 << 20)
    with zipfile.ZipFile(PIG_MODEL) as zin, zipfile.ZipFile(tmp_path / "nested.zip", "w") as zout:
        for item in zin.infolist():
            raw = (tmp_path / "policy.pth").read_bytes() if item.filename == "policy.pth" else zin.read(item.filename)
            zout.writestr(item, raw)
    with pytest.raises(ValueError, match=r"'policy.pth' in model file .*nested.zip' declares .* at most 100 times"):
        load_agent(str(tmp_path / "nested.zip"))
    # a file within the ratio but over the memory limit
    save_liars_dice_model(tmp_path / "ok.pt")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DICE_ENVS_MAX_MEMORY", "2K")
        with pytest.raises(ResourceLimitError, match=r"inflating model file .*ok.pt' \([\d,]+ bytes declared\) needs "
                                                     r"about .* over the limit of 2.0 KiB"):
            load_agent(str(tmp_path / "ok.pt"))


@pytest.mark.parametrize("shape", ["(1000000000,)", "(100000, 100000)"])
def test_a_huge_observation_shape_is_refused_before_the_spaces_are_built(tmp_path, shape):
    """Issue 58 item 9: an SB3 zip recording an observation shape of 10**9 gave a MemoryError traceback
    (its bounds were allocated before anything was checked)."""
    target = tmp_path / "wide.zip"
    pig_model_with_data(target, lambda data: data["observation_space"].update(_shape=shape))
    with pytest.raises(ValueError, match=r"observation shape .* holds 1\d*(,000)+ numbers, over the 1,048,576 a "
                                         r"model's observation can have \(MAX_OBSERVATION_SIZE\)"):
        load_agent(str(target))


def test_a_model_of_another_game_is_refused_naming_both():
    with pytest.raises(ValueError, match="trained on 'pig', not on 'ayzd'"):
        score("ayzd", PIG_MODEL)
    with pytest.raises(ValueError, match="--wild False does not match the game .* was trained on"):
        score("liars-dice", LIARS_MODEL, wild=False)


@pytest.mark.parametrize("spec", ["../../etc/passwd:x", "/etc/passwd:x", "os:system:x", "a b:c", "json:"])
def test_a_malformed_module_function_is_a_one_line_error(spec, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli_main(["evaluate", "pig", spec])
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and len(err.splitlines()) == 1 and "module:function" in err and "Traceback" not in err


def test_module_function_is_found_from_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "my_pig_agent.py").write_text(
        "import numpy as np\n\ndef hold_at_20(observations, masks):\n"
        "    return (observations[:, 2] < 20).astype(np.int64)\n")
    monkeypatch.chdir(tmp_path)
    from dice_envs.agents.evaluate.observation_agents import import_function

    assert import_function("my_pig_agent:hold_at_20").__name__ == "hold_at_20"
    with pytest.raises(ValueError, match="cannot import agent 'my_pig_agent:missing'"):
        import_function("my_pig_agent:missing")


# -- one contract for every agent in every scorer -----------------------------------------------------

def raise_system_exit(observations, masks):
    raise SystemExit(0)


def raise_runtime_error(observations, masks):
    raise RuntimeError("the agent's own\nfailure")


def complex_uniform(observations, masks):
    return masks / masks.sum(axis=1, keepdims=True) + 0j  # real values, complex type


def complex_skewed(observations, masks):
    return masks / masks.sum(axis=1, keepdims=True) + 1e-3j * masks


#: Each scorer in a small configuration (the official Zombie Dice's, whose dice chain alone takes half
#: a minute, asks its agent through the same code as All Yellow Zombie Dice's).
SMALL_GAMES = {"ayzd": ["--goal", "4"], "shakes": ["--players", "2"], "pig": ["--goal", "10"],
               "liars-dice": ["--faces", "3"], "liars-dice-match": ["--dice", "1"],
               "closest-number": ["--numbers", "4", "--round3", "one_card"]}


@pytest.mark.parametrize("game", SMALL_GAMES)
@pytest.mark.parametrize("agent, raised", [("raise_system_exit", "SystemExit(0)"),
                                           ("raise_runtime_error", "RuntimeError: the agent's own failure")])
def test_an_agent_s_own_exception_is_one_line_naming_it_and_status_1(game, agent, raised, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli_main(["evaluate", game, f"test_untrusted_agents:{agent}", *SMALL_GAMES[game], "--json"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 1 and out == "", (game, out)
    assert err == f"dice-envs: error: agent test_untrusted_agents:{agent} raised {raised}\n"


@pytest.mark.parametrize("game", SMALL_GAMES)
@pytest.mark.parametrize("agent", ["complex_uniform", "complex_skewed"])
def test_complex_probabilities_are_refused_by_every_scorer(game, agent, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli_main(["evaluate", game, f"test_untrusted_agents:{agent}", *SMALL_GAMES[game], "--json"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and out == "" and len(err.splitlines()) == 1
    assert f"agent test_untrusted_agents:{agent} returned complex" in err and "real numbers" in err


def test_the_contract_in_python_keeps_the_agent_s_exception_and_checks_plain_callables(monkeypatch):
    with pytest.raises(AgentError, match="agent raiser raised SystemExit") as raised:
        score("pig", FunctionAgent(raise_system_exit, "raiser"), goal=10)
    assert isinstance(raised.value.__cause__, SystemExit)  # the agent's own, for a debugger
    masks = np.ones((3, 2), bool)
    observations = np.zeros((3, 4), np.float32)
    with pytest.raises(AgentError, match="agent plain raised RuntimeError"):  # a callable that is no Agent
        ask_agent(raise_runtime_error, observations, masks, what="agent plain")
    with pytest.raises(ContractError, match="complex"):
        ask_agent(complex_uniform, observations, masks)
    for answer in (np.array([["0.5", "0.5"]] * 3), np.array([[0.5, 0.5j]] * 3, object)):
        with pytest.raises(ContractError, match="real numbers"):
            ask_agent(lambda o, m, a=answer: a, observations, masks)
    assert ask_agent(lambda o, m: np.array([[0.5, 0.5]] * 3, object), observations, masks).dtype == np.float64
    with pytest.raises(KeyboardInterrupt):  # still interrupts
        ask_agent(lambda o, m: (_ for _ in ()).throw(KeyboardInterrupt), observations, masks)
    monkeypatch.setenv("DICE_ENVS_DEBUG", "1")  # the traceback behind the line
    with pytest.raises(AgentError):
        cli_main(["evaluate", "pig", "test_untrusted_agents:raise_runtime_error", "--goal", "10"])
