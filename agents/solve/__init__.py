"""Game-agnostic exact machinery: extensive-form trees, exploitability, the sequence-form LP,
Gambit export, the jeopardy games' solver and the on-disk cache."""
