"""What turns a rules core into environments: the PettingZoo adapter, the batched base, the
Gymnasium single-agent and vector views, the SB3 adapter and the pictures' frame."""
