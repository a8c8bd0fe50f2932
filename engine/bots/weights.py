"""STRONG's fitted evaluation weights (engine/bots/evaluation.py), written by
bench/train_bots.py: do not edit by hand.

Command: make train-bots
Seeds: train-bots-<profile>-<players>-<i>, i < 200, at every table (BASIC at
every seat):
classic 2p, classic 4p, pagat 2p, pagat 4p, spanish 2p, spanish 4p, canasta 2p, canasta
4p, bolivia 4p, official 4p
Rows: 165696 (each side at the start of every draw); ridge 0.001; R² 0.307.
"""

WEIGHTS: tuple[float, ...] = (
    0.982533,  # meld_points
    1.12815,  # bonus_points
    0.480876,  # red_three_points
    0.0,  # penalty_points
    -0.39264,  # hand_penalty
    25.1141,  # hand_cards
    -45.4948,  # sevens
    -30.1057,  # growing_melds
    55.6207,  # growing_cards
    0.213465,  # growing_bonus
    -228.258,  # opened
    1.45692,  # known_cards
    2.02369,  # wilds_in_hand
    2.30199,  # pile_for_drawer
    -0.23716,  # frozen_pile_for_drawer
    -0.391898,  # stock_x_table
    39.8726,  # stock_x_hand_cards
)
