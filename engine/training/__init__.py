"""Training with the engine's own stages: the loss and backward pass, the training loop, the corpora, the shipped
trained models, their evaluation, the training lab's experiments and the `train`/`translate`/`evaluate` verbs."""
