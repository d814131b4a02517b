"""Game-agnostic learning: trained networks as policies."""
