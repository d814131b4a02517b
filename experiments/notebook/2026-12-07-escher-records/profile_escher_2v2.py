"""Where an ESCHER iteration's time goes on two dice each, aces wild (escher-2v2-aces's settings)."""
import cProfile, pstats, sys, time
import numpy as np, torch
torch.set_num_threads(1)
from dice_envs.agents.liars_dice.escher import Escher, EscherSettings
from dice_envs.games.liars_dice.batched import LiarsDiceBatch
from dice_envs.games.liars_dice.rules import LiarsDiceGame

game = LiarsDiceGame(dice_per_player=2, faces=6, wild="aces")
learner = Escher(game, "512,512", "512,512", EscherSettings(games=4096), "256,256")
batch, rng = LiarsDiceBatch(4096, game=game), np.random.default_rng(0)
warm, profiled = int(sys.argv[1]), int(sys.argv[2])
start = time.process_time()
for _ in range(warm):
    learner.iterate(batch, rng)
print(f"warm-up: {warm} iterations, {time.process_time() - start:.1f} CPU s")
profile = cProfile.Profile()
start = time.process_time()
profile.enable()
steps = 0
for _ in range(profiled):
    played, _ = learner.iterate(batch, rng)
    steps += played
profile.disable()
cpu = time.process_time() - start
print(f"profiled: {profiled} iterations, {steps} steps, {cpu:.1f} CPU s ({cpu / profiled:.2f} s an iteration)")
stats = pstats.Stats(profile).sort_stats("cumulative")
stats.print_stats(40)
