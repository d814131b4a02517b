"""``render_mode="rgb_array"``: every AEC env and every Gymnasium id draws a picture of the table,
a fixed-size RGB frame, and declares ``render_fps`` (Gymnasium's checker and RecordVideo need both).

The pictures are checked twice: by what the painter says it drew (``env.painter.items``: dice,
cups, bars, rungs, cards, and whose they are, against the rules-core state), and by their pixels
(solid drawn shapes, which text on the felt never makes: the check fails on a frame of text)."""

import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import dice_envs
from dice_envs import closest_number_v0, liars_dice_match_v0, liars_dice_v1, pig_v0, shakes_v0, zombie_dice_v0
from dice_envs.envs.rendering import FRAME_SIZE
from dice_envs.games.closest_number.rules import score_board

pytest.importorskip("matplotlib")

SHAPE = (FRAME_SIZE[1], FRAME_SIZE[0], 3)
GYM_KWARGS = {"ClosestNumber-v0": dict(numbers=6, opponent="random"), "LiarsDice-v0": dict(faces=3),
              "LiarsDice-v1": dict(faces=3), "LiarsDiceMatch-v0": dict(faces=3), "Pig-v0": dict(goal=20)}
FELTS = ("#1d5e3a", "#164a2e")  # the table and its panels
TABLE_OBJECTS = {"die", "hidden_die", "zombie_die", "cup", "score_bar", "card", "number_card", "patient", "rung"}


def _packed(frame):
    f = frame.astype(np.int32)
    return (f[..., 0] << 16) | (f[..., 1] << 8) | f[..., 2]


def solid_share(frame, block=5):
    """The share of the frame's pixels that start a ``block`` x ``block`` square of one colour other
    than the felt's: drawn shapes (dice, bars, cards, cups).  Text, however much, has none."""
    packed = _packed(frame)
    h, w = packed.shape
    corner = packed[: h - block + 1, : w - block + 1]
    same = np.ones(corner.shape, bool)
    for dy in range(block):
        for dx in range(block):
            same &= packed[dy : dy + h - block + 1, dx : dx + w - block + 1] == corner
    felts = [int(c[1:], 16) for c in FELTS]
    return float((same & ~np.isin(corner, felts)).sum()) / packed.size


def text_frame(text: str) -> np.ndarray:
    """A frame of text on the felt, as the text renderer of dice_envs 0.1 drew it."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(FRAME_SIZE[0] / 100, FRAME_SIZE[1] / 100), dpi=100, facecolor=FELTS[0])
    canvas = FigureCanvasAgg(fig)
    fig.text(0.03, 0.955, "Liar's Dice", color="white", fontsize=17, fontweight="bold", va="top")
    fig.text(0.03, 0.87, text, color="#f4f1e8", fontsize=10, family="monospace", va="top", linespacing=1.35)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[..., :3].copy()


def assert_picture(frame, painter):
    assert frame.shape == SHAPE and frame.dtype == np.uint8
    assert {item.kind for item in painter.items} & TABLE_OBJECTS, painter.items
    assert solid_share(frame) > 0.004, solid_share(frame)


def random_action(env, rng):
    return int(rng.choice(np.flatnonzero(env.action_mask(env.agent_selection))))


def test_the_pixel_check_fails_on_text():
    env = liars_dice_v1.raw_env(render_mode="ansi", num_players=3, dice_per_player=3)
    env.reset(seed=0)
    text = "\n".join([env.render()] * 6)
    assert solid_share(text_frame(text)) < 0.0005


@pytest.mark.parametrize("name", sorted(dice_envs.all_environments))
def test_every_aec_env_draws_frames(name):
    env = dice_envs.all_environments[name].env(render_mode="rgb_array")
    assert env.metadata["render_fps"] > 0 and "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=0)
    frames = [env.render()]
    assert_picture(frames[0], env.unwrapped.painter)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter(max_iter=8):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        frames.append(env.render())
        assert_picture(frames[-1], env.unwrapped.painter)
    assert any(not np.array_equal(frames[0], f) for f in frames[1:])  # the picture follows the game


@pytest.mark.parametrize("env_id", sorted(dice_envs.single_agent_environments))
def test_every_gymnasium_id_renders_and_passes_the_render_check(env_id):
    env = gymnasium.make(f"dice_envs/{env_id}", render_mode="rgb_array", **GYM_KWARGS.get(env_id, {}))
    check_env(env.unwrapped)  # includes Gymnasium's render check
    env.reset(seed=1)
    frame = env.render()
    assert_picture(frame, env.unwrapped.aec.painter)


def test_pig_shows_the_die_as_it_landed_and_two_bars():
    env = pig_v0.raw_env(render_mode="rgb_array")
    env.reset(seed=3)
    env.render()
    assert env.painter.count("die") == 1 and env.painter.count("score_bar") == 2
    assert [i.value for i in env.painter.items if i.kind == "die"] == [None]  # nobody has rolled yet
    for _ in range(6):
        env.step(1)  # roll
        if env.game_state.mover != 0:
            break
    env.render()
    face = env.moves[-1][1]
    assert [i.value for i in env.painter.items if i.kind == "die"] == [face]
    bars = {i.owner: i.value for i in env.painter.items if i.kind == "score_bar"}
    assert bars == {"player_0": env.game_state.scores[0], "player_1": env.game_state.scores[1]}


def test_zombie_dice_shows_the_roll_the_dice_set_aside_and_the_cup():
    env = zombie_dice_v0.raw_env(render_mode="rgb_array", num_players=3)
    env.reset(seed=5)
    env.render()
    assert env.painter.count("score_bar") == 3 and env.painter.count("cup") == 1
    rng = np.random.default_rng(1)
    for _ in range(40):
        env.step(1 if env.action_mask(env.agent_selection)[1] and rng.random() < 0.8 else random_action(env, rng))
        state = env.game_state
        env.render()
        if state.is_terminal():
            break
        drawn = [i for i in env.painter.items if i.kind == "zombie_die"]
        rolled = [i for i in drawn if i.value is not None]
        in_cup = [i for i in drawn if i.value is None]
        if state.rolled:  # the roll's three dice, then the brains, shotguns and footprints set aside
            assert len(rolled) == 3 + sum(state.brain_dice) + sum(state.shotgun_dice) + sum(state.feet)
            assert len(in_cup) == sum(state.cup)
            assert [i.value for i in env.painter.items if i.kind == "cup"] == [sum(state.cup)]
            for face, counts in (("brain", state.brain_dice), ("shotgun", state.shotgun_dice)):
                for die, n in zip(state.game.dice, counts):
                    assert sum(1 for i in rolled[3:] if i.value == face and i.owner == die.name) == n


def _dice(painter, kind, owner):
    return sorted(i.value for i in painter.items if i.kind == kind and i.owner == owner)


def test_liars_dice_shows_the_movers_dice_hides_the_others_and_climbs_the_ladder():
    env = liars_dice_v1.raw_env(render_mode="rgb_array", num_players=3, dice_per_player=2, wild="aces")
    env.reset(seed=2)
    for turn in range(4):
        env.render()
        state = env.game_state
        mover = env.agent_selection
        assert _dice(env.painter, "die", mover) == list(state.rolls[state.current_player])
        for seat, agent in enumerate(env.possible_agents):
            if agent != mover:
                assert env.painter.count("die", agent) == 0 and env.painter.count("hidden_die", agent) == 2
        assert env.painter.count("cup") == 2
        rungs = [i for i in env.painter.items if i.kind == "rung"]
        assert [(r.owner, r.value) for r in rungs] == [
            (f"player_{state.seat(k)}", state.game.bid(b)) for k, b in enumerate(state.bids)]
        bids = [a for a in np.flatnonzero(env.action_mask(mover)) if a != state.game.call_action]
        env.step(int(bids[0]) if turn < 3 else state.game.call_action)
    env.render()  # called: every die face up
    state = env.game_state
    assert state.called
    for seat, agent in enumerate(env.possible_agents):
        assert _dice(env.painter, "die", agent) == list(state.rolls[seat])
    assert env.painter.count("hidden_die") == 0 and env.painter.count("cup") == 0
    assert env.painter.count("rung") == 3


def test_liars_dice_match_shows_dice_counts_lost_dice_and_the_last_reveal():
    env = liars_dice_match_v0.raw_env(render_mode="rgb_array", num_players=2, dice_per_player=3)
    env.reset(seed=4)
    env.render()
    assert env.painter.count("lost_die") == 0 and env.painter.count("revealed_die") == 0
    call = env.game.call_action
    while sum(env.game_state.dice) == 6:
        mask = env.action_mask(env.agent_selection)
        env.step(call if mask[call] else int(np.flatnonzero(mask)[0]))
    env.render()
    state = env.game_state
    for p, agent in enumerate(env.possible_agents):
        assert env.painter.count("lost_die", agent) == 3 - state.dice[p]
        held = env.painter.count("die", agent) + env.painter.count("hidden_die", agent)
        assert held == state.dice[p]
    assert env.painter.count("revealed_die") == 6  # the called round's dice, face up


def test_shakes_shows_patients_cards_records_and_tokens():
    env = shakes_v0.raw_env(render_mode="rgb_array", num_players=4, mode="maesters")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.game_state.is_terminal():
        env.render()
        state = env.game_state
        assert env.painter.count("patient") == state.patients_left
        cards = {i.owner: i.value for i in env.painter.items if i.kind == "card"}
        mover = env.agent_selection
        assert cards == {a: (str(state.efficacies[s]) if a == mover else None)
                         for s, a in enumerate(env.possible_agents)}  # the mover's own card alone
        assert env.painter.count("patient_die") == state.total_treated
        assert env.painter.count("token") == state.total_saved
        env.step(random_action(env, rng))
    env.render()
    state = env.game_state
    assert {i.value for i in env.painter.items if i.kind == "card"} == {str(e) for e in state.efficacies}
    court = shakes_v0.raw_env(render_mode="rgb_array", num_players=3, mode="court")
    court.reset(seed=0)
    court.step(0)
    court.render()
    assert [i.value for i in court.painter.items if i.kind == "card"] == [None] * 3  # the court never sees them
    assert court.painter.count("patient_die") == 1


def test_closest_number_shows_the_board_hidden_decoys_and_the_last_round():
    env = closest_number_v0.raw_env(render_mode="rgb_array", num_players=2, numbers=8, starting_player=0)
    env.reset(seed=0)
    rng = np.random.default_rng(3)
    for _ in range(2):  # round 1
        env.step(random_action(env, rng))
    assert env.game_state.round == 2 and env.agent_selection == "player_1"  # round 2's starter
    env.step(env.game.action(1, decoy=True))  # player_1's decoy on 1
    env.render()
    assert env.painter.count("number_card") == 2 * 8  # this round's board and round 1's, face up
    this_round = [i for i in env.painter.items if i.kind == "card"][:1]
    assert [(i.owner, i.value) for i in this_round] == [("player_1", "?")]  # player_0 cannot tell the decoy
    env.step(random_action(env, rng))
    env.render()  # player_1 to move sees their own decoy
    marks = [(i.owner, i.value) for i in env.painter.items if i.kind == "card"][:2]
    assert sorted(marks) == [("player_0", "?"), ("player_1", "D")]


def test_closest_number_territory_agrees_with_the_scoring():
    from dice_envs.games.closest_number.picture import scorer

    rng = np.random.default_rng(0)
    for _ in range(200):
        numbers, players = int(rng.integers(4, 12)), int(rng.integers(2, 4))
        spots = rng.choice(np.arange(1, numbers + 1), size=min(numbers, 2 * players), replace=False)
        placements = [(k % players, int(n), bool(rng.random() < 0.3)) for k, n in enumerate(spots)]
        points = [0] * players
        for k in range(1, numbers + 1):
            owner = scorer(placements, k)
            if owner is not None:
                points[owner] += 1
        cards = [(s, n) for s, n, decoy in placements if not decoy]
        assert tuple(points) == score_board(cards, players, numbers)


def test_record_video_writes_an_mp4_of_a_game_for_every_gymnasium_id(tmp_path):
    pytest.importorskip("moviepy")
    pytest.importorskip("imageio_ffmpeg")
    from gymnasium.wrappers import RecordVideo

    rng = np.random.default_rng(0)
    for env_id in sorted(dice_envs.single_agent_environments):
        folder = tmp_path / env_id
        env = gymnasium.make(f"dice_envs/{env_id}", render_mode="rgb_array", **GYM_KWARGS.get(env_id, {}))
        env = RecordVideo(env, str(folder), episode_trigger=lambda episode: True, disable_logger=True)
        _, info = env.reset(seed=0)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            _, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        env.close()
        videos = list(folder.glob("*.mp4"))
        assert len(videos) == 1 and videos[0].stat().st_size > 1000, env_id


def test_unknown_render_mode_is_refused():
    with pytest.raises(ValueError, match="render_mode"):
        dice_envs.pig_v0.env(render_mode="rgb")


# -- hidden information: a render is a function of what its viewer (the player to move) knows --------


def _render_after(make_env, roll, actions, monkeypatch):
    """Render ``make_env()`` after its first roll came out as ``roll`` and its players made ``actions``:
    the frame (or text), and the painter's texts."""
    from dice_envs.games.liars_dice.rules import LiarsDiceState

    with monkeypatch.context() as patch:
        patch.setattr(LiarsDiceState, "sample_chance", lambda state, rng: roll)
        env = make_env()
        env.reset(seed=0)
        for action in actions:
            env.step(action)
    frame = env.render()
    texts = [] if env.painter is None else [i.value for i in env.painter.items if i.kind == "text"]
    return frame, texts


@pytest.mark.parametrize("render_mode", ["rgb_array", "ansi"])
@pytest.mark.parametrize("module", [liars_dice_v1, liars_dice_match_v0], ids=["round", "match"])
def test_liars_dice_renders_the_same_whatever_the_other_players_hold(render_mode, module, monkeypatch):
    """At every turn, a world where the other players rolled other dice gives the same frame (pixels and
    texts) or the same text: the dice under the cups, the log of the roll included."""

    def make_env():
        return module.raw_env(render_mode=render_mode, num_players=3, dice_per_player=2, wild="aces")

    rng = np.random.default_rng(5)
    env = make_env()
    env.reset(seed=0)
    state = env.game_state
    rolls = (state.round if module is liars_dice_match_v0 else state).rolls
    actions: list = []
    for _ in range(5):
        mover = env.game_state.current_player  # the round's seat: all three players are in round 1
        other = tuple(roll if seat == mover else (1, 1) if roll != (1, 1) else (2, 3)  # the others roll again
                      for seat, roll in enumerate(rolls))
        seen, seen_texts = _render_after(make_env, rolls, actions, monkeypatch)
        changed, changed_texts = _render_after(make_env, other, actions, monkeypatch)
        if render_mode == "ansi":
            assert seen == changed, (seen, changed)
        else:
            assert seen_texts == changed_texts and np.array_equal(seen, changed), (seen_texts, changed_texts)
        mask = env.action_mask(env.agent_selection)
        action = int(np.flatnonzero(mask)[0])  # the lowest bid: the round goes on
        env.step(action)
        actions.append(action)


@pytest.mark.parametrize("env_id", ["LiarsDice-v1", "LiarsDiceMatch-v0"])
def test_liars_dice_gymnasium_frames_log_only_the_agents_dice(env_id):
    env = gymnasium.make(f"dice_envs/{env_id}", render_mode="rgb_array", dice_per_player=2, wild="aces",
                         opponent="random")
    env.reset(seed=11)
    env.render()
    aec = env.unwrapped.aec
    rolled = [i.value for i in aec.painter.items if i.kind == "text" and i.value.startswith("dice rolled")]
    state = aec.game_state
    rolls = (state.round if env_id == "LiarsDiceMatch-v0" else state).rolls
    me = state.current_player
    assert rolled == ["dice rolled: " + "; ".join(
        f"player_{seat} " + " ".join(str(f) if seat == me else "?" for f in roll) for seat, roll in enumerate(rolls))]


def test_closest_number_renders_hide_which_card_is_the_decoy():
    def frames(first, second):
        env = closest_number_v0.raw_env(render_mode="rgb_array", num_players=2, numbers=8, starting_player=0)
        env.reset(seed=0)
        env.step(env.game.action(1))  # round 1: player_0 on 1,
        env.step(env.game.action(8))  # player_1 on 8
        env.step(first)  # round 2, player_1 starts: a card and a decoy, in either order
        texts = []
        for action in (env.game.action(5), second):
            env.render()
            texts.append([i.value for i in env.painter.items if i.kind == "text"])
            env.step(action)
        return texts

    game = closest_number_v0.raw_env(num_players=2, numbers=8).game
    decoy_first = frames(game.action(2, decoy=True), game.action(7))
    card_first = frames(game.action(2), game.action(7, decoy=True))
    assert decoy_first[0] == card_first[0]  # player_0 to move: player_1's card on 2 may be the decoy
    assert any("decoy" in line for line in decoy_first[1])  # player_1 sees their own decoy


def test_shakes_renders_hide_the_other_maesters_declarations():
    def texts(declaration):
        env = shakes_v0.raw_env(render_mode="ansi", num_players=3, mode="maesters")
        env.reset(seed=0)
        assert env.agent_selection == "player_0"
        env.step(declaration)
        return env.render()

    assert texts(0) == texts(1)


def test_rgb_array_without_matplotlib_names_the_plot_extra(monkeypatch):
    from gymnasium.error import DependencyNotInstalled

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # as if [plot] were not installed
    with pytest.raises(DependencyNotInstalled, match=r"pip install 'dice-envs\[plot\]'"):
        liars_dice_v1.env(render_mode="rgb_array")
    with pytest.raises(DependencyNotInstalled, match="plot"):
        gymnasium.make("dice_envs/Pig-v0", render_mode="rgb_array")
