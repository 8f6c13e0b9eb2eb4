import os

import torch

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# One thread: on a 2-core machine the tiny tensors here run faster (and reproducibly) without thread hand-offs.
torch.set_num_threads(1)
