"""Liar's Dice: equilibria (CFR+, the sequence-form LP, compiled CFR+ for two dice each), exact
scoring in memory and streamed, the whole game from its rounds, learners (MCCFR, ESCHER),
opponents, the single-agent environments and the commands."""
