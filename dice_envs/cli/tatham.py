"""``dice-envs dice tatham`` (placeholder until the analysis lands)."""


def add_commands(verbs) -> None:
    pass
