"""Hypothesis profiles: `--hypothesis-profile=noshrink` replays and generates without
shrinking, to see a failing playout at once (shrinking a long deal can take minutes)."""

from hypothesis import Phase, settings

settings.register_profile("noshrink", phases=[Phase.explicit, Phase.reuse, Phase.generate])
