"""The Shakes: the court's Bayes-optimal policy and exact values, the argument's odds, exact scoring
of any court agent, the single-agent environments and the commands."""
