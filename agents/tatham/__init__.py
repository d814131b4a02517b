"""Tatham's dice: the fault-sensitivity plot and the ``dice-envs dice tatham`` command."""
